//! The terms rule: the line items a financial measure is computed from, and the titles of the
//! statements that print them, added to what retrieval searches.
//!
//! Questions on annual reports name a measure ("return on assets", "capex", "interest
//! coverage", "FY2019"); the page that answers them is a financial statement, which prints
//! the line items the measure is computed from ("Net income", "Total assets", "Purchases of
//! property and equipment") under column heads of bare years ("2019 2018"), and never the
//! measure's name. The measures and their line items are the textbook definitions, the same
//! for any company's report; the years are what a fiscal-year label ("FY2019", "fiscal 2019")
//! prints as in a statement's column heads. The same line items are also in the management's
//! discussion and the notes, often with the same figure; the statement's title
//! (`CONSOLIDATED STATEMENTS OF CASH FLOWS`) is what tells the statement apart.
//!
//! A measure's name is often a word of other fields too: an acronym (DPO is a data protection
//! officer, DSO a dynamic shared object, ROA a route origin authorisation), a common phrase
//! ("operating margin of error", "working capital" of a project). So the rule adds words only
//! when the question is put in a financial context: it names a fiscal year or a period, a
//! currency amount or a statement, or a document in the search's scope has statement pages
//! (a page of numbers under a statement's title). A docs-site question is never searched with
//! balance-sheet words.

use super::grammar::words;
use super::rule::{Change, Draft, Rule, RuleKind, Scope};
use crate::Result;

/// The rule (see the module).
#[derive(Debug, Clone, Copy, Default)]
pub struct Terms;

impl Rule for Terms {
    fn kind(&self) -> RuleKind {
        RuleKind::Terms
    }

    fn apply(&self, draft: &Draft<'_>, scope: &dyn Scope) -> Result<Option<Change>> {
        let w = words_with_hyphens(draft.kept);
        let named = named_measures(&w);
        let years = fiscal_years(&w);
        if named.is_empty() && years.is_empty() {
            return Ok(None);
        }
        let context = match financial_context(draft.kept, &w) {
            Some(c) => c,
            None if scope.has_statement_pages()? => {
                "a document searched has financial statements".to_string()
            }
            None => return Ok(None),
        };
        let mut related = related_terms(&named);
        related.extend(years.iter().map(|(_, y)| y.to_string()));
        let mut reasons: Vec<String> = Vec::new();
        if !named.is_empty() {
            let names: Vec<String> = named.iter().map(|n| format!("{:?}", n.phrase)).collect();
            reasons.push(format!(
                "{} {} printed in financial statements, and {context}",
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" }
            ));
        }
        for (label, year) in &years {
            reasons.push(format!("{label:?} is the year a statement heads {year:?}"));
        }
        Ok(Some(Change::Add {
            why: reasons.join("; "),
            words: related,
        }))
    }
}

/// A financial statement of an annual report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Statement {
    BalanceSheet,
    Operations,
    CashFlows,
}

use Statement::{BalanceSheet, CashFlows, Operations};

impl Statement {
    /// The words of its title as an annual report prints it (`CONSOLIDATED BALANCE SHEETS`);
    /// the income statement is titled "of operations" or "of income".
    fn title(self) -> &'static str {
        match self {
            BalanceSheet => "consolidated balance sheets",
            Operations => "consolidated statements of operations income",
            CashFlows => "consolidated statements of cash flows",
        }
    }
}

/// The names the statements go by, lower case, singular: a statement page's words hold one
/// ([`names_a_statement`]), and a question that names one is in a financial context.
pub(crate) const STATEMENT_NAMES: &[&str] = &[
    "balance sheet",
    "income statement",
    "statement of operations",
    "statement of income",
    "statement of cash flow",
    "cash flow statement",
    "statement of financial position",
];

/// Whether `text` names a statement ([`STATEMENT_NAMES`], singular or plural).
pub(crate) fn names_a_statement(text: &str) -> bool {
    let w = words(text);
    STATEMENT_NAMES.iter().any(|s| holds(&w, s))
}

/// (phrases that name a measure, as lower-case words; the line items it is computed from;
/// the statements that print them).
const MEASURES: &[(&[&str], &str, &[Statement])] = &[
    (
        &["capex", "capital expenditure"],
        "purchases of property and equipment capital expenditures investing activities",
        &[CashFlows],
    ),
    (
        &[
            "operating cash flow",
            "cash flow from operations",
            "cash from operations",
            "free cash flow",
        ],
        "net cash provided by operating activities purchases of property and equipment",
        &[CashFlows],
    ),
    (
        &["return on assets", "roa"],
        "net income total assets",
        &[BalanceSheet, Operations],
    ),
    (
        &[
            "return on equity",
            "return on shareholders equity",
            "return on stockholders equity",
            "roe",
        ],
        "net income total stockholders equity",
        &[BalanceSheet, Operations],
    ),
    (
        &["current ratio", "quick ratio", "working capital"],
        "total current assets total current liabilities",
        &[BalanceSheet],
    ),
    (
        &["debt to equity", "debt-to-equity", "debt equity ratio"],
        "long-term debt total stockholders equity",
        &[BalanceSheet],
    ),
    (
        &["inventory turnover"],
        "cost of sales inventories",
        &[BalanceSheet, Operations],
    ),
    (
        &["days payable outstanding", "payables turnover", "dpo"],
        "accounts payable cost of sales",
        &[BalanceSheet, Operations],
    ),
    (
        &["days sales outstanding", "receivables turnover", "dso"],
        "accounts receivable revenue",
        &[BalanceSheet, Operations],
    ),
    (
        &["asset turnover", "fixed asset turnover"],
        "revenue net sales total assets property and equipment",
        &[BalanceSheet, Operations],
    ),
    (
        &["gross margin", "gross profit margin"],
        "gross profit revenue cost of revenue",
        &[Operations],
    ),
    (
        &["operating margin", "operating profit margin"],
        "operating income revenue",
        &[Operations],
    ),
    (
        &["net margin", "net profit margin", "profit margin"],
        "net income revenue",
        &[Operations],
    ),
    (
        &["ebitda"],
        "operating income depreciation amortization",
        &[Operations, CashFlows],
    ),
    (
        &["interest coverage", "times interest earned"],
        "operating income interest expense",
        &[Operations],
    ),
    (
        &["effective tax rate"],
        "provision for income taxes income before income taxes",
        &[Operations],
    ),
    (
        &["payout ratio", "dividend payout"],
        "dividends net income",
        &[Operations, CashFlows],
    ),
    (
        &["cash flow to debt", "cash flow to total debt"],
        "net cash provided by operating activities long-term debt",
        &[CashFlows, BalanceSheet],
    ),
];

/// Lower-case words of `text` (letters, digits, `-`), in order.
fn words_with_hyphens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// A word without its plural `s` ("assets" and "asset", "expenditures" and "expenditure"
/// are one word to the rule); short words and words in `ss` are kept as they are.
fn singular(w: &str) -> &str {
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        &w[..w.len() - 1]
    } else {
        w
    }
}

/// Whether `words` holds `phrase` (lower-case words separated by spaces) as consecutive words,
/// singular and plural alike.
fn holds(words: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    words
        .windows(p.len())
        .any(|w| w.iter().zip(&p).all(|(a, b)| singular(a) == singular(b)))
}

/// A year a statement's column may head: four digits from 1900 to 2099.
fn is_year(word: &str) -> bool {
    word.len() == 4
        && word.bytes().all(|b| b.is_ascii_digit())
        && (word.starts_with("19") || word.starts_with("20"))
}

/// The year a fiscal-year label names: `fy2019` (`fy19` is not read: two digits name no
/// column head).
fn fiscal_year(word: &str) -> Option<&str> {
    word.strip_prefix("fy").filter(|d| is_year(d))
}

/// Whether `w` names a quarter of a year: `q1` to `q4`, `1q`, `h1`, `h2`.
fn is_period(w: &str) -> bool {
    matches!(
        w,
        "q1" | "q2"
            | "q3"
            | "q4"
            | "1q"
            | "2q"
            | "3q"
            | "4q"
            | "h1"
            | "h2"
            | "quarter"
            | "quarterly"
    )
}

/// Currency signs and codes that make a number an amount.
const CURRENCY_SIGNS: &[char] = &['$', '€', '£', '¥'];
const CURRENCY_CODES: &[&str] = &["usd", "eur", "gbp", "jpy", "cny", "chf"];

/// What puts a question in a financial context on its own words, said for the response: a
/// fiscal year or a period (a year, `FY2019`, "fiscal", a quarter), a currency amount, or the
/// name of a statement or of a company's annual filing.
fn financial_context(text: &str, w: &[String]) -> Option<String> {
    if let Some(y) = w.iter().find(|x| is_year(x) || fiscal_year(x).is_some()) {
        return Some(format!("the question names the year {y:?}"));
    }
    if let Some(p) = w.iter().find(|x| x.as_str() == "fiscal" || is_period(x)) {
        return Some(format!("the question names the period {p:?}"));
    }
    let amount = text.char_indices().any(|(i, c)| {
        CURRENCY_SIGNS.contains(&c)
            && text[i + c.len_utf8()..].starts_with(|d: char| d.is_ascii_digit())
    }) || w.iter().any(|x| CURRENCY_CODES.contains(&x.as_str()));
    if amount {
        return Some("the question names an amount of money".into());
    }
    let plain = words(text);
    if let Some(s) = STATEMENT_NAMES.iter().find(|s| holds(&plain, s)) {
        return Some(format!("the question names the {s}"));
    }
    if w.iter().any(|x| x == "10-k" || x == "10-q") || holds(&plain, "annual report") {
        return Some("the question names an annual filing".into());
    }
    None
}

/// A measure a question names.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Named {
    phrase: &'static str,
    /// The measure's line items.
    items: &'static str,
    statements: &'static [Statement],
}

/// The measures `w` names.
fn named_measures(w: &[String]) -> Vec<Named> {
    MEASURES
        .iter()
        .filter_map(|(phrases, items, statements)| {
            let phrase = phrases.iter().find(|p| holds(w, p))?;
            Some(Named {
                phrase,
                items,
                statements,
            })
        })
        .collect()
}

/// The words added for the measures named: the line items of each measure, then the titles
/// of the statements that print them.
fn related_terms(named: &[Named]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut statements: Vec<Statement> = Vec::new();
    for n in named {
        if !out.iter().any(|o| o == n.items) {
            out.push(n.items.to_string());
        }
        for s in n.statements {
            if !statements.contains(s) {
                statements.push(*s);
            }
        }
    }
    out.extend(statements.iter().map(|s| s.title().to_string()));
    out
}

/// The bare year of each fiscal-year label (`FY2019` → `2019`, also after "fiscal year" or
/// "FY" as a word) that the question does not already hold, with the label's words: what a
/// statement's column heads print.
fn fiscal_years(w: &[String]) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    for (i, word) in w.iter().enumerate() {
        let found = match fiscal_year(word) {
            Some(y) => Some((word.clone(), y)),
            None => {
                let label = matches!(word.as_str(), "fy" | "fiscal")
                    || (word == "year" && i > 0 && w[i - 1] == "fiscal");
                w.get(i + 1)
                    .filter(|next| label && is_year(next))
                    .map(|next| (format!("{word} {next}"), next.as_str()))
            }
        };
        if let Some((label, y)) = found
            && !w.iter().any(|x| x == y)
            && !out.iter().any(|(_, o)| *o == y)
        {
            out.push((label, y));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::tests::FixedScope;

    const BS: &str = "consolidated balance sheets";
    const OPS: &str = "consolidated statements of operations income";
    const CF: &str = "consolidated statements of cash flows";

    fn added(q: &str, scope: &FixedScope) -> Vec<String> {
        match Terms.apply(&Draft { typed: q, kept: q }, scope).unwrap() {
            Some(Change::Add { words, .. }) => words,
            _ => Vec::new(),
        }
    }

    #[test]
    fn measures_in_a_financial_context_bring_their_line_items_and_statements() {
        let none = FixedScope::default();
        assert_eq!(
            added("What is the company's FY2017 return on assets?", &none),
            ["net income total assets", BS, OPS, "2017"]
        );
        assert_eq!(
            added("What was the FY2019 capital expenditure?", &none),
            [
                "purchases of property and equipment capital expenditures investing activities",
                CF,
                "2019"
            ]
        );
        assert_eq!(
            added(
                "What is the cash flow to total debt ratio in FY2015?",
                &none
            ),
            [
                "net cash provided by operating activities long-term debt",
                CF,
                BS,
                "2015"
            ]
        );
        // A year already written bare, one measure named twice, and a statement two
        // measures are printed in, are added once.
        assert_eq!(
            added("ROE and return on equity in fiscal year 2019", &none),
            ["net income total stockholders equity", BS, OPS]
        );
        assert_eq!(
            added("gross margin and operating margin in 2020", &none),
            [
                "gross profit revenue cost of revenue",
                "operating income revenue",
                OPS
            ]
        );
        // The context may be an amount, a statement's name or a period.
        assert_eq!(
            added("Was the operating margin above $5 million?", &none)[0],
            "operating income revenue"
        );
        assert_eq!(
            added("the ROA on the balance sheet", &none)[0],
            "net income total assets"
        );
        assert_eq!(
            added("the third quarter's EBITDA", &none)[0],
            "operating income depreciation amortization"
        );
        // Or the documents searched: a report with statement pages.
        let reports = FixedScope {
            statements: true,
            ..FixedScope::default()
        };
        assert_eq!(
            added("What is the ROA?", &reports),
            ["net income total assets", BS, OPS]
        );
        assert!(added("What is the ROA?", &none).is_empty());
    }

    #[test]
    fn a_line_item_is_a_word_like_any_other() {
        // Only a measure brings words: a statement's line items, with a year or without, are
        // searched as the question has them (measured: the statement's title they brought
        // did not earn its place, docs/evaluation.md).
        let reports = FixedScope {
            statements: true,
            ..FixedScope::default()
        };
        for q in [
            "What were the company's revenues in 2014?",
            "How is revenue recognized?",
            "Where is the inventory of installed packages kept?",
            "Total assets of the build",
            "Which hosts were in the Ansible inventory in 2019?",
            "Sales tax rules for 2024 invoices",
        ] {
            assert!(added(q, &reports).is_empty(), "{q}");
        }
        // The year of a fiscal-year label is still added.
        assert_eq!(
            added("the value of inventories at the end of FY2017", &reports),
            ["2017"]
        );
    }

    #[test]
    fn singular_and_plural_name_one_measure() {
        let none = FixedScope::default();
        for q in [
            "What is the FY2017 return on asset?",
            "FY2017 capital expenditures",
            "the FY2017 receivable turnover",
        ] {
            assert!(!added(q, &none).is_empty(), "{q}");
        }
        assert_eq!(singular("assets"), "asset");
        assert_eq!(singular("loss"), "loss");
        assert_eq!(singular("is"), "is");
    }

    #[test]
    fn measures_outside_a_financial_context_add_nothing() {
        let none = FixedScope::default();
        for q in [
            "What are the DPO's duties under GDPR?",
            "How do I build Apache modules as DSO?",
            "What is the operating margin of error in a poll?",
            "How do I create a ROA for my prefix in RPKI?",
            "How much working capital does a small project need?",
            "What is the return value of read_to_string?",
            "Set the roam profile for the wifi card",
            "What does fy mean in this table?",
            "",
        ] {
            assert!(added(q, &none).is_empty(), "{q}: {:?}", added(q, &none));
        }
    }

    #[test]
    fn the_reason_names_the_measure_and_the_context() {
        let q = "What is the FY2018 interest coverage?";
        let Some(Change::Add { why, .. }) = Terms
            .apply(&Draft { typed: q, kept: q }, &FixedScope::default())
            .unwrap()
        else {
            panic!("no terms")
        };
        assert!(
            why.contains("\"interest coverage\"") && why.contains("fy2018"),
            "{why}"
        );
        // A fiscal-year label alone brings its bare year.
        assert_eq!(
            added(
                "How many stores were open in FY2019?",
                &FixedScope::default()
            ),
            ["2019"]
        );
    }
}
