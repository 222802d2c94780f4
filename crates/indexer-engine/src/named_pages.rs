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
use crate::question::{NamedPage, SearchedQuestion};
use crate::reader::Reader;
use indexer_index::Filter;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

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

/// The tokens of `text`, each with its byte range in `text`.
fn tokens(text: &str) -> (Vec<Token>, Vec<Range<usize>>) {
    let mut out = Vec::new();
    let mut spans = Vec::new();
    let mut word = String::new();
    let mut start = 0;
    let flush = |word: &mut String, end: usize, out: &mut Vec<Token>, spans: &mut Vec<_>| {
        if word.is_empty() {
            return;
        }
        let w = std::mem::take(word);
        spans.push(end - w.len()..end);
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
        debug_assert!(word.is_empty() || start + word.len() == at);
        flush(&mut word, at, &mut out, &mut spans);
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
    flush(&mut word, text.len(), &mut out, &mut spans);
    (out, spans)
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
    // "Which page one should read first": "one" is the pronoun.
    if word_is(t.get(j), &["one"]) && word_is(t.get(j + 1), MODALS) {
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

/// Verbs after which "one" is a pronoun, not a number.
const MODALS: &[&str] = &[
    "can", "could", "may", "might", "must", "needs", "should", "would", "will",
];

/// A dash, "to" or "through": what joins the ends of a range.
fn ranges_to(t: Option<&Token>) -> bool {
    t == Some(&Token::Dash) || word_is(t, &["to", "through"])
}

const PAGE_WORDS: &[&str] = &["page", "pages", "slide", "slides"];

/// Words that make a following "slide" a verb: "How do I slide 3 images in?", "how to slide 2
/// panels".
const VERB_CUES: &[&str] = &["i", "you", "we", "they"];

/// Words that, after "page", make it a modifier of another noun ("the first page load", "the
/// last page number"): the question is about that thing, not about a page of the document.
const PAGE_COMPOUNDS: &[&str] = &[
    "break",
    "breaks",
    "button",
    "buttons",
    "cache",
    "component",
    "components",
    "count",
    "element",
    "elements",
    "fault",
    "faults",
    "footer",
    "footers",
    "frame",
    "frames",
    "header",
    "headers",
    "height",
    "layout",
    "layouts",
    "limit",
    "link",
    "links",
    "load",
    "loads",
    "loading",
    "margin",
    "margins",
    "navigation",
    "number",
    "numbering",
    "numbers",
    "object",
    "objects",
    "orientation",
    "rank",
    "ranking",
    "render",
    "rendering",
    "request",
    "requests",
    "setup",
    "size",
    "sizes",
    "source",
    "speed",
    "style",
    "styles",
    "table",
    "tables",
    "template",
    "templates",
    "title",
    "titles",
    "token",
    "tokens",
    "transition",
    "transitions",
    "url",
    "urls",
    "view",
    "views",
    "width",
];

/// What "page ... of" may name as the thing the page is of: the document (or a page count,
/// "page 2 of 10"). "The first page of results" is a page of something else.
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
    "form",
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
    "statement",
    "study",
    "survey",
    "thesis",
];

/// Words that point at one thing before a place in the file ("the second page", "its last
/// page").
const DETERMINERS: &[&str] = &[
    "the", "this", "that", "its", "their", "our", "your", "a", "an",
];

/// Prepositions that put something on the cover ("on the cover", "inside the back cover").
const COVER_PREPOSITIONS: &[&str] = &["on", "in", "inside", "at", "from"];

/// Words that may follow "the cover" when it is the page: punctuation, the end, or a word
/// that starts the rest of the sentence. Any other word makes it a compound ("the cover
/// letter", "the cover sheet").
const COVER_FOLLOWERS: &[&str] = &[
    "and", "are", "at", "does", "for", "has", "have", "in", "is", "of", "or", "say", "says",
    "show", "shows", "that", "to", "was", "were", "what", "which", "with",
];

/// Whether the word at `i` is a page word used as a verb ("how to slide 3 images").
fn verb_use(t: &[Token], i: usize) -> bool {
    if !word_is(t.get(i), &["slide", "slides"]) {
        return false;
    }
    let before = |k: usize| i.checked_sub(k).and_then(|j| t.get(j));
    word_is(before(1), VERB_CUES) || (word_is(before(1), &["to"]) && word_is(before(2), &["how"]))
}

/// Whether `t[k]` starts "of" and a thing that is not the document ("page 2 of the search
/// results", "the first page of results").
fn of_something_else(t: &[Token], k: usize) -> bool {
    if !word_is(t.get(k), &["of"]) {
        return false;
    }
    let mut k = k + 1;
    while word_is(t.get(k), DETERMINERS) {
        k += 1;
    }
    match t.get(k) {
        Some(Token::Number(_)) | None => false,
        Some(Token::Word(w)) => !DOCUMENT_WORDS.contains(&w.as_str()),
        Some(_) => false,
    }
}

/// Whether the page word at `i` is followed by a noun it modifies ("page layout").
fn compound(t: &[Token], i: usize) -> bool {
    word_is(t.get(i + 1), PAGE_COMPOUNDS)
}

/// The pages `question` names, in the order it names them.
pub fn named_pages(question: &str) -> Vec<PageRef> {
    page_phrases(question).into_iter().map(|(r, _)| r).collect()
}

/// The pages `question` names, each with the byte range of the words that name it: a page
/// word and the numbers after it ("pages 3, 5 and 9-11"), an ordinal or "last" before a
/// page word ("the second page"), or the cover ("on the back cover"). The rules read only
/// what names a page of the document: a page word with no number after it, a page that
/// modifies a noun ("the first page load"), a page of something else ("the first page of
/// results"), "slide" as a verb and a cover in a compound ("the cover letter") name none.
fn page_phrases(question: &str) -> Vec<(PageRef, Range<usize>)> {
    let (t, spans) = tokens(question);
    let phrase = |from: usize, to: usize| spans[from].start..spans[to - 1].end;
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let abbreviation = word_is(t.get(i), &["p", "pp"]) && t.get(i + 1) == Some(&Token::Dot);
        if (word_is(t.get(i), PAGE_WORDS) && !verb_use(&t, i)) || abbreviation {
            // A list of numbers and ranges: "pages 3, 5 and 9-11".
            let mut j = i + if abbreviation { 2 } else { 1 };
            let mut refs = Vec::new();
            let mut end = j;
            while let Some((a, numbering)) = opening(&t, j) {
                match (ranges_to(t.get(j + 1)), numbering.value(t.get(j + 2))) {
                    (true, Some(b)) => {
                        if a >= 1 && b >= a && b - a < MAX_RANGE {
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
            if !of_something_else(&t, end) {
                let span = phrase(i, end.max(i + 1));
                out.extend(refs.into_iter().map(|r| (r, span.clone())));
            }
            i = end.max(i + 1);
            continue;
        }
        let determined = i
            .checked_sub(1)
            .is_some_and(|k| word_is(t.get(k), DETERMINERS));
        let place = if word_is(t.get(i + 1), PAGE_WORDS) && determined {
            if let Some(n) = ordinal(t.get(i)).filter(|&n| n >= 1) {
                Some(PageRef::Place(n))
            } else if word_is(t.get(i), &["last", "final"]) {
                Some(PageRef::Last)
            } else {
                None
            }
        } else {
            None
        };
        if let Some(r) = place {
            if !compound(&t, i + 1) && !of_something_else(&t, i + 2) {
                out.push((r, phrase(i - 1, i + 2)));
            }
            i += 2;
            continue;
        }
        if word_is(t.get(i), &["cover"])
            && let Some((r, from, to)) = cover(&t, i)
        {
            out.push((r, phrase(from, to)));
            i = to;
            continue;
        }
        i += 1;
    }
    out
}

/// The cover named at `t[i]` ("cover"), with its first and end token: "on the cover", "inside
/// the back cover", "on the second cover page" (a place in the file: the first page, or the
/// last for the back cover). The cover must follow a preposition and "the", and be followed
/// by no noun it modifies ("the cover letter" is a letter).
fn cover(t: &[Token], i: usize) -> Option<(PageRef, usize, usize)> {
    let mut k = i;
    let mut back = false;
    let before = |k: usize| k.checked_sub(1).and_then(|j| t.get(j));
    if word_is(before(k), &["front", "back"]) {
        back = word_is(before(k), &["back"]);
        k -= 1;
    }
    if ordinal(before(k)).is_some() {
        k -= 1;
    }
    if !word_is(before(k), &["the"]) || !word_is(before(k - 1), COVER_PREPOSITIONS) {
        return None;
    }
    let from = k - 2;
    let mut to = i + 1;
    if word_is(t.get(to), &["page"]) {
        to += 1;
    }
    let followed = match t.get(to) {
        Some(Token::Word(w)) => COVER_FOLLOWERS.contains(&w.as_str()),
        _ => true,
    };
    if !followed || of_something_else(t, to) {
        return None;
    }
    Some((
        if back {
            PageRef::Last
        } else {
            PageRef::Place(1)
        },
        from,
        to,
    ))
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
/// Returns the pages put first (those with a note the filter lets through), most named first;
/// none when the question is not rewritten (`SearchedQuestion::rewrite`).
pub(crate) fn put_named_pages_first(
    reader: &dyn Reader,
    pool: &mut Pool,
    question: &SearchedQuestion<'_>,
    filter: &Filter,
) -> Result<Vec<NamedPage>> {
    let phrases = if question.rewrite {
        page_phrases(question.text)
    } else {
        Vec::new()
    };
    if phrases.is_empty() || pool.fused.len() != pool.entries.len() {
        return Ok(Vec::new());
    }
    let refs: Vec<PageRef> = phrases.iter().map(|(r, _)| *r).collect();
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
    let mut named = Vec::new();
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
        let mut put_first: BTreeMap<u32, f64> = BTreeMap::new();
        for (note, v) in &notes {
            let Some((page, b)) = note.page.and_then(|p| Some((p, bonus.get(&p)?))) else {
                continue;
            };
            if !filter.matches(note) {
                continue;
            }
            put_first.insert(page, *b);
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
        let mut pages: Vec<(u32, f64)> = put_first.into_iter().collect();
        pages.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        for (page, b) in pages {
            // The first phrase that gives the page its bonus on its own.
            let phrase = phrases
                .iter()
                .find(|(r, _)| page_bonuses(&[*r], &labels).get(&page) == Some(&b))
                .or(phrases.first())
                .map(|(_, span)| question.text[span.clone()].to_string())
                .unwrap_or_default();
            named.push(NamedPage {
                doc: doc.clone(),
                page,
                phrase,
            });
        }
    }
    if pool.len() > before {
        pool.info = note_info(&pool.entries);
        pool.links = links_among(&pool.entries);
    }
    Ok(named)
}

#[cfg(test)]
pub(crate) mod tests {
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
            // A page of the document, said the ways the rules read.
            ("What is on the cover page of the report?", vec![Place(1)]),
            ("the logo inside the back cover", vec![Last]),
            (
                "Which text is printed on the front cover, and where?",
                vec![Place(1)],
            ),
            ("the email address on the second cover page", vec![Place(1)]),
            ("What does page 2 of 10 say?", vec![Numbers(2, 2)]),
            ("the governor on the last page of the document", vec![Last]),
            ("on the first page of this report", vec![Place(1)]),
            ("What does slide 4 show?", vec![Numbers(4, 4)]),
            ("Go to slide 3.", vec![Numbers(3, 3)]),
            ("What is written on page one?", vec![Numbers(1, 1)]),
            // What only looks like one.
            ("What should the cover letter include?", vec![]),
            ("Is a cover page needed?", vec![]),
            ("In the cover sheet, what goes first?", vec![]),
            ("How to put an image in the cover of a LaTeX book?", vec![]),
            ("How do I fetch the first page of results?", vec![]),
            ("Why is the first page load slow?", vec![]),
            ("Show the last page link", vec![]),
            ("How to request page 2 of the search results?", vec![]),
            ("How to slide 3 images in a carousel?", vec![]),
            ("How do I slide 2 panels?", vec![]),
            ("Which page one should read first?", vec![]),
            ("first page", vec![]),
        ] {
            assert_eq!(named_pages(q), want, "{q:?}");
        }
    }

    #[test]
    fn each_page_comes_with_the_words_that_name_it() {
        let q = "Compare pages 3, 5 and 9-11 with the last page, and p. 7 with what is on the back cover.";
        let phrases: Vec<(PageRef, &str)> = page_phrases(q)
            .into_iter()
            .map(|(r, span)| (r, &q[span]))
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
        // Spans are byte ranges of the question, also after characters of several bytes.
        let q = "Résumé — what does «page 12» say?";
        let (r, span) = page_phrases(q).remove(0);
        assert_eq!((r, &q[span]), (Numbers(12, 12), "page 12"));
    }

    /// Questions as a docs site gets them, written from the documentation of Rust, Python,
    /// git, PostgreSQL, Kubernetes, LaTeX, HTTP and others (not from a benchmark): none is
    /// rewritten. Each names a page word, an instruction opener or a form word somewhere, so
    /// each is one a looser rule would change.
    pub(crate) const ORDINARY_QUERIES: &[&str] = &[
        "Rust. Write a string to a file",
        "What should the cover letter include?",
        "How do I set the page size in LaTeX?",
        "git: list all branches",
        "Format a date as ISO 8601 in Python",
        "Round a float to two decimals in JavaScript",
        "How to return a list from a function",
        "Python. Return a list of integers.",
        "Rust. Return an integer from main.",
        "Convert a string to an integer in Rust",
        "Serialize a struct to a JSON string with serde",
        "Python. Use f-strings to format a float with two decimal places.",
        "PostgreSQL. Give a user read-only access to a schema.",
        "PostgreSQL: format a number with thousands separators",
        "Kubernetes. Write a Deployment manifest in YAML format.",
        "Kubernetes: how to list pods in all namespaces?",
        "Node.js. Express. Respond with a JSON list.",
        "HTTP. Answer with a 204 status code.",
        "What does HTTP 304 Not Modified mean? Answer briefly.",
        "What is an A record? Answer section of a DNS response.",
        "How do I slice a list in Python? Return items [1:3].",
        "How do I quote a string in bash? For example 'foo bar'.",
        "How do I round numbers in Excel? Round to two decimal places.",
        "How many bytes does a Rust char take? Give the size in bytes.",
        "How do I print a list in reverse order in Python?",
        "git log. Show the last 5 commits.",
        "git: how to undo the last commit?",
        "How do I add page numbers to the footer in LaTeX?",
        "How do I insert a page break in Markdown?",
        "Why is the first page load slow in React?",
        "CSS page layout with grid",
        "Page faults in Linux: how does the kernel handle them?",
        "How do I fetch the first page of results from the GitHub API?",
        "How to detect the last page of a paginated REST API?",
        "How do I go to page 2 of the search results with the GitHub API?",
        "Django pagination: show the last page link",
        "Which slide layout should I use for a title slide?",
        "How to slide 3 images in a carousel with CSS?",
        "How to remove the cover page in a Word template?",
        "Set the cover image of an EPUB with pandoc",
        "How to put an image in the cover of a LaTeX book?",
        "What is the default page size of the Elasticsearch scroll API?",
        "tantivy: how to use a custom tokenizer?",
        "Python: write a list of numbers to a file, one per line.",
    ];

    #[test]
    fn ordinary_queries_pass_through_unchanged() {
        assert!(ORDINARY_QUERIES.len() >= 30);
        for q in ORDINARY_QUERIES {
            assert_eq!(
                crate::question::split_question(q),
                (*q, ""),
                "{q:?} is searched as typed"
            );
            assert_eq!(named_pages(q), [], "{q:?} names no page");
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
