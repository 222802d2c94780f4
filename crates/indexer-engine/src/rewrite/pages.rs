//! The pages rule: a question that names pages of a known document ("on page 42", "pages
//! 30-35", "slide 4", "p. 12"; and, the document known, "the second page", "the last page",
//! "on the cover") is pointing at the evidence, so the ranking stage puts those pages' notes
//! first (`named_pages`).
//!
//! A reference is read only when it is one:
//! - the document is known: the request's filter names one document, or the question names
//!   one by its file name or title (`documents`); a page number of no document in particular
//!   names nothing;
//! - the question asks about the document, not how to do something: a how-to question ("How
//!   do I sign a PDF on page 2?"), an imperative that acts ("Print pages 1-5 of a PDF with
//!   lp") and a question whose topic label is a program ("Vim: jump to the last page") name no
//!   page of it;
//! - the page is of the document: "page 2 of the search results" is a page of something else,
//!   and "page 2 of a PDF" of any PDF;
//! - a page word is the page: "the first page load" is a load, "the cover letter" a letter
//!   (the word after it is a content word; after a reference comes punctuation or a word of a
//!   closed class), "how I slide 3 images" is a verb.

use super::grammar::{
    DETERMINERS, DO_SUPPORT, INDEFINITE, PRONOUNS, has_topic_label, is_action, is_closed_class,
    is_how_to, words,
};
use super::rule::{Change, Draft, PageRef, PageReferences, Rule, RuleKind, Scope};
use crate::Result;
use std::ops::Range;

/// The rule (see the module).
#[derive(Debug, Clone, Copy, Default)]
pub struct Pages;

impl Rule for Pages {
    fn kind(&self) -> RuleKind {
        RuleKind::Pages
    }

    fn apply(&self, draft: &Draft<'_>, scope: &dyn Scope) -> Result<Option<Change>> {
        let text = draft.kept;
        if is_how_to(text) || is_action(text) || has_topic_label(text) {
            return Ok(None);
        }
        let (t, spans) = tokens(text);
        let quoted = quoted_spans(text);
        let mut found = page_phrases(&t);
        // A page word in quotes is mentioned, not used: `["Page 17", "Page 25"]` shows the
        // form of an answer, "the word 'Page 2'" a string.
        found.retain(|p| {
            let at = spans[p.from].start;
            !quoted.iter().any(|q| q.contains(&at))
        });
        if found.is_empty() {
            return Ok(None);
        }
        let (doc, known_by) = match scope.filter_docs() {
            // The engine filters a search to the document its question names: say which.
            [one] if scope.named_document(text)?.as_deref() == Some(one.as_str()) => {
                (one.clone(), "the question names it".to_string())
            }
            [one] => (one.clone(), "the search is filtered to it".to_string()),
            [] => match scope.named_document(text)? {
                Some(d) => (d, "the question names it".to_string()),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        // A reference "of" something: of the known document, or of a count ("page 2 of 10"),
        // is one; of anything else, or of a document in general ("of a PDF"), is not.
        let name = words(doc.rsplit('/').next().unwrap_or(&doc));
        found.retain(|p| !of_something_else(&t, p.after, &name));
        if found.is_empty() {
            return Ok(None);
        }
        let refs: Vec<(PageRef, Range<usize>)> = found
            .iter()
            .map(|p| (p.page, spans[p.from].start..spans[p.to - 1].end))
            .collect();
        let phrases: Vec<String> = found
            .iter()
            .map(|p| format!("{:?}", &text[spans[p.from].start..spans[p.to - 1].end]))
            .collect();
        let mut unique = phrases.clone();
        unique.dedup();
        let why = format!("{} names pages of {doc}, and {known_by}", unique.join(", "));
        Ok(Some(Change::Pages {
            references: PageReferences { doc, refs },
            why,
        }))
    }
}

/// The byte ranges of `text` inside quotation marks: double quotes, typographic quotes and
/// guillemets, and single quotes that open after a space or a bracket (an apostrophe inside a
/// word opens nothing: "the company's page 4"). An unclosed quote runs to the end.
fn quoted_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<(usize, char)> = None;
    let mut prev = ' ';
    for (at, c) in text.char_indices() {
        match open {
            Some((from, close)) if c == close => {
                out.push(from..at);
                open = None;
            }
            Some(_) => {}
            None => {
                let close = match c {
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '«' => Some('»'),
                    '‘' => Some('’'),
                    '\'' if !prev.is_alphanumeric() => Some('\''),
                    _ => None,
                };
                if let Some(close) = close {
                    open = Some((at + c.len_utf8(), close));
                }
            }
        }
        prev = c;
    }
    if let Some((from, _)) = open {
        out.push(from..text.len());
    }
    out
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Number(u32),
    Dash,
    Comma,
    Dot,
    Other,
}

/// The tokens of `text`, each with its byte range in `text`.
fn tokens(text: &str) -> (Vec<Token>, Vec<Range<usize>>) {
    let mut out = Vec::new();
    let mut spans = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    let flush =
        |word: &mut String, start: usize, end: usize, out: &mut Vec<Token>, spans: &mut Vec<_>| {
            if word.is_empty() {
                return;
            }
            let w = std::mem::take(word);
            spans.push(start..end);
            out.push(if w.bytes().all(|b| b.is_ascii_digit()) {
                w.parse().map_or(Token::Other, Token::Number)
            } else {
                Token::Word(w.to_lowercase())
            });
        };
    for (at, c) in text.char_indices() {
        if c.is_alphanumeric() {
            if word.is_empty() {
                start = at;
            }
            word.push(c);
            continue;
        }
        flush(&mut word, start, at, &mut out, &mut spans);
        let token = match c {
            '-' | '–' | '—' => Token::Dash,
            ',' => Token::Comma,
            '.' => Token::Dot,
            c if c.is_whitespace() => continue,
            _ => Token::Other,
        };
        out.push(token);
        spans.push(at..at + c.len_utf8());
    }
    flush(&mut word, start, text.len(), &mut out, &mut spans);
    (out, spans)
}

const CARDINALS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];
const ORDINALS: &[&str] = &[
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
];
const PAGE_WORDS: &[&str] = &["page", "pages", "slide", "slides"];

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
/// pronoun and "page X" a placeholder. "one" before an auxiliary is the pronoun ("Which page
/// one should read first").
fn opening(t: &[Token], j: usize) -> Option<(u32, Numbering)> {
    if word_is(t.get(j), &["one"]) && word_is(t.get(j + 1), super::grammar::AUXILIARIES) {
        return None;
    }
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

/// What "page ... of" may name as the thing the page is of besides the known document's own
/// name: a word for a document. "The first page of results" is a page of something else.
const DOCUMENT_WORDS: &[&str] = &[
    "appendix",
    "article",
    "book",
    "booklet",
    "brochure",
    "catalog",
    "catalogue",
    "chapter",
    "deck",
    "dissertation",
    "document",
    "file",
    "filing",
    "guide",
    "guidebook",
    "handbook",
    "leaflet",
    "magazine",
    "manual",
    "newsletter",
    "paper",
    "pdf",
    "presentation",
    "proceedings",
    "report",
    "section",
    "slides",
    "study",
    "survey",
    "thesis",
];

/// Whether `t[k]` starts "of" and a thing that is not the known document (`name`, the words of
/// its file name): "page 2 of the search results", "the first page of a PDF" (any PDF). "Of
/// 10" (a page count), "of the report", "of this document" and "of lmer.pdf" are of it.
fn of_something_else(t: &[Token], k: usize, name: &[String]) -> bool {
    if !word_is(t.get(k), &["of"]) {
        return false;
    }
    let mut k = k + 1;
    if word_is(t.get(k), INDEFINITE) {
        return true;
    }
    while word_is(t.get(k), DETERMINERS) {
        k += 1;
    }
    match t.get(k) {
        Some(Token::Number(_)) | None => false,
        Some(Token::Word(w)) => !DOCUMENT_WORDS.contains(&w.as_str()) && !name.contains(w),
        Some(_) => false,
    }
}

/// Whether the reference ending before `k` is followed by a noun it modifies ("the first page
/// load", "the cover letter"): the next word is a content word, not punctuation, the end or a
/// word of a closed class, and not the main verb at the end of a question whose auxiliary left
/// it for later ("What does the 3rd slide show?").
fn modifies_a_noun(t: &[Token], k: usize) -> bool {
    let Some(Token::Word(w)) = t.get(k) else {
        return false;
    };
    if is_closed_class(w) {
        return false;
    }
    let last_word = !matches!(t.get(k + 1), Some(Token::Word(_) | Token::Number(_)));
    let verb_left_for_later = t[..k].iter().any(|x| word_is(Some(x), DO_SUPPORT));
    !(last_word && verb_left_for_later)
}

/// A reference found in the tokens: the page, its first and end token, and the token after
/// it (where an "of ..." would start).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Found {
    page: PageRef,
    from: usize,
    to: usize,
    after: usize,
}

/// Every reference of the tokens, before the document is known: a page word and the numbers
/// after it ("pages 3, 5 and 9-11", "p. 12"), an ordinal or "last" after a determiner before a
/// page word ("the second page"), or the cover after a preposition and "the" ("on the back
/// cover").
fn page_phrases(t: &[Token]) -> Vec<Found> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let abbreviation = word_is(t.get(i), &["p", "pp"]) && t.get(i + 1) == Some(&Token::Dot);
        let verb = word_is(t.get(i), &["slide", "slides"])
            && i.checked_sub(1)
                .is_some_and(|k| word_is(t.get(k), PRONOUNS));
        if (word_is(t.get(i), PAGE_WORDS) && !verb) || abbreviation {
            let mut j = i + if abbreviation { 2 } else { 1 };
            let mut refs = Vec::new();
            let mut end = j;
            while let Some((a, numbering)) = opening(t, j) {
                match (ranges_to(t.get(j + 1)), numbering.value(t.get(j + 2))) {
                    (true, Some(b)) => {
                        if a >= 1 && b >= a {
                            refs.push(numbering.pages(a, b));
                        }
                        j += 3;
                    }
                    _ => {
                        if a >= 1 {
                            refs.push(numbering.pages(a, a));
                        }
                        j += 1;
                    }
                }
                end = j;
                if t.get(j) == Some(&Token::Comma) {
                    j += 1;
                }
                if word_is(t.get(j), &["and", "or"]) {
                    j += 1;
                }
            }
            let to = end.max(i + 1);
            out.extend(refs.into_iter().map(|page| Found {
                page,
                from: i,
                to,
                after: end,
            }));
            i = to;
            continue;
        }
        let determined = i
            .checked_sub(1)
            .is_some_and(|k| word_is(t.get(k), DETERMINERS) && !word_is(t.get(k), INDEFINITE));
        if determined && word_is(t.get(i + 1), PAGE_WORDS) {
            let place = match ordinal(t.get(i)) {
                Some(n) if n >= 1 => Some(PageRef::Place(n)),
                _ if word_is(t.get(i), &["last", "final"]) => Some(PageRef::Last),
                _ => None,
            };
            if let Some(page) = place {
                if !modifies_a_noun(t, i + 2) {
                    out.push(Found {
                        page,
                        from: i - 1,
                        to: i + 2,
                        after: i + 2,
                    });
                }
                i += 2;
                continue;
            }
        }
        if word_is(t.get(i), &["cover"])
            && let Some(found) = cover(t, i)
        {
            i = found.to;
            out.push(found);
            continue;
        }
        i += 1;
    }
    out
}

/// Prepositions that put something on the cover ("on the cover", "inside the back cover").
const COVER_PREPOSITIONS: &[&str] = &["on", "in", "inside", "at", "from"];

/// The cover named at `t[i]` ("cover"): "on the cover", "inside the back cover", "on the
/// second cover page" (a place in the file: the first page, or the last for the back cover).
/// The cover follows a preposition and "the", and modifies no noun ("the cover letter").
fn cover(t: &[Token], i: usize) -> Option<Found> {
    let before = |k: usize| k.checked_sub(1).and_then(|j| t.get(j));
    let mut k = i;
    let back = word_is(before(k), &["back"]);
    if word_is(before(k), &["front", "back"]) {
        k -= 1;
    }
    if ordinal(before(k)).is_some() {
        k -= 1;
    }
    if !word_is(before(k), &["the"]) || k < 2 || !word_is(t.get(k - 2), COVER_PREPOSITIONS) {
        return None;
    }
    let mut to = i + 1;
    if word_is(t.get(to), &["page"]) {
        to += 1;
    }
    if modifies_a_noun(t, to) {
        return None;
    }
    Some(Found {
        page: if back {
            PageRef::Last
        } else {
            PageRef::Place(1)
        },
        from: k - 2,
        to,
        after: to,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use PageRef::{Last, Numbers, Place, Roman};

    /// The references of a question once its document is known, as the rule reads them.
    pub(crate) fn refs_known(q: &str) -> Vec<PageRef> {
        let scope = crate::rewrite::tests::FixedScope::filtered("docs/report.pdf");
        let draft = Draft { typed: q, kept: q };
        match Pages.apply(&draft, &scope).unwrap() {
            Some(Change::Pages { references, .. }) => {
                references.refs.into_iter().map(|(r, _)| r).collect()
            }
            _ => Vec::new(),
        }
    }

    #[test]
    fn references_of_a_known_document() {
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
                "Which group is largest in Slide 4 in 2014?",
                vec![Numbers(4, 4)],
            ),
            (
                "What do pages 3, 5 and 9 to 11 say?",
                vec![Numbers(3, 3), Numbers(5, 5), Numbers(9, 11)],
            ),
            ("As p. 12 says, what is it?", vec![Numbers(12, 12)]),
            ("What date is on the second page?", vec![Place(2)]),
            ("What does the 3rd slide show?", vec![Place(3)]),
            (
                "What is written at the top of page two?",
                vec![Numbers(2, 2)],
            ),
            ("How many people are on the cover?", vec![Place(1)]),
            ("Who is named on the last page?", vec![Last]),
            ("What is printed on the back cover?", vec![Last]),
            ("What is listed on page xiv?", vec![Roman(14, 14)]),
            (
                "Summarise pages i-iv and Page IX.",
                vec![Roman(1, 4), Roman(9, 9)],
            ),
            ("What is on the cover page of the report?", vec![Place(1)]),
            ("Which email is on the second cover page?", vec![Place(1)]),
            ("What does page 2 of 10 say?", vec![Numbers(2, 2)]),
            ("Who is named on the last page of the document?", vec![Last]),
            ("What is on the first page of this report?", vec![Place(1)]),
            ("What is on page 3 of report.pdf?", vec![Numbers(3, 3)]),
            ("Tell me what slide 4 shows", vec![Numbers(4, 4)]),
            // A range of any length: the pages it names that the document has come first.
            (
                "How many figures are in Pages 400-640?",
                vec![Numbers(400, 640)],
            ),
            // What names no page.
            ("How many pages does the report have?", vec![]),
            ("Which 17 pages mention it?", vec![]),
            ("Is page-level retrieval better?", vec![]),
            ("What is on page 0?", vec![]),
            ("Which page I should read first?", vec![]),
            ("Which page one should read first?", vec![]),
            ("What should the cover letter include?", vec![]),
            ("Is a cover page needed?", vec![]),
            ("In the cover sheet, what goes first?", vec![]),
            ("Why is the first page load slow?", vec![]),
            ("Where is the last page link?", vec![]),
            ("What is on the first page of results?", vec![]),
            ("What is on page 2 of the search results?", vec![]),
            ("What goes on the first page of a thesis?", vec![]),
            ("What does page 1 of a PDF hold?", vec![]),
            ("Can I slide 3 panels?", vec![]),
            // A page word in quotes is mentioned, not used.
            (
                "Which pages tell how to reinstall it? Write them as [\"Page 17\", \"Page 25\"]",
                vec![],
            ),
            ("Where does the word 'page 2' appear?", vec![]),
            ("What does the company's page 4 say?", vec![Numbers(4, 4)]),
            // Questions about doing something name no page of the document.
            ("How do I make the first page different in Word?", vec![]),
            ("How to jump to slide 3 in PowerPoint", vec![]),
            ("How do I sign a PDF on page 2?", vec![]),
            ("Print pages 1-5 of a PDF with lp", vec![]),
            ("hide the page number on the first page in LaTeX", vec![]),
            ("Vim: jump to the last page", vec![]),
            ("Go to slide 3.", vec![]),
        ] {
            assert_eq!(refs_known(q), want, "{q:?}");
        }
    }

    #[test]
    fn each_page_comes_with_the_words_that_name_it() {
        let scope = crate::rewrite::tests::FixedScope::filtered("a.pdf");
        let q = "Compare pages 3, 5 and 9-11 with the last page, and p. 7 with what is on the back cover.";
        let Some(Change::Pages { references, why }) =
            Pages.apply(&Draft { typed: q, kept: q }, &scope).unwrap()
        else {
            panic!("no pages")
        };
        let phrases: Vec<(PageRef, &str)> = references
            .refs
            .iter()
            .map(|(r, span)| (*r, &q[span.clone()]))
            .collect();
        assert_eq!(
            phrases,
            [
                (Numbers(3, 3), "pages 3, 5 and 9-11"),
                (Numbers(5, 5), "pages 3, 5 and 9-11"),
                (Numbers(9, 11), "pages 3, 5 and 9-11"),
                (Last, "the last page"),
                (Numbers(7, 7), "p. 7"),
                (Last, "on the back cover"),
            ]
        );
        assert!(why.contains("a.pdf") && why.contains("filtered"), "{why}");
        // Spans are byte ranges of the question, also after characters of several bytes.
        let q = "Which résumé does (page 12) show?";
        let Some(Change::Pages { references, .. }) =
            Pages.apply(&Draft { typed: q, kept: q }, &scope).unwrap()
        else {
            panic!("no pages")
        };
        assert_eq!(&q[references.refs[0].1.clone()], "page 12");
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
        for v in 1..4000 {
            assert_eq!(roman_value(&to_roman(v)), Some(v));
        }
    }
}
