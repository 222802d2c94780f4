//! Pages a question names: "on page 42", "pages 30-35", "slide 4", "p. 12", "the second
//! page", "page two", "the cover", "the last page". A reader who names a page is pointing at
//! the evidence, so the notes of a named page come first among the candidates, whatever their
//! words share with the question.
//!
//! A page number ("page 12", "page two") may be the one printed on the page
//! (`Note::page_label`: a report whose cover and contents come first, a paper that starts at
//! page 6981 of its proceedings) or the page's place in the file (slides have no printed
//! numbers). The page that shows the number comes first; the page at that place in the file,
//! if another, comes next. An ordinal ("the second page"), the cover and the last page are
//! places in the file.

use crate::Result;
use crate::pool::{Pool, PoolEntry, links_among, note_info};
use crate::question::SearchedQuestion;
use crate::reader::Reader;
use indexer_index::Filter;
use std::collections::{BTreeMap, HashMap};

/// A page reference in a question.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRef {
    /// Pages `first..=last` by number: the numbers printed on them, or else their places.
    Numbers(u32, u32),
    /// Pages `first..=last` by roman numeral ("page xiv"): only pages that show them (front
    /// matter), never places in the file.
    Roman(u32, u32),
    /// The page at this place in the file (1-based): "the second page", "the cover".
    Place(u32),
    /// The document's last page.
    Last,
}

/// What a note of a named page adds to its fused score (which lies in [0, 1]): its score
/// lands in [4, 5], above every other note's.
pub const NAMED_PAGE_BONUS: f64 = 4.0;
/// What a note adds when its page is at the named number's place in the file but another
/// page shows that number: its score lands in [2, 3], below the notes of that page and above
/// those of every page the question does not name.
pub const PLACED_PAGE_BONUS: f64 = 2.0;
/// A range longer than this many pages is not pointing at evidence ("pages 400-640").
const MAX_RANGE: u32 = 30;

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Number(u32),
    Dash,
    Comma,
    Dot,
    Other,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        if word.is_empty() {
            return;
        }
        let w = std::mem::take(word);
        out.push(if w.bytes().all(|b| b.is_ascii_digit()) {
            w.parse().map_or(Token::Other, Token::Number)
        } else {
            Token::Word(w.to_lowercase())
        });
    };
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.push(c);
            continue;
        }
        flush(&mut word, &mut out);
        match c {
            '-' | '–' | '—' => out.push(Token::Dash),
            ',' => out.push(Token::Comma),
            '.' => out.push(Token::Dot),
            c if c.is_whitespace() => {}
            _ => out.push(Token::Other),
        }
    }
    flush(&mut word, &mut out);
    out
}

const CARDINALS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];
const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];

fn word_is(t: Option<&Token>, words: &[&str]) -> bool {
    matches!(t, Some(Token::Word(w)) if words.contains(&w.as_str()))
}

/// A page number: digits or a cardinal word ("page two").
fn number(t: Option<&Token>) -> Option<u32> {
    match t? {
        Token::Number(n) => Some(*n),
        Token::Word(w) => CARDINALS.iter().position(|c| c == w).map(|i| i as u32 + 1),
        _ => None,
    }
}

/// An ordinal: a word ("second") or digits with a suffix ("2nd").
fn ordinal(t: Option<&Token>) -> Option<u32> {
    let Some(Token::Word(w)) = t else {
        return None;
    };
    if let Some(i) = ORDINALS.iter().position(|o| o == w) {
        return Some(i as u32 + 1);
    }
    let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &w[digits.len()..];
    (["st", "nd", "rd", "th"].contains(&suffix) && !digits.is_empty())
        .then(|| digits.parse().ok())
        .flatten()
}

/// Roman digits, the subtractive pairs among them, largest first.
const ROMAN_DIGITS: [(&str, u32); 13] = [
    ("m", 1000),
    ("cm", 900),
    ("d", 500),
    ("cd", 400),
    ("c", 100),
    ("xc", 90),
    ("l", 50),
    ("xl", 40),
    ("x", 10),
    ("ix", 9),
    ("v", 5),
    ("iv", 4),
    ("i", 1),
];

/// The value of a roman numeral written the usual way (`xiv`, `XIV`; not `iiii`, `ixv` or
/// `dim`): the word must be what the value writes as.
pub(crate) fn roman_value(w: &str) -> Option<u32> {
    let lower = w.to_ascii_lowercase();
    if lower.is_empty() || lower.len() > 15 {
        return None;
    }
    let mut rest = lower.as_str();
    let mut value = 0;
    for (digit, v) in ROMAN_DIGITS {
        while let Some(r) = rest.strip_prefix(digit) {
            rest = r;
            value += v;
        }
    }
    (rest.is_empty() && to_roman(value) == lower).then_some(value)
}

fn to_roman(mut n: u32) -> String {
    let mut out = String::new();
    for (digit, v) in ROMAN_DIGITS {
        while n >= v {
            out.push_str(digit);
            n -= v;
        }
    }
    out
}

/// A page's roman numeral in a question: "page xiv". Front matter is a few dozen pages, so
/// numerals with `d` or `m` (500, 1000) are words ("page mix").
fn roman(t: Option<&Token>) -> Option<u32> {
    match t? {
        Token::Word(w) if !w.contains(['d', 'm']) => roman_value(w),
        _ => None,
    }
}

/// How a page is numbered in a question: a range keeps to one.
#[derive(Clone, Copy)]
enum Numbering {
    Arabic,
    Roman,
}

impl Numbering {
    fn value(self, t: Option<&Token>) -> Option<u32> {
        match self {
            Numbering::Arabic => number(t),
            Numbering::Roman => roman(t),
        }
    }

    fn pages(self, a: u32, b: u32) -> PageRef {
        match self {
            Numbering::Arabic => PageRef::Numbers(a, b),
            Numbering::Roman => PageRef::Roman(a, b),
        }
    }
}

/// The page number that opens a list item or a range at `j`. A one-letter roman numeral
/// stands only at the start of a range ("pages i-iv"): alone, "page I" is more often the
/// pronoun and "page X" a placeholder.
fn opening(t: &[Token], j: usize) -> Option<(u32, Numbering)> {
    if let Some(a) = number(t.get(j)) {
        return Some((a, Numbering::Arabic));
    }
    let a = roman(t.get(j))?;
    let long = matches!(t.get(j), Some(Token::Word(w)) if w.len() > 1);
    let range = ranges_to(t.get(j + 1)) && roman(t.get(j + 2)).is_some();
    (long || range).then_some((a, Numbering::Roman))
}

/// A dash, "to" or "through": what joins the ends of a range.
fn ranges_to(t: Option<&Token>) -> bool {
    t == Some(&Token::Dash) || word_is(t, &["to", "through"])
}

const PAGE_WORDS: &[&str] = &["page", "pages", "slide", "slides"];

/// The pages `question` names, in the order it names them.
pub fn named_pages(question: &str) -> Vec<PageRef> {
    let t = tokens(question);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let abbreviation = word_is(t.get(i), &["p", "pp"]) && t.get(i + 1) == Some(&Token::Dot);
        if word_is(t.get(i), PAGE_WORDS) || abbreviation {
            // A list of numbers and ranges: "pages 3, 5 and 9-11".
            let mut j = i + if abbreviation { 2 } else { 1 };
            while let Some((a, numbering)) = opening(&t, j) {
                match (ranges_to(t.get(j + 1)), numbering.value(t.get(j + 2))) {
                    (true, Some(b)) => {
                        if a >= 1 && b >= a && b - a < MAX_RANGE {
                            out.push(numbering.pages(a, b));
                        }
                        j += 3;
                    }
                    _ => {
                        if a >= 1 {
                            out.push(numbering.pages(a, a));
                        }
                        j += 1;
                    }
                }
                if t.get(j) == Some(&Token::Comma) {
                    j += 1;
                }
                if word_is(t.get(j), &["and", "or"]) {
                    j += 1;
                }
            }
            i = j.max(i + 1);
            continue;
        }
        let next_is_page = word_is(t.get(i + 1), PAGE_WORDS);
        if next_is_page && let Some(n) = ordinal(t.get(i)).filter(|&n| n >= 1) {
            out.push(PageRef::Place(n));
        } else if next_is_page && word_is(t.get(i), &["last", "final"]) {
            out.push(PageRef::Last);
        } else if word_is(t.get(i), &["cover"]) {
            let before = i.checked_sub(1).and_then(|k| t.get(k));
            if word_is(before, &["back"]) {
                out.push(PageRef::Last);
            } else if word_is(before, &["the", "front"]) || word_is(t.get(i + 1), &["page"]) {
                out.push(PageRef::Place(1));
            }
        }
        i += 1;
    }
    out
}

/// Each page's bonus in a document whose pages (those with notes; the last of them is the
/// last page) show the printed numbers `labels`.
fn page_bonuses(refs: &[PageRef], labels: &BTreeMap<u32, Option<&str>>) -> HashMap<u32, f64> {
    let mut bonus: HashMap<u32, f64> = HashMap::new();
    let mut give = |page: u32, b: f64| {
        let e = bonus.entry(page).or_insert(0.0);
        *e = e.max(b);
    };
    for r in refs {
        match *r {
            PageRef::Last => {
                if let Some((&p, _)) = labels.last_key_value() {
                    give(p, NAMED_PAGE_BONUS);
                }
            }
            PageRef::Place(n) => {
                if labels.contains_key(&n) {
                    give(n, NAMED_PAGE_BONUS);
                }
            }
            PageRef::Roman(a, b) => {
                for (&p, label) in labels {
                    if label
                        .and_then(roman_value)
                        .is_some_and(|v| (a..=b).contains(&v))
                    {
                        give(p, NAMED_PAGE_BONUS);
                    }
                }
            }
            PageRef::Numbers(a, b) => {
                for n in a..=b {
                    let shown = n.to_string();
                    let showing: Vec<u32> = labels
                        .iter()
                        .filter(|(_, l)| **l == Some(shown.as_str()))
                        .map(|(p, _)| *p)
                        .collect();
                    let placed = labels.contains_key(&n);
                    if showing.is_empty() {
                        if placed {
                            give(n, NAMED_PAGE_BONUS);
                        }
                    } else {
                        for p in showing {
                            give(p, NAMED_PAGE_BONUS);
                        }
                        if placed {
                            give(n, PLACED_PAGE_BONUS);
                        }
                    }
                }
            }
        }
    }
    bonus
}

/// Puts the notes of the pages `question` names first in `pool`: each note of a named page
/// gets [`NAMED_PAGE_BONUS`] (or [`PLACED_PAGE_BONUS`]) added to its fused score, and the
/// notes of those pages that were not candidates join the pool. The pages are those of the
/// filter's documents, or, without a document filter, of the best candidate's document.
pub(crate) fn put_named_pages_first(
    reader: &dyn Reader,
    pool: &mut Pool,
    question: &SearchedQuestion<'_>,
    filter: &Filter,
) -> Result<()> {
    let refs = named_pages(question.text);
    if refs.is_empty() || pool.fused.len() != pool.entries.len() {
        return Ok(());
    }
    let docs: Vec<String> = if filter.docs.is_empty() {
        let best = (0..pool.len()).max_by(|&a, &b| pool.fused[a].total_cmp(&pool.fused[b]));
        best.map(|i| pool.entries[i].note.doc.clone())
            .into_iter()
            .collect()
    } else {
        filter.docs.clone()
    };
    let position: HashMap<String, usize> = pool
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.note.id.clone(), i))
        .collect();
    let before = pool.len();
    for doc in &docs {
        let notes = reader.document_notes(doc)?;
        let mut labels: BTreeMap<u32, Option<&str>> = BTreeMap::new();
        for (n, _) in &notes {
            if let Some(p) = n.page {
                let l = labels.entry(p).or_insert(None);
                if l.is_none() {
                    *l = n.page_label.as_deref();
                }
            }
        }
        let bonus = page_bonuses(&refs, &labels);
        if bonus.is_empty() {
            continue;
        }
        let mut joining = Vec::new();
        for (note, v) in &notes {
            let Some(b) = note.page.and_then(|p| bonus.get(&p)) else {
                continue;
            };
            if !filter.matches(note) {
                continue;
            }
            match position.get(&note.id) {
                Some(&i) => pool.fused[i] += b,
                None => joining.push((note.clone(), v, *b)),
            }
        }
        for (note, v, b) in joining {
            pool.entries.push(PoolEntry {
                cosine: indexer_index::dot(v, &question.vector),
                note,
                bm25_rank: None,
                vector_rank: None,
            });
            pool.vectors.extend_from_slice(v);
            pool.fused.push(b);
        }
    }
    if pool.len() > before {
        pool.info = note_info(&pool.entries);
        pool.links = links_among(&pool.entries);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use PageRef::{Last, Numbers, Place, Roman};

    #[test]
    fn named_pages_reads_numbers_ranges_and_words() {
        for (q, want) in [
            (
                "What is the job of the person at the top of page 42?",
                vec![Numbers(42, 42)],
            ),
            (
                "How many people are in the pictures in Pages 30-35?",
                vec![Numbers(30, 35)],
            ),
            (
                "Which group is second largest in Slide 4 in 2014?",
                vec![Numbers(4, 4)],
            ),
            (
                "What do pages 3, 5 and 9 to 11 say?",
                vec![Numbers(3, 3), Numbers(5, 5), Numbers(9, 11)],
            ),
            ("As p. 12 says", vec![Numbers(12, 12)]),
            ("What date is mentioned on the second page?", vec![Place(2)]),
            ("the 3rd slide", vec![Place(3)]),
            (
                "What is written at the top of page two?",
                vec![Numbers(2, 2)],
            ),
            ("How many people are on the cover?", vec![Place(1)]),
            ("the governor named on the last page", vec![Last]),
            ("on the back cover", vec![Last]),
            ("How many pages does the report have?", vec![]),
            ("Which 17 pages mention it?", vec![]),
            ("How many figures are in Pages 400-640?", vec![]),
            ("Is page-level retrieval better?", vec![]),
            ("page 0", vec![]),
            ("It covers the topic; a cover letter.", vec![]),
            ("What is listed on page xiv?", vec![Roman(14, 14)]),
            (
                "Summarise pages i-iv and Page IX.",
                vec![Roman(1, 4), Roman(9, 9)],
            ),
            ("pages xii to xv", vec![Roman(12, 15)]),
            ("Which page I should read first?", vec![]),
            ("page iiii or page mix-up", vec![]),
            ("Write each as \"Page X\", e.g. page v", vec![]),
            ("from page X to page Y", vec![]),
        ] {
            assert_eq!(named_pages(q), want, "{q:?}");
        }
    }

    #[test]
    fn roman_numerals_read_as_they_are_written() {
        for (w, v) in [
            ("i", 1),
            ("iv", 4),
            ("xiv", 14),
            ("XIV", 14),
            ("xl", 40),
            ("mcmxc", 1990),
        ] {
            assert_eq!(roman_value(w), Some(v), "{w}");
            assert_eq!(to_roman(v), w.to_ascii_lowercase());
        }
        for w in ["", "iiii", "ixv", "vx", "dim", "mid", "civil", "il", "12"] {
            assert_eq!(roman_value(w), None, "{w}");
        }
        // Every value up to 3999 writes one way and reads back.
        for v in 1..4000 {
            assert_eq!(roman_value(&to_roman(v)), Some(v));
        }
    }

    fn labels(pairs: &[(u32, Option<&'static str>)]) -> BTreeMap<u32, Option<&'static str>> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn the_page_showing_the_number_comes_before_the_place_in_the_file() {
        // A cover, then pages numbered from 1: "page 2" is the third page of the file.
        let l = labels(&[(1, None), (2, Some("1")), (3, Some("2")), (4, Some("3"))]);
        let b = page_bonuses(&[Numbers(2, 2)], &l);
        assert_eq!(b.get(&3), Some(&NAMED_PAGE_BONUS));
        assert_eq!(b.get(&2), Some(&PLACED_PAGE_BONUS));
        assert_eq!(b.len(), 2);
        // Slides show no numbers: the place in the file.
        let l = labels(&[(1, None), (2, None), (3, None)]);
        assert_eq!(
            page_bonuses(&[Numbers(2, 3), Last], &l),
            HashMap::from([(2, NAMED_PAGE_BONUS), (3, NAMED_PAGE_BONUS)])
        );
        // A number no page shows and beyond the last page names nothing.
        assert!(page_bonuses(&[Numbers(7, 7)], &l).is_empty());
        // An ordinal is a place in the file, whatever the pages show.
        let l = labels(&[(1, None), (2, Some("1")), (3, Some("2"))]);
        assert_eq!(
            page_bonuses(&[Place(2), Place(9)], &l),
            HashMap::from([(2, NAMED_PAGE_BONUS)])
        );
        // A roman numeral names the pages that show it, and no place in the file.
        let l = labels(&[(1, None), (2, Some("i")), (3, Some("ii")), (4, Some("1"))]);
        assert_eq!(
            page_bonuses(&[Roman(2, 2), Roman(4, 4)], &l),
            HashMap::from([(3, NAMED_PAGE_BONUS)])
        );
        // A page both shown and placed keeps the larger bonus.
        let l = labels(&[(1, Some("1")), (2, Some("2"))]);
        assert_eq!(
            page_bonuses(&[Numbers(1, 2)], &l),
            HashMap::from([(1, NAMED_PAGE_BONUS), (2, NAMED_PAGE_BONUS)])
        );
    }
}
