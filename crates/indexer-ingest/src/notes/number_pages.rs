//! Pages of numbers: a financial statement or a table without rules is mostly amounts, and
//! its rows (a dot leader costs a token per dot) cut it into many small notes of a few rows
//! each. None of them holds what names the page: its title (`CONSOLIDATED BALANCE SHEETS`),
//! the years of its column heads and the line items together. Such a page gets one more text
//! note of its words without the amounts, so that a question naming a statement's line items
//! and year finds the page (its small notes still find a single row).
//!
//! A page is a page of numbers when at least [`MIN_NUMBERS`] of its words are numbers and
//! they are at least [`MIN_NUMBER_SHARE`] of everything on it separated by spaces (words,
//! numbers, dot leaders and currency signs alike; docs/evaluation.md, "Financial statements", measures it
//! against the share of words alone). The note keeps every word in order, leaving out the amounts, the leaders and the signs, and
//! keeps of the numbers the years (`2017`; `FY2017` is a word) that head a statement's columns.

/// A page needs at least this many numbers: a short slide with a few figures is no table.
pub(crate) const MIN_NUMBERS: usize = 20;
/// The numbers' share of everything on the page separated by spaces, at least.
pub(crate) const MIN_NUMBER_SHARE: f64 = 0.3;

/// Characters around a number that do not make it a word: currency, sign, brackets of a
/// negative amount, percent, and the punctuation after it.
const AROUND_NUMBERS: &[char] = &[
    '$', '€', '£', '¥', '(', ')', '%', ',', '.', ';', ':', '-', '–', '—', '+',
];

/// Digits with the separators of an amount (`1,234.5`), without what surrounds them.
fn is_number(word: &str) -> bool {
    let core = word.trim_matches(AROUND_NUMBERS);
    core.chars().any(|c| c.is_ascii_digit())
        && core
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == '.')
}

/// A year a statement's column may head: four digits from 1900 to 2099.
fn is_year(word: &str) -> bool {
    let core = word.trim_matches(AROUND_NUMBERS);
    core.len() == 4
        && core.bytes().all(|b| b.is_ascii_digit())
        && (core.starts_with("19") || core.starts_with("20"))
}

/// What counts as no word at all: a dot leader (`.....`, `…`), a lone currency sign, a dash
/// standing for nil.
fn is_filler(word: &str) -> bool {
    word.chars()
        .all(|c| AROUND_NUMBERS.contains(&c) || c == '…')
}

/// The words of a page of numbers without its amounts (years kept), `None` for any other
/// page: `words` are the page's words in reading order.
pub(crate) fn page_words(words: &[&str]) -> Option<String> {
    let numbers = words.iter().filter(|w| is_number(w)).count();
    if numbers < MIN_NUMBERS || (numbers as f64) < MIN_NUMBER_SHARE * words.len() as f64 {
        return None;
    }
    let kept: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !is_filler(w) && (!is_number(w) || is_year(w)))
        .collect();
    let has_words = kept.iter().any(|w| !is_year(w));
    has_words.then(|| kept.join(" "))
}

/// The page as a reader reads it: every word and amount in order, without the dot leaders
/// (`Total assets.........` is `Total assets`). The note of a page of numbers keeps it as its
/// `context`, which `indexer ask` gives the model in place of the note's words.
pub(crate) fn page_text(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| {
            if w.ends_with("..") || w.ends_with('…') {
                w.trim_end_matches(['.', '…'])
            } else {
                w
            }
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const BALANCE_SHEET: &str = "AMAZON.COM, INC. CONSOLIDATED BALANCE SHEETS (in millions, \
        except per share data) December 31, 2016 2017 ASSETS Current assets: Cash and cash \
        equivalents .............. $ 19,334 $ 20,522 Marketable securities ......... 6,647 \
        10,464 Inventories ............ 11,461 16,047 Accounts receivable, net and other \
        8,339 13,164 Total current assets ......... 45,781 60,197 Property and equipment, \
        net ......... 29,114 48,866 Goodwill ......... 3,784 13,350 Other assets \
        4,723 8,897 Total assets ............ $ 83,402 $ 131,310 LIABILITIES AND \
        STOCKHOLDERS' EQUITY Accounts payable ....... $ 25,309 $ 34,616 Accrued expenses \
        and other 13,739 18,170 Unearned revenue 4,768 5,097 Total current liabilities \
        43,816 57,883 Long-term debt 7,694 24,743 (1,837) (484) — 37";

    fn words(s: &str) -> Vec<&str> {
        s.split_whitespace().collect()
    }

    #[test]
    fn a_statement_page_keeps_its_title_line_items_and_years() {
        let got = page_words(&words(BALANCE_SHEET)).expect("a page of numbers");
        assert!(got.starts_with(
            "AMAZON.COM, INC. CONSOLIDATED BALANCE SHEETS (in millions, except per share \
             data) December 2016 2017 ASSETS Current assets: Cash and cash equivalents \
             Marketable securities Inventories"
        ));
        assert!(
            got.contains("Total assets LIABILITIES AND STOCKHOLDERS' EQUITY"),
            "{got}"
        );
        // No amount, no leader, no lone sign is left; the page number goes as well.
        for gone in ["19,334", "$", "....", "(1,837)", "—", "37"] {
            assert!(!words(&got).contains(&gone), "{gone} in {got}");
        }
    }

    #[test]
    fn a_reader_gets_the_page_with_its_amounts_and_without_leaders() {
        let got = page_text(&words(BALANCE_SHEET));
        assert!(
            got.contains("Cash and cash equivalents $ 19,334 $ 20,522 Marketable securities 6,647"),
            "{got}"
        );
        assert!(got.contains("Total assets $ 83,402 $ 131,310"), "{got}");
        assert!(!got.contains(".."), "{got}");
        assert_eq!(
            page_text(&words("Goodwill......... 3,784 … 1.5")),
            "Goodwill 3,784 1.5"
        );
    }

    #[test]
    fn pages_of_prose_and_pages_of_numbers_alone_get_nothing() {
        // Prose with a few figures in it.
        let prose = "Net sales increased 31% in 2017 to $177.9 billion, compared to $136.0 \
                     billion in 2016. Operating income was $4.1 billion.";
        assert_eq!(page_words(&words(prose)), None);
        // Many numbers, but most words are not: a page of text that cites amounts.
        let cited = format!("{} {}", "word ".repeat(200), "1,000 ".repeat(25));
        assert_eq!(page_words(&words(&cited)), None);
        // Numbers only (a page of figures with no label): no words to search.
        let bare = "2016 2017 ".repeat(5) + &"1,234 (56) ".repeat(15);
        assert_eq!(page_words(&words(&bare)), None);
        // Too few numbers to be a table, however dense.
        assert_eq!(page_words(&words("Revenue 10 20 30 Cost 5 6 7")), None);
    }

    proptest! {
        /// The note is the page's words in order, less what is left out: never a number that
        /// is not a year, never a leader.
        #[test]
        fn the_note_is_a_subsequence_without_amounts(
            ws in proptest::collection::vec(
                prop_oneof![
                    "[A-Za-z]{1,8}",
                    "[0-9]{1,3}(,[0-9]{3})?",
                    "(19|20)[0-9]{2}",
                    "\\.{2,6}",
                    Just("$".to_string()),
                ],
                0..120,
            )
        ) {
            let page: Vec<&str> = ws.iter().map(String::as_str).collect();
            if let Some(note) = page_words(&page) {
                let mut rest = page.iter();
                for w in note.split_whitespace() {
                    prop_assert!(rest.any(|p| *p == w), "{w} out of order");
                    prop_assert!(!is_number(w) || is_year(w), "{w}");
                    prop_assert!(!is_filler(w), "{w}");
                }
                let numbers = page.iter().filter(|w| is_number(w)).count();
                prop_assert!(numbers >= MIN_NUMBERS);
            }
        }
    }
}
