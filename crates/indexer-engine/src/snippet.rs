//! Query-term snippets: the part of a note's text that best shows why it matched, with the
//! byte ranges of the query terms in it, so each front end marks them its own way (bold on a
//! terminal, `<mark>` on the web page, `**` in Markdown).

use indexer_index::{Matching, TYPO_MIN_CHARS, TYPO2_MIN_CHARS, edit_distance};
use serde::Serialize;

/// Words too common to be worth marking.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
    "in", "is", "it", "its", "of", "on", "or", "that", "the", "this", "to", "was", "what", "when",
    "where", "which", "who", "why", "with", "were", "will", "there", "their", "they", "has",
    "have", "had", "not", "but", "if", "into", "than", "then", "these", "those", "been", "being",
    "did", "so", "such", "about", "any", "all", "some", "many", "much", "more", "most",
];

/// A snippet of a note's text with the query terms located in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snippet {
    pub text: String,
    /// Byte ranges `[start, end)` of query terms within `text`, in order, not overlapping.
    pub highlights: Vec<[usize; 2]>,
}

impl Snippet {
    /// The snippet with every highlight wrapped in `open` and `close`.
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(
            self.text.len() + self.highlights.len() * (open.len() + close.len()),
        );
        let mut at = 0;
        for [s, e] in &self.highlights {
            out.push_str(&self.text[at..*s]);
            out.push_str(open);
            out.push_str(&self.text[*s..*e]);
            out.push_str(close);
            at = *e;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// Normalises a word for matching: lowercase, and a plural `s` dropped, so "selectors" marks
/// "selector". A real stemmer would do better on verbs; this keeps marking predictable.
fn norm(word: &str) -> String {
    let mut w = String::new();
    lower_into(word, &mut w);
    strip_plural(&mut w);
    w
}

/// `word` in lower case, written into `buf` (whose allocation a caller reuses word after word).
fn lower_into(word: &str, buf: &mut String) {
    buf.clear();
    buf.extend(word.chars().flat_map(char::to_lowercase));
}

/// Drops a plural `s` from a lower-case word, as [`norm`] does.
fn strip_plural(w: &mut String) {
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
}

/// A content word of a query as snippets mark it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    /// The word normalised (lower case, plural `s` dropped).
    pub norm: String,
    /// The last word of a query searched as a prefix: marks the words it begins.
    pub prefix: bool,
    /// Edits a marked word may differ by when the note does not hold the word itself (typo
    /// tolerance, with the index's length thresholds); 0 for none.
    pub typos: usize,
}

/// The distinct content words of a query, in order, marked as `matching` matches them.
pub fn query_terms(query: &str, matching: Matching) -> Vec<QueryTerm> {
    let all = words(query);
    let mut out: Vec<QueryTerm> = Vec::new();
    for (i, w) in all.iter().enumerate() {
        let word = &query[w.0..w.1];
        let lower = word.to_lowercase();
        let len = lower.chars().count();
        if len < 2 || STOPWORDS.contains(&lower.as_str()) {
            continue;
        }
        let prefix = matching.prefix && i + 1 == all.len();
        let typos = match len {
            _ if !matching.typos => 0,
            n if n >= TYPO2_MIN_CHARS => 2,
            n if n >= TYPO_MIN_CHARS => 1,
            _ => 0,
        };
        let norm = if prefix { lower } else { norm(word) };
        match out.iter_mut().find(|t| t.norm == norm) {
            Some(t) => t.prefix |= prefix,
            None => out.push(QueryTerm {
                norm,
                prefix,
                typos,
            }),
        }
    }
    out
}

/// The terms of a snippet, read once for all the words of a note: each term's characters
/// (for its typo tolerance), and buffers reused word after word, so that matching a word
/// allocates nothing.
struct Matcher<'t> {
    terms: &'t [QueryTerm],
    chars: Vec<Vec<char>>,
    lower: String,
    word: Vec<char>,
}

impl<'t> Matcher<'t> {
    fn new(terms: &'t [QueryTerm]) -> Matcher<'t> {
        Matcher {
            terms,
            chars: terms.iter().map(|t| t.norm.chars().collect()).collect(),
            lower: String::new(),
            word: Vec::new(),
        }
    }

    /// Which term a word of a note matches: the same normalised word, a word the prefix term
    /// begins, or (for a term the note does not hold as typed, `held[i]` false) a word within
    /// the term's edit distance.
    fn term_of(&mut self, held: &[bool], word: &str) -> Option<usize> {
        lower_into(word, &mut self.lower);
        let terms = self.terms;
        let prefix = terms
            .iter()
            .position(|t| t.prefix && self.lower.starts_with(&t.norm));
        strip_plural(&mut self.lower);
        if let Some(i) = terms.iter().position(|t| t.norm == self.lower) {
            return Some(i);
        }
        if prefix.is_some() {
            return prefix;
        }
        let len = self.lower.chars().count();
        let candidate = |i: usize, t: &QueryTerm| {
            t.typos > 0 && !held[i] && len.abs_diff(self.chars[i].len()) <= t.typos
        };
        if !terms.iter().enumerate().any(|(i, t)| candidate(i, t)) {
            return None;
        }
        self.word.clear();
        self.word.extend(self.lower.chars());
        terms.iter().enumerate().position(|(i, t)| {
            candidate(i, t) && edit_distance(&self.word, &self.chars[i]) <= t.typos
        })
    }

    /// For each term, whether some word of `text` is the term as typed.
    fn held(&mut self, text: &str, ws: &[(usize, usize)]) -> Vec<bool> {
        let mut held = vec![false; self.terms.len()];
        for &(s, e) in ws {
            lower_into(&text[s..e], &mut self.lower);
            strip_plural(&mut self.lower);
            if let Some(i) = self.terms.iter().position(|t| t.norm == self.lower) {
                held[i] = true;
            }
        }
        held
    }
}

/// The part of a note's text a snippet is cut from: for a figure or table, whose text begins
/// with its caption, what follows the caption (every front end shows the caption on its own
/// line, so a snippet from the start would show it twice). Empty when the note is only its
/// caption; the whole text for notes without one.
pub fn snippet_source<'a>(text: &'a str, caption: Option<&str>) -> &'a str {
    let text = text.trim();
    match caption.map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => text.strip_prefix(c).map_or(text, str::trim_start),
        None => text,
    }
}

/// Byte ranges of the alphanumeric words of `text`.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            if start.is_none() {
                start = Some(i);
            }
        } else if let Some(s) = start.take() {
            out.push((s, i));
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Picks the window of at most about `max_chars` bytes of `text` that holds the most distinct
/// query terms (the first such window on ties), cut at word boundaries, with `…` where text was
/// left out, and locates the terms in it.
pub fn snippet(text: &str, terms: &[QueryTerm], max_chars: usize) -> Snippet {
    let text = text.trim();
    let ws = words(text);
    let mut matcher = Matcher::new(terms);
    let held = matcher.held(text, &ws);
    let matches: Vec<(usize, usize, usize)> = ws
        .iter()
        .filter_map(|&(s, e)| matcher.term_of(&held, &text[s..e]).map(|ti| (s, e, ti)))
        .collect();
    let (mut start, mut end) = (0, text.len());
    if text.len() > max_chars {
        // Slide over match positions: the window starting a little before match i covers the
        // matches up to start + max_chars; count distinct terms in it.
        let lead = max_chars / 4;
        let mut best = (0usize, 0usize); // (distinct terms, window start)
        for (i, m) in matches.iter().enumerate() {
            let ws_start = m.0.saturating_sub(lead);
            let mut seen = vec![false; terms.len()];
            for m2 in &matches[i..] {
                if m2.1 > ws_start + max_chars {
                    break;
                }
                seen[m2.2] = true;
            }
            let distinct = seen.iter().filter(|s| **s).count();
            if distinct > best.0 {
                best = (distinct, ws_start);
            }
        }
        start = best.1;
        // Snap to word boundaries: start at the first word at or after `start`, end at the last
        // word that ends within the budget.
        if start > 0 {
            start = ws
                .iter()
                .find(|w| w.0 >= start)
                .map(|w| w.0)
                .unwrap_or(start);
        }
        let limit = start + max_chars;
        end = ws
            .iter()
            .rev()
            .find(|w| w.1 <= limit && w.0 >= start)
            .map(|w| w.1)
            // One word longer than the window: show it whole rather than cut inside a character.
            .unwrap_or_else(|| ws.iter().find(|w| w.0 >= start).map_or(text.len(), |w| w.1));
        // Keep a closing punctuation mark that follows the last word.
        if let Some(c) = text[end..].chars().next()
            && matches!(c, '.' | ',' | ';' | ':' | ')' | '!' | '?')
        {
            end += c.len_utf8();
        }
    }
    let prefix = if start > 0 { "… " } else { "" };
    let suffix = if end < text.len() { " …" } else { "" };
    let body = text[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    // Whitespace was collapsed, so locate the terms again in the final text.
    let out = format!("{prefix}{body}{suffix}");
    let highlights = words(&out)
        .into_iter()
        .filter(|&(s, e)| matcher.term_of(&held, &out[s..e]).is_some())
        .map(|(s, e)| [s, e])
        .collect();
    Snippet {
        text: out,
        highlights,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_of_figures_start_after_the_caption() {
        let text = "Figure 2: Error by depth.\nRMSE 0.31 0.28\nthe deeper model wins";
        let cap = Some("Figure 2: Error by depth.");
        assert_eq!(
            snippet_source(text, cap),
            "RMSE 0.31 0.28\nthe deeper model wins"
        );
        assert_eq!(snippet_source("Figure 2: Error by depth.", cap), "");
        // A caption that is not the start of the text (edited or reworded) leaves it whole.
        assert_eq!(snippet_source("other text", cap), "other text");
        assert_eq!(snippet_source("  plain text ", None), "plain text");
        assert_eq!(snippet_source("plain text", Some("  ")), "plain text");
    }

    #[test]
    fn terms_drop_stopwords_and_fold_plurals() {
        let norms = |q: &str| -> Vec<String> {
            query_terms(q, Matching::EXACT)
                .into_iter()
                .map(|t| t.norm)
                .collect()
        };
        assert_eq!(
            norms("How are the Random Effects specified in lmer?"),
            ["random", "effect", "specified", "lmer"]
        );
        assert_eq!(norms("class vs classes"), ["class", "vs", "classe"]);
        assert!(norms("what is it").is_empty());
    }

    #[test]
    fn short_text_is_kept_whole_and_marked() {
        let terms = query_terms("mosaic plots", Matching::EXACT);
        let s = snippet("A  mosaic plot\nshows  Mosaics.", &terms, 200);
        assert_eq!(s.text, "A mosaic plot shows Mosaics.");
        assert_eq!(s.marked("[", "]"), "A [mosaic] [plot] shows [Mosaics].");
    }

    #[test]
    fn long_text_window_holds_the_most_terms() {
        let filler = "lorem ipsum dolor sit amet ".repeat(40);
        let text = format!(
            "{filler}the random effects term here {filler}random effects and the lmer formula syntax {filler}"
        );
        let terms = query_terms("random effects lmer formula", Matching::EXACT);
        let s = snippet(&text, &terms, 120);
        assert!(
            s.text.starts_with("… ") && s.text.ends_with(" …"),
            "{}",
            s.text
        );
        assert!(s.text.len() <= 120 + 2 * "… ".len(), "{}", s.text.len());
        let marked = s.marked("<", ">");
        for t in ["<random>", "<effects>", "<lmer>", "<formula>"] {
            assert!(marked.contains(t), "{marked}");
        }
    }

    #[test]
    fn typing_marks_completions_and_corrections() {
        let text = "A mosaic plot and a mosaic display; plotting is not mosaicking.";
        let marked =
            |q: &str| snippet(text, &query_terms(q, Matching::TYPING), 200).marked("[", "]");
        assert_eq!(
            marked("mos"),
            "A [mosaic] plot and a [mosaic] display; plotting is not [mosaicking]."
        );
        // "mosaik" is not in the text: corrected; "plott" is the prefix of "plotting" and one
        // edit from "plot".
        assert_eq!(
            marked("mosaik plott"),
            "A [mosaic] [plot] and a [mosaic] display; [plotting] is not mosaicking."
        );
        // A word the text holds is not corrected: "display" marks itself only.
        assert_eq!(
            snippet(
                "display displays dispray",
                &query_terms("display", Matching::TYPING),
                200
            )
            .marked("[", "]"),
            "[display] [displays] dispray"
        );
        // Exact matching marks whole words only.
        assert_eq!(
            snippet(text, &query_terms("mos", Matching::EXACT), 200).marked("[", "]"),
            text
        );
    }

    #[test]
    fn no_match_gives_the_start_and_unicode_is_safe() {
        let text = "Überschrift — ".repeat(50);
        let s = snippet(&text, &query_terms("nothing matches", Matching::EXACT), 60);
        assert!(s.text.starts_with("Überschrift"));
        assert!(s.highlights.is_empty());
        let s = snippet(&text, &query_terms("überschrift", Matching::EXACT), 60);
        assert!(!s.highlights.is_empty());
        for [a, b] in &s.highlights {
            assert_eq!(&s.text[*a..*b], "Überschrift");
        }
    }
}
