//! What retrieval reads of a question: the question without the sentences at its end that tell
//! the reader how to write the answer ("Answer in millions.", "Please write the answer in list
//! format, e.g. [\"a\", \"b\"]", "Round your answer to two decimal places."). Those words are not
//! what the evidence says: in BM25 they match any page that mentions a list or an answer, and
//! they pull the question's vector away from its subject. The reader (`indexer ask`) still gets
//! the whole question.

use indexer_index::Expansions;

/// What retrieval reads of a question (`Engine::searched_question`): its searched part, the
/// completions and corrections of its words, and its vector, found once and passed on to the
/// first stage, named pages and selection.
#[derive(Debug, Clone)]
pub struct SearchedQuestion<'q> {
    /// The question without its closing instructions about the answer ([`searched_part`]).
    pub text: &'q str,
    /// Completions and corrections of its words in the index.
    pub expansions: Expansions,
    /// Its vector: the text with its misspelt or unfinished words repaired, embedded.
    pub vector: Vec<f32>,
}

/// Words that open an instruction about the answer (after an optional "please").
const OPENERS: &[&str] = &[
    "answer",
    "enumerate",
    "express",
    "for example",
    "format",
    "give",
    "list",
    "output",
    "present",
    "provide",
    "put",
    "report",
    "represent",
    "respond",
    "return",
    "round",
    "save",
    "the answer",
    "use",
    "write",
    "your answer",
];

/// Words of which an instruction about the answer holds at least one: its form or its unit.
const FORMS: &[&str] = &[
    "answer",
    "billion",
    "decimal",
    "english",
    "example",
    "float",
    "format",
    "int",
    "integer",
    "list",
    "million",
    "no",
    "percent",
    "percentage",
    "string",
    "thousand",
    "unit",
    "yes",
];

/// Openers of an example of the answer's shape (a quoted value or a bracketed list).
const EXAMPLES: &[&str] = &["for example", "e.g."];

/// The part of `question` that retrieval searches: `question` without its trailing sentences
/// that are instructions about the answer. Never empty when `question` is not: the first
/// sentence always stays, however it reads.
pub fn searched_part(question: &str) -> &str {
    let question = question.trim();
    let mut cut = question.len();
    while let Some(start) = last_sentence_start(&question[..cut])
        && is_instruction(&question[start..cut])
    {
        cut = start;
    }
    question[..cut].trim_end()
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

/// Whether a sentence tells the reader how to write the answer (a question never does).
fn is_instruction(sentence: &str) -> bool {
    let s = sentence.trim().to_lowercase();
    if s.ends_with('?') {
        return false;
    }
    let s = s.strip_prefix("please").map_or(s.as_str(), str::trim_start);
    // The words after the opener name the answer's form or unit.
    let opened = |openers: &[&str]| {
        openers.iter().find_map(|o| {
            s.strip_prefix(o)
                .filter(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
        })
    };
    if let Some(rest) = opened(EXAMPLES) {
        return rest.contains(['[', '"', '\'']);
    }
    let Some(rest) = opened(OPENERS) else {
        return false;
    };
    let form = |w: &str| {
        FORMS
            .iter()
            .any(|f| w == *f || (w.len() == f.len() + 1 && w.starts_with(f) && w.ends_with('s')))
    };
    // An example of the answer's shape: a bracketed list, or quoted values to choose from.
    let quoted_choice = rest.contains(" or ") && rest.contains(['\'', '"']);
    rest.contains("e.g.")
        || rest.contains('[')
        || quoted_choice
        || rest.split(|c: char| !c.is_alphanumeric()).any(form)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn drops_answer_instructions_at_the_end() {
        let cases = [
            (
                "What was the net income in 2015? Answer in millions.",
                "What was the net income in 2015?",
            ),
            (
                "What is the debt ratio of the company in FY2017?Round your answer to two decimal places.",
                "What is the debt ratio of the company in FY2017?",
            ),
            (
                "Which models are compared in Table 3? Please write the answer in list format, e.g., [\"a\",\"b\"]",
                "Which models are compared in Table 3?",
            ),
            (
                "What was the revenue in 2015. Answer in USD millions.",
                "What was the revenue in 2015.",
            ),
            (
                "Which side shows the share of students? Answer 'left' or 'right'.",
                "Which side shows the share of students?",
            ),
            (
                "Which years are in the diagram? List all of them like ['2014', '2018'].",
                "Which years are in the diagram?",
            ),
            (
                "Which countries are named (except the U.S.). Your answer should be in English.",
                "Which countries are named (except the U.S.).",
            ),
            (
                "Is the market part of the Bay Area? Answer 'yes' or 'no'.",
                "Is the market part of the Bay Area?",
            ),
            (
                "How many figures are in the appendix? Please write down the answer with integer format. Give me an integer",
                "How many figures are in the appendix?",
            ),
            (
                "which numbers should I call for support in the U.S. and Canada? Your answer should be in English.",
                "which numbers should I call for support in the U.S. and Canada?",
            ),
            (
                "Which scores fall, in descending order? For example: [\"3.0\", \"2.0\"].",
                "Which scores fall, in descending order?",
            ),
            (
                "How many years are in the pie chart? Format all of the years in a list like ['2006', '2007']",
                "How many years are in the pie chart?",
            ),
        ];
        for (q, want) in cases {
            assert_eq!(searched_part(q), want, "{q}");
        }
    }

    #[test]
    fn keeps_questions_and_their_content() {
        for q in [
            "List the areas that PwC performs IA support across.",
            "Answer in millions.",
            "Round robin scheduling: how does it work?",
            "What does the U.S. report say? List the three findings of Section 2.",
            "Which company reported 3.5 billion in revenue? Give the reasons the report names.",
            "Among the operators of 2013. Which one grew fastest?",
            "What is shown in Fig. 3? Use the legend of the chart.",
            "Consider the 2015 annual report. Answer this: what was the revenue?",
            "What was the revenue? Give the number of employees too.",
            "e.g. what is this",
            "What is the revenue? For example, the revenue of the retail segment.",
            "What does the report call it? Give the meaning of 'churn'.",
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
