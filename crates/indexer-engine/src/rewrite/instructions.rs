//! The instructions rule: a question put to a reader often ends with how to write the answer
//! ("What was the net income in 2015? Answer in millions.", "Which models are compared? Please
//! write the answer in list format, e.g. [\"a\", \"b\"]"). Those words are not what the
//! evidence says: in BM25 they match any page that mentions a list or an answer, and they pull
//! the question's vector away from its subject. The reader (`indexer ask`) still gets the
//! whole question.
//!
//! A sentence is left out only when it is about the answer and about nothing else, after a
//! question:
//! - what stays is put as a question (it ends with `?`, opens with a question word or an
//!   auxiliary, or asks the reader about a text: "Tell me ...", "List ..."): "Excel: convert text to numbers. Format them as integer." is a task in two
//!   sentences, and both are searched;
//! - the sentence speaks of the answer or to its reader: it shows the answer's shape (a
//!   bracketed list of quoted values, quoted values to choose from), names "the answer" or
//!   "your answer", or is an imperative to the reader ("Answer ...", "Please ...", "Give me
//!   ...");
//! - and it has no content word of its own: besides the words of the closed classes, only
//!   words for the form of an answer (units, number formats, "list", "format", "round").
//!   "How do I return JSON from Flask? Respond with a list of users." keeps its second
//!   sentence, which is about users.

use super::grammar::{READING_VERBS, is_closed_class, is_interrogative, words};
use super::rule::{Change, Draft, Rule, RuleKind, Scope};
use crate::Result;

/// The rule (see the module).
#[derive(Debug, Clone, Copy, Default)]
pub struct Instructions;

impl Rule for Instructions {
    fn kind(&self) -> RuleKind {
        RuleKind::Instructions
    }

    fn apply(&self, draft: &Draft<'_>, _scope: &dyn Scope) -> Result<Option<Change>> {
        let kept = split_question(draft.kept).0;
        if kept.len() == draft.kept.trim().len() {
            return Ok(None);
        }
        let dropped = draft.kept.trim()[kept.len()..].trim();
        Ok(Some(Change::Drop {
            kept: kept.len(),
            why: format!("{dropped:?} says how to write the answer and names nothing to find"),
        }))
    }
}

/// Words for the form of an answer: its units, number formats and layout, and the verbs that
/// ask for it. With the closed classes, the only words a sentence about the answer alone has.
const FORM_WORDS: &[&str] = &[
    "answer",
    "answers",
    "ascending",
    "billion",
    "billions",
    "decimal",
    "decimals",
    "descending",
    "dollar",
    "dollars",
    "digit",
    "digits",
    "enumerate",
    "eur",
    "euro",
    "euros",
    "express",
    "float",
    "form",
    "format",
    "formatted",
    "give",
    "int",
    "integer",
    "integers",
    "list",
    "million",
    "millions",
    "nearest",
    "number",
    "numbers",
    "order",
    "percent",
    "percentage",
    "percents",
    "place",
    "places",
    "provide",
    "represent",
    "return",
    "round",
    "rounded",
    "string",
    "term",
    "terms",
    "thousand",
    "thousands",
    "hundred",
    "hundreds",
    "unit",
    "units",
    "usd",
    "write",
    "written",
    "yes",
];

/// Words that name a form: a sentence that asks the reader for one ("Give me an integer")
/// ends on one.
const FORMS: &[&str] = &[
    "billion",
    "billions",
    "decimal",
    "decimals",
    "float",
    "format",
    "int",
    "integer",
    "integers",
    "list",
    "million",
    "millions",
    "percent",
    "percentage",
    "string",
    "thousand",
    "thousands",
];

/// `question` (trimmed) as the part retrieval searches and the instructions about the answer
/// left out from its end (empty when none were). The first sentence always stays.
pub fn split_question(question: &str) -> (&str, &str) {
    let question = question.trim();
    let mut cut = question.len();
    while let Some(start) = last_sentence_start(&question[..cut])
        && is_instruction(&question[start..cut])
    {
        cut = start;
    }
    let kept = question[..cut].trim_end();
    if cut == question.len() || !(is_interrogative(kept) || asks_the_reader(kept)) {
        return (question, "");
    }
    (kept, question[cut..].trim())
}

/// Whether `text` asks its reader about a text in the imperative ("Tell me all the pages that
/// ...", "List the areas ..."): a question too.
fn asks_the_reader(text: &str) -> bool {
    words(text)
        .first()
        .is_some_and(|w| READING_VERBS.contains(&w.as_str()))
}

/// Whether a sentence is about the answer and nothing else (see the module).
fn is_instruction(sentence: &str) -> bool {
    let s = sentence.trim();
    if s.ends_with('?') {
        return false;
    }
    if shows_shape(s) {
        return true;
    }
    let w = words(s);
    let Some(first) = w.first() else {
        return false;
    };
    let only_form = w
        .iter()
        .all(|x| is_closed_class(x) || FORM_WORDS.contains(&x.as_str()));
    let names_the_answer = w
        .windows(2)
        .any(|p| matches!(p[0].as_str(), "the" | "your") && p[1] == "answer");
    // "Give me an integer", "Return me a rounded integer": the reader asked for a form.
    let asks_me = w.get(1).is_some_and(|x| x == "me")
        && w.last().is_some_and(|x| FORMS.contains(&x.as_str()));
    let to_the_reader = matches!(first.as_str(), "answer" | "please") || asks_me;
    names_the_answer || (to_the_reader && (only_form || asks_me))
}

/// Where the last sentence of `text` starts, if `text` has more than one: after the last `?`,
/// `!` or `.` that ends a sentence (not the dot of "U.S." or "e.g.") with text after it.
fn last_sentence_start(text: &str) -> Option<usize> {
    let body = text.trim_end();
    let bytes = body.as_bytes();
    // Leave out the closing mark of the last sentence itself.
    let mut end = body.len();
    while end > 0 && matches!(bytes[end - 1], b'?' | b'!' | b'.') {
        end -= 1;
    }
    (1..end)
        .rev()
        .find(|&i| ends_sentence(body, i - 1))
        .filter(|&i| {
            !body[..i]
                .trim()
                .trim_end_matches(['?', '!', '.'])
                .is_empty()
        })
}

/// Whether the byte at `i` (ASCII) closes a sentence.
fn ends_sentence(text: &str, i: usize) -> bool {
    match text.as_bytes()[i] {
        b'?' | b'!' => true,
        b'.' => {
            // The word before the dot, looked for in the 32 bytes before it (a longer word is
            // no abbreviation), so that a text of many dots costs linear time.
            let mut from = i.saturating_sub(32);
            while !text.is_char_boundary(from) {
                from += 1;
            }
            let before = &text[from..i];
            let word = before
                .rsplit(|c: char| c.is_whitespace() || c == '(')
                .next()
                .unwrap_or("");
            // "U.S.", "e.g.", "Mr." and decimals ("3.5") do not end a sentence; a word does,
            // and so does a closing bracket or quote ("(except the U.S.).").
            if word.ends_with([')', '"', '\'']) {
                return true;
            }
            let after = text[i + 1..].chars().next();
            let single_letter = word.chars().count() == 1 && word.chars().all(char::is_alphabetic);
            !(word.contains('.')
                || single_letter
                || matches!(word, "Mr" | "Ms" | "Mrs" | "Dr" | "No" | "vs" | "etc")
                || after.is_some_and(|c| c.is_ascii_digit()))
        }
        _ => false,
    }
}

/// Whether `text` shows the answer's shape: a bracketed list of quoted values (`["a", "b"]`,
/// `['2014', ...]`) or quoted values to choose from (`'left' or 'right'`). A bracket alone
/// is not one ("items [1:3]"), nor is a quote ("For example 'foo bar'").
fn shows_shape(text: &str) -> bool {
    let quoted_list = text.match_indices('[').any(|(i, _)| {
        text[i + 1..]
            .trim_start()
            .starts_with(['"', '\'', '“', '‘'])
    });
    let quoted_choice = text.match_indices(" or ").any(|(i, _)| {
        text[..i].ends_with(['"', '\'', '”', '’'])
            && text[i + 4..].starts_with(['"', '\'', '“', '‘'])
    });
    quoted_list || quoted_choice
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn searched_part(q: &str) -> &str {
        split_question(q).0
    }

    /// Instructions written for this test in the ways a reader asks for an answer's form.
    #[test]
    fn drops_instructions_about_the_answer() {
        let cases = [
            (
                "What was the net income last year? Answer in millions.",
                "What was the net income last year?",
            ),
            (
                "What is the ratio? Round your answer to two decimal places.",
                "What is the ratio?",
            ),
            (
                "Which models are compared? Please write the answer in list format, e.g., [\"a\",\"b\"]",
                "Which models are compared?",
            ),
            (
                "What was the revenue. Answer in USD millions.",
                "What was the revenue.",
            ),
            (
                "Which side is larger? Answer 'left' or 'right'.",
                "Which side is larger?",
            ),
            (
                "Which years are shown? List all of them like ['2014', '2018'].",
                "Which years are shown?",
            ),
            (
                "Which countries are named? Your answer should be in English.",
                "Which countries are named?",
            ),
            (
                "How many figures are there? Please write down the answer with integer format. Give me an integer",
                "How many figures are there?",
            ),
            (
                "How many hotels are in the city? Return me a rounded integer.",
                "How many hotels are in the city?",
            ),
            (
                "Which number should I call? Please write in string format.",
                "Which number should I call?",
            ),
            (
                "How many voters favour it? Please give your answer to the nearest hundred, such as 100, 200 or 300.",
                "How many voters favour it?",
            ),
            (
                "What was the margin? Answer in percentage terms, rounded to one decimal place.",
                "What was the margin?",
            ),
        ];
        for (q, want) in cases {
            let (searched, dropped) = split_question(q);
            assert_eq!(searched, want, "{q}");
            assert!(
                q.ends_with(dropped) && !dropped.is_empty(),
                "{q}: {dropped:?}"
            );
        }
    }

    #[test]
    fn keeps_what_is_not_about_the_answer() {
        for q in [
            "How do I return JSON from Flask? Respond with a list of users.",
            "Excel: convert text to numbers. Format them as integer.",
            "List the areas that the firm works across.",
            "Answer in millions.",
            "What does the U.S. report say? List the three findings of Section 2.",
            "Which company reported 3.5 billion in revenue? Give the reasons the report names.",
            "What is shown in Fig. 3? Use the legend of the chart.",
            "What was the revenue? Give the number of employees too.",
            "Rust. Write a string to a file",
            "Node.js. Express. Respond with a JSON list.",
            "Rust. Answer in millions.",
            "How do I slice a list? Return items [1:3].",
            "How do I round numbers in Excel? Round to two decimal places.",
            "How do I read a CSV file? Return the rows as a list.",
            "What is an A record? Answer section of a DNS response.",
            "What does HTTP 304 mean? Answer briefly.",
            "Which years are in it? Enumerate all of them in a list.",
            "",
        ] {
            assert_eq!(searched_part(q), q.trim(), "{q}");
        }
        // Long runs of marks and words cost linear time and keep the text.
        for q in [
            ".".repeat(100_000),
            "word. ".repeat(20_000),
            "é.".repeat(50_000),
        ] {
            assert_eq!(searched_part(&q), q.trim(), "{} bytes", q.len());
        }
    }

    proptest! {
        /// A prefix of the question, never empty when the question has words, and a fixed
        /// point: what is left has no instruction at its end.
        #[test]
        fn a_non_empty_prefix_and_a_fixed_point(
            parts in proptest::collection::vec(
                prop_oneof![
                    "[A-Za-z ]{1,20}",
                    Just("Answer in millions".to_string()),
                    Just("Please write the answer in list format, e.g. [\"a\"]".to_string()),
                    Just("What is it".to_string()),
                    Just("U.S.".to_string()),
                    Just("3.5".to_string()),
                ],
                1..6,
            ),
            marks in proptest::collection::vec(prop_oneof![Just("? "), Just(". "), Just("?"), Just(" ")], 6),
        ) {
            let q: String = parts.iter().zip(&marks).map(|(p, m)| format!("{p}{m}")).collect();
            let s = searched_part(&q);
            prop_assert!(q.trim().starts_with(s));
            if q.chars().any(char::is_alphanumeric) {
                prop_assert!(s.chars().any(char::is_alphanumeric), "{q:?} -> {s:?}");
            }
            prop_assert_eq!(searched_part(s), s);
        }
    }
}
