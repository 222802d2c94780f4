//! The line items a financial measure is computed from, and the titles of the statements
//! that print them, added to what retrieval searches.
//!
//! Questions on annual reports name a measure ("return on assets", "capex", "interest
//! coverage", "FY2019"); the page that answers them is a financial statement, which prints
//! the line items the measure is computed from ("Net income", "Total assets", "Purchases of
//! property and equipment") under column heads of bare years ("2019 2018"), and never the
//! measure's name. The measures and their line items are the textbook definitions, the same
//! for any company's report; the years are what a fiscal-year label ("FY2019", "fiscal 2019")
//! prints as in a statement's column heads. The same line items are also in the management's
//! discussion and the notes, often with the same figure; the statement's title
//! (`CONSOLIDATED STATEMENTS OF CASH FLOWS`, on the page's first note and its note of words)
//! is what tells the statement apart. Only whole phrases that name a measure count, so
//! a question about anything else gains nothing: a rewrite a response shows
//! (`Rewrite::related`) and `rewrite = false` turns off.

/// A financial statement of an annual report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Statement {
    BalanceSheet,
    Operations,
    CashFlows,
}

use Statement::{BalanceSheet, CashFlows, Operations};

impl Statement {
    /// The words of its title as a 10-K prints it (`CONSOLIDATED BALANCE SHEETS`); the
    /// income statement is titled "of operations" or "of income".
    fn title(self) -> &'static str {
        match self {
            BalanceSheet => "consolidated balance sheets",
            Operations => "consolidated statements of operations income",
            CashFlows => "consolidated statements of cash flows",
        }
    }
}

/// (phrases that name a measure, as lower-case words; the line items it is computed from;
/// the statements that print them).
const MEASURES: &[(&[&str], &str, &[Statement])] = &[
    (
        &["capex", "capital expenditure", "capital expenditures"],
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
        &["return on assets", "return on asset", "roa"],
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
        &[
            "days sales outstanding",
            "receivables turnover",
            "receivable turnover",
            "dso",
        ],
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

/// Line items that one statement prints, as lower-case words: a question that names one and a
/// year asks for a figure of that statement. Words that docs name as often as reports do are
/// left out ("inventory", a host list of Ansible's; "sales" alone).
const LINE_ITEMS: &[(&[&str], Statement)] = &[
    (
        &[
            "total assets",
            "total liabilities",
            "current assets",
            "current liabilities",
            "inventories",
            "accounts receivable",
            "accounts payable",
            "long-term debt",
            "goodwill",
            "stockholders equity",
            "shareholders equity",
            "retained earnings",
            "cash and cash equivalents",
        ],
        BalanceSheet,
    ),
    (
        &[
            "revenue",
            "revenues",
            "net sales",
            "net income",
            "net loss",
            "operating income",
            "gross profit",
            "cost of sales",
            "cost of revenue",
            "cost of revenues",
            "operating expenses",
            "earnings per share",
            "research and development",
            "interest expense",
        ],
        Operations,
    ),
    (
        &[
            "operating activities",
            "investing activities",
            "financing activities",
            "depreciation",
            "dividends paid",
            "repurchases of common stock",
        ],
        CashFlows,
    ),
];

/// Lower-case words of `text` (letters, digits, `-`), in order.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Whether `words` holds `phrase` (lower-case words separated by spaces) as consecutive words.
fn holds(words: &[String], phrase: &str) -> bool {
    let p: Vec<&str> = phrase.split(' ').collect();
    words
        .windows(p.len())
        .any(|w| w.iter().zip(&p).all(|(a, b)| a == b))
}

/// A year a statement's column may head: four digits, the first 1 or 2.
fn is_year(word: &str) -> bool {
    word.len() == 4 && word.bytes().all(|b| b.is_ascii_digit()) && word.starts_with(['1', '2'])
}

/// The year a fiscal-year label names: `fy2019`, `fy19` is not read (two digits name no
/// column head), `f2019` (a common slip).
fn fiscal_year(word: &str) -> Option<&str> {
    let digits = word.strip_prefix("fy").or_else(|| word.strip_prefix('f'))?;
    is_year(digits).then_some(digits)
}

/// The words added to what retrieval searches for `question`: the line items of each measure
/// it names; the titles of the statements that print them, and of the statement that prints a
/// line item it names beside a year (`LINE_ITEMS`); and the bare year of each fiscal-year label
/// (`FY2019` → `2019`, also after "fiscal year" or "FY" as a word) that the question does not
/// already hold. Empty for a question that names none.
pub fn related_terms(question: &str) -> Vec<String> {
    let w = words(question);
    let mut out: Vec<String> = Vec::new();
    let mut statements: Vec<Statement> = Vec::new();
    for (phrases, items, printed_in) in MEASURES {
        if phrases.iter().any(|p| holds(&w, p)) {
            if !out.iter().any(|o| o == items) {
                out.push((*items).to_string());
            }
            for s in *printed_in {
                if !statements.contains(s) {
                    statements.push(*s);
                }
            }
        }
    }
    let year = w.iter().any(|x| is_year(x) || fiscal_year(x).is_some());
    for (items, statement) in LINE_ITEMS {
        if year && !statements.contains(statement) && items.iter().any(|p| holds(&w, p)) {
            statements.push(*statement);
        }
    }
    out.extend(statements.iter().map(|s| s.title().to_string()));
    for (i, word) in w.iter().enumerate() {
        let year = fiscal_year(word).or_else(|| {
            let label = matches!(word.as_str(), "fy" | "fiscal")
                || (word == "year" && i > 0 && w[i - 1] == "fiscal");
            let next = w.get(i + 1)?;
            (label && next.len() == 4 && next.bytes().all(|b| b.is_ascii_digit()))
                .then_some(next.as_str())
        });
        if let Some(y) = year
            && !w.iter().any(|x| x == y)
            && !out.iter().any(|o| o == y)
        {
            out.push(y.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_bring_their_line_items_and_statements() {
        const BS: &str = "consolidated balance sheets";
        const OPS: &str = "consolidated statements of operations income";
        const CF: &str = "consolidated statements of cash flows";
        let t = related_terms("what is Amazon's FY2017 return on asset ? round your answer");
        assert_eq!(t, ["net income total assets", BS, OPS, "2017"]);
        let t = related_terms("What was the FY2019 capital expenditure of Activision Blizzard?");
        assert_eq!(
            t,
            [
                "purchases of property and equipment capital expenditures investing activities",
                CF,
                "2019"
            ]
        );
        assert_eq!(
            related_terms("What is Cash Flow to Total Debt Ratio for ADBE In FY2015?"),
            [
                "net cash provided by operating activities long-term debt",
                CF,
                BS,
                "2015"
            ]
        );
        assert_eq!(
            related_terms("What is the interest coverage ratio in F2019?"),
            ["operating income interest expense", OPS, "2019"]
        );
        // A year already written bare, one measure named twice, and a statement two measures
        // are printed in, are added once.
        assert_eq!(
            related_terms("ROE and return on equity in fiscal year 2019"),
            ["net income total stockholders equity", BS, OPS]
        );
        assert_eq!(
            related_terms("gross margin and operating margin"),
            [
                "gross profit revenue cost of revenue",
                "operating income revenue",
                OPS
            ]
        );
    }

    #[test]
    fn a_line_item_and_a_year_bring_the_statement_that_prints_it() {
        assert_eq!(
            related_terms("What were Netflix's revenues in 2014?"),
            ["consolidated statements of operations income"]
        );
        assert_eq!(
            related_terms("What was the value of Amazon's inventories at the end of FY2017?"),
            ["consolidated balance sheets", "2017"]
        );
        assert_eq!(
            related_terms(
                "How much cash came from operating activities and what was net income in 2017?"
            ),
            [
                "consolidated statements of operations income",
                "consolidated statements of cash flows"
            ]
        );
        // A measure's statements are not added twice.
        assert_eq!(
            related_terms("What was the 2019 operating margin and operating income?"),
            [
                "operating income revenue",
                "consolidated statements of operations income"
            ]
        );
        // Without a year, a line item is a word like any other.
        for q in [
            "How is revenue recognized?",
            "Where is the inventory of installed packages kept?",
            "Total assets of the build",
            "Which hosts were in the Ansible inventory in 2019?",
            "Sales tax rules for 2024 invoices",
        ] {
            assert!(related_terms(q).is_empty(), "{q}: {:?}", related_terms(q));
        }
    }

    #[test]
    fn other_questions_gain_nothing() {
        for q in [
            "Rust. Write a string to a file",
            "What should the cover letter include?",
            "How do I compute a running margin in CSS?",
            "Which cash register models are supported?",
            "What is the return value of read_to_string?",
            "How many asset files does the build copy?",
            "What does fy mean in this table?",
            "Set the roam profile for the wifi card",
            "Which equity research firms are cited in 2019?",
            "ffff1234 is an address",
            "",
        ] {
            assert!(related_terms(q).is_empty(), "{q}: {:?}", related_terms(q));
        }
        // The ordinary docs-site queries that every rewrite must leave alone.
        for q in crate::named_pages::tests::ORDINARY_QUERIES {
            assert!(related_terms(q).is_empty(), "{q}: {:?}", related_terms(q));
        }
    }
}
