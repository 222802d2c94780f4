//! What retrieval reads of a question: the question without the sentences at its end that tell
//! the reader how to write the answer ("Answer in millions.", "Please write the answer in list
//! format, e.g. [\"a\", \"b\"]", "Round your answer to two decimal places."). Those words are not
//! what the evidence says: in BM25 they match any page that mentions a list or an answer, and
//! they pull the question's vector away from its subject. The reader (`indexer ask`) still gets
//! the whole question.

use indexer_index::Expansions;
use serde::Serialize;

/// What retrieval reads of a question (`Engine::searched_question`): its searched part, the
/// completions and corrections of its words, and its vector, found once and passed on to the
/// first stage, named pages and selection.
#[derive(Debug, Clone)]
pub struct SearchedQuestion<'q> {
    /// The question without its closing instructions about the answer ([`split_question`]),
    /// or, without rewriting, the question as typed (trimmed).
    pub text: &'q str,
    /// The instructions left out of `text`; empty when none were.
    pub dropped: &'q str,
    /// The line items of the financial measures `text` names, the titles of the statements
    /// that print them, and the bare years of its fiscal-year labels
    /// ([`crate::statement_terms::related_terms`]); empty without rewriting.
    pub related: Vec<String>,
    /// What the first stage searches: `text`, then `related`. Its expansions and its vector
    /// are those below.
    pub searched: std::borrow::Cow<'q, str>,
    /// Whether the question is rewritten: its instructions dropped and the pages it names put
    /// first among its candidates (`SearchRequest::rewrite`).
    pub rewrite: bool,
    /// Completions and corrections of its words in the index.
    pub expansions: Expansions,
    /// Its vector: the text with its misspelt or unfinished words repaired, embedded.
    pub vector: Vec<f32>,
}

/// What a search changed of its query before searching it, so that a reader sees it: the text
/// it searched, when it left out closing instructions about the answer, and the pages the
/// query names that it put first. `None` in a response when it changed nothing; a request
/// with `rewrite` off searches the query as typed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rewrite {
    /// The text retrieval searched, when it is not the query: the query without `dropped`,
    /// with `related` after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searched: Option<String>,
    /// The instructions about the answer left out of the search ("Answer in millions.").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
    /// Words added to the search: the line items of a financial measure the query names
    /// ("return on assets": "net income total assets"), the titles of the statements that
    /// print them ("consolidated balance sheets"), and the year of a fiscal-year label
    /// ("FY2019": "2019").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// The pages put first among the candidates, those the phrase names first and then the
    /// places in the file of named numbers that another page shows.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub named_pages: Vec<NamedPage>,
}

impl Rewrite {
    /// What was changed of a question searched with `named_pages` put first; `None` when
    /// nothing was.
    pub fn of(question: &SearchedQuestion<'_>, named_pages: Vec<NamedPage>) -> Option<Rewrite> {
        let dropped = !question.dropped.is_empty();
        let related = !question.related.is_empty();
        (dropped || related || !named_pages.is_empty()).then(|| Rewrite {
            searched: (dropped || related).then(|| question.searched.to_string()),
            dropped: dropped.then(|| question.dropped.to_string()),
            related: question.related.clone(),
            named_pages,
        })
    }

    /// What the search changed of the query's words, for a person to read: `left out: "…"`
    /// for the instructions it dropped, `added: "…"` for the words it added, joined by "; ".
    /// `None` when it searched the query's own words (it only put named pages first).
    pub fn changed_words(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(dropped) = &self.dropped {
            parts.push(format!("left out: {dropped:?}"));
        }
        if !self.related.is_empty() {
            parts.push(format!("added: {:?}", self.related.join(" ")));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A page put first because the question names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedPage {
    /// The document's id.
    pub doc: String,
    /// The page's place in the file, 1-based.
    pub page: u32,
    /// The words of the question that name it ("page 12", "the last page", "on the cover").
    pub phrase: String,
}

/// `doc p.N ("phrase")`: how a person reads a named page in text output.
impl std::fmt::Display for NamedPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} p.{} ({:?})", self.doc, self.page, self.phrase)
    }
}

/// What the first stage searches of a question's searched part: `text`, then the `related`
/// words added to it (`SearchedQuestion::searched`).
pub(crate) fn searched_text<'q>(text: &'q str, related: &[String]) -> std::borrow::Cow<'q, str> {
    if related.is_empty() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{text} {}", related.join(" ")))
    }
}

/// Words that open an instruction about the answer (after an optional "please"). An opener
/// alone says nothing: "Write a string to a file" and "List all branches" are what a reader
/// searches for, so [`is_instruction`] also asks the sentence to name the answer, show its
/// shape, or end on its form.
const OPENERS: &[&str] = &[
    "enumerate",
    "express",
    "format",
    "give",
    "list",
    "output",
    "present",
    "provide",
    "put",
    "report",
    "represent",
    "return",
    "round",
    "save",
    "use",
    "write",
];

/// Openers that speak of the answer itself: the sentence is an instruction when it names a
/// form or shows a shape ("Answer in millions.", "Answer 'yes' or 'no'."), not when "answer"
/// is a noun of the subject ("Answer section of a DNS response.").
const ANSWER_OPENERS: &[&str] = &["answer", "reply", "respond"];

/// Openers after which the sentence is about the answer, whatever follows ("Your answer should
/// be in English.", "The answer shall be formatted as a list").
const THE_ANSWER: &[&str] = &["the answer", "your answer"];

/// Words that name the answer's form or unit.
const FORMS: &[&str] = &[
    "billion",
    "decimal",
    "english",
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

/// Words that may stand between the preposition and the form word at the end of an
/// instruction ("in a list", "as format of list", "in string format").
const FORM_FILLERS: &[&str] = &["a", "an", "the", "of", "format", "form"];

/// Words that open the form phrase at the end of an instruction.
const FORM_PREPOSITIONS: &[&str] = &["in", "as", "into", "with"];

/// Words that point back at what the question asks about ("Enumerate all of them in a
/// list.", "Represent these two numbers as format of list."): the sentence is about the
/// answer to the question before it, not a subject of its own.
const ANAPHORS: &[&str] = &["them", "these", "those", "both", "each", "all of them"];

/// Openers of an example of the answer's shape (a quoted value or a bracketed list).
const EXAMPLES: &[&str] = &["for example", "e.g."];

/// The fewest words the searched part keeps when it is no question (does not end with `?`):
/// "Rust. Write a string to a file" opens with a topic, not a question, and a one-word
/// fragment is never what a reader searches for.
pub const MIN_SEARCHED_WORDS: usize = 4;

/// The part of `question` that retrieval searches: `question` without its trailing sentences
/// that are instructions about the answer. Never empty when `question` is not: the first
/// sentence always stays, however it reads.
pub fn searched_part(question: &str) -> &str {
    split_question(question).0
}

/// `question` (trimmed) as its searched part and the instructions about the answer dropped
/// from its end (empty when none were). Nothing is dropped when what would be left is no
/// question and has fewer than [`MIN_SEARCHED_WORDS`] words.
pub fn split_question(question: &str) -> (&str, &str) {
    let question = question.trim();
    let mut cut = question.len();
    while let Some(start) = last_sentence_start(&question[..cut])
        && is_instruction(&question[start..cut])
    {
        cut = start;
    }
    let kept = question[..cut].trim_end();
    let words = kept
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    if cut == question.len() || !(kept.ends_with('?') || words >= MIN_SEARCHED_WORDS) {
        return (question, "");
    }
    (kept, question[cut..].trim())
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

/// Whether a sentence tells the reader how to write the answer (a question never does): it
/// speaks of the answer ("Your answer should be in English.", "Round your answer to two
/// decimal places."), shows its shape (`e.g. ["a", "b"]`, `'left' or 'right'`), or opens
/// with an instruction and then asks the reader for a form ("Give me an integer", "Please
/// write in string format.", "Enumerate all of them in a list."). An opener followed by a
/// form word is not enough: "Write a string to a file" is a subject.
fn is_instruction(sentence: &str) -> bool {
    let s = sentence.trim().to_lowercase();
    if s.ends_with('?') {
        return false;
    }
    let (please, s) = match s.strip_prefix("please") {
        Some(rest) if !rest.starts_with(char::is_alphanumeric) => (true, rest.trim_start()),
        _ => (false, s.as_str()),
    };
    let opened = |openers: &[&str]| {
        openers.iter().find_map(|o| {
            s.strip_prefix(o)
                .filter(|rest| !rest.starts_with(|c: char| c.is_alphanumeric()))
        })
    };
    if let Some(rest) = opened(EXAMPLES) {
        return shows_shape(rest);
    }
    if opened(THE_ANSWER).is_some() {
        return true;
    }
    if let Some(rest) = opened(ANSWER_OPENERS) {
        return shows_shape(rest) || words(rest).any(is_form);
    }
    let Some(rest) = opened(OPENERS) else {
        return false;
    };
    let rest_words: Vec<&str> = words(rest).collect();
    let names_the_answer = rest_words
        .windows(2)
        .any(|w| matches!(w[0], "the" | "your") && w[1] == "answer");
    // "Give me an integer": the reader is asked for a value of a form.
    let asks_me =
        rest_words.first() == Some(&"me") && rest_words.last().is_some_and(|w| is_form(w));
    let anaphoric = ANAPHORS.iter().any(|a| {
        rest.trim_start()
            .strip_prefix(a)
            .is_some_and(|r| !r.starts_with(char::is_alphanumeric))
    });
    names_the_answer
        || shows_shape(rest)
        || asks_me
        || (please && rest_words.iter().any(|w| is_form(w)))
        || (anaphoric && ends_on_form(&rest_words))
}

/// The words of `text` (lowercase already), without punctuation.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// A word of [`FORMS`], or its plural.
fn is_form(w: &str) -> bool {
    FORMS
        .iter()
        .any(|f| w == *f || (w.len() == f.len() + 1 && w.starts_with(f) && w.ends_with('s')))
}

/// Whether the words end on a form phrase: a preposition, then only fillers and forms, one
/// of them a form ("in a list", "as format of list").
fn ends_on_form(words: &[&str]) -> bool {
    let Some(at) = words.iter().rposition(|w| FORM_PREPOSITIONS.contains(w)) else {
        return false;
    };
    let tail = &words[at + 1..];
    tail.iter().any(|w| is_form(w)) && tail.iter().all(|w| is_form(w) || FORM_FILLERS.contains(w))
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

    /// A question read as `read_question` reads it with rewriting on.
    fn read(question: &str) -> SearchedQuestion<'_> {
        let (text, dropped) = split_question(question);
        let related = crate::statement_terms::related_terms(text);
        let searched = searched_text(text, &related);
        SearchedQuestion {
            text,
            dropped,
            related,
            searched,
            rewrite: true,
            expansions: Expansions::default(),
            vector: Vec::new(),
        }
    }

    #[test]
    fn a_rewrite_shows_the_words_added_and_what_was_searched() {
        let q = read("What is Amazon's FY2017 return on assets? Answer in percent.");
        let r = Rewrite::of(&q, Vec::new()).expect("rewritten");
        assert_eq!(r.dropped.as_deref(), Some("Answer in percent."));
        let added = "net income total assets consolidated balance sheets consolidated \
                     statements of operations income 2017";
        assert_eq!(
            r.related,
            [
                "net income total assets",
                "consolidated balance sheets",
                "consolidated statements of operations income",
                "2017"
            ]
        );
        assert_eq!(
            r.searched,
            Some(format!("What is Amazon's FY2017 return on assets? {added}"))
        );
        assert_eq!(
            r.changed_words(),
            Some(format!(
                r#"left out: "Answer in percent."; added: "{added}""#
            ))
        );
        // Only words added, or only a page put first: the text says just that.
        let added = Rewrite::of(&read("How many stores were open in FY2019?"), Vec::new()).unwrap();
        assert_eq!(added.changed_words().as_deref(), Some(r#"added: "2019""#));
        let page = NamedPage {
            doc: "docs/a.pdf".into(),
            page: 12,
            phrase: "page 12".into(),
        };
        assert_eq!(page.to_string(), r#"docs/a.pdf p.12 ("page 12")"#);
        let named = Rewrite::of(&read("What is on page 12?"), vec![page]).unwrap();
        assert_eq!(named.changed_words(), None);
        // Nothing added, nothing dropped, no page named: no rewrite to show.
        assert_eq!(
            Rewrite::of(&read("How do I list all git branches?"), Vec::new()),
            None
        );
    }

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
            (
                "How many of them are there? Enumerate all of them in a list.",
                "How many of them are there?",
            ),
            (
                "Which two numbers are named in Appendix C? Represent these two numbers as format of list.",
                "Which two numbers are named in Appendix C?",
            ),
            (
                "Which number should I call? Please write in string format.",
                "Which number should I call?",
            ),
            (
                "How many hotels are in the city? Return me a rounded integer.",
                "How many hotels are in the city?",
            ),
            (
                "Which dates are named? Save your answer as a list, with each date formatted as 'YYYY-MM-DD'.",
                "Which dates are named?",
            ),
            (
                "How many voters favour it? Please give your answer to the nearest hundred, such as 100, 200 or 300.",
                "How many voters favour it?",
            ),
            (
                "What was the margin in 2015? Answer in percentage term, round to one decimal place.",
                "What was the margin in 2015?",
            ),
        ];
        for (q, want) in cases {
            assert_eq!(searched_part(q), want, "{q}");
            let (searched, dropped) = split_question(q);
            assert_eq!(searched, want, "{q}");
            assert!(
                q.ends_with(dropped) && !dropped.is_empty(),
                "{q}: {dropped:?}"
            );
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
            // An opener and a form word are not an instruction, and a topic label is not
            // what a reader searches for.
            "Rust. Write a string to a file",
            "Node.js. Express. Respond with a JSON list.",
            "Rust. Answer in millions.",
            "How do I slice a list? Return items [1:3].",
            "How do I quote in bash? For example 'foo bar'.",
            "How do I round numbers? Round to two decimal places.",
            "What is an A record? Answer section of a DNS response.",
            "How do I read a CSV file? Return the rows as a list.",
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
