//! The features of a candidate, computed once per question from what the first stage already
//! has: its two retrievers' scores and ranks, the note itself, its page's and its document's
//! standing among the candidates, and how much of the question it holds. None names a word or
//! a benchmark; each is documented in [`FEATURES`] (and in `docs/ranking.md`).
//!
//! Query terms are the searched text's terms as BM25 analyses them (`indexer_index::analyze`:
//! lower case, English stems), without the words of the closed classes ("the", "of", "what").

use crate::pool::Pool;
use std::collections::{HashMap, HashSet};

/// Every feature, in the order a row holds them: its name (as a model file names it) and what
/// it is.
pub const FEATURES: [(&str, &str); 27] = [
    (
        "bm25",
        "BM25 score over the best BM25 score among the candidates; 0 if no BM25 candidate",
    ),
    ("bm25_rr", "1 / BM25 rank; 0 if no BM25 candidate"),
    ("cosine", "cosine of the note and the question"),
    (
        "cosine_scaled",
        "cosine scaled from the lowest to the highest among the candidates",
    ),
    (
        "vector_rr",
        "1 / rank among the vector candidates; 0 if none",
    ),
    ("fused", "the first stage's fused score"),
    ("fused_rr", "1 / rank in the first stage's fused order"),
    ("both", "1 when both retrievers found the note"),
    ("figure", "1 for a figure note"),
    ("table", "1 for a table note"),
    (
        "numbers_page",
        "1 for the note of words of a page of numbers (a statement)",
    ),
    ("caption", "1 when the note has a caption"),
    (
        "length",
        "ln(1 + words of the note's text), a word a run of letters and digits",
    ),
    (
        "number_share",
        "share of digits among the letters and digits of the note's text",
    ),
    ("page_notes", "candidates on the note's page"),
    (
        "page_best",
        "the best fused score on the note's page over the best of all candidates",
    ),
    (
        "page_sum",
        "the summed fused scores on the note's page over the best of all candidates",
    ),
    (
        "page_rr",
        "1 / rank of the note's page, pages ranked by their best fused score",
    ),
    (
        "neighbour_best",
        "the best fused score on the pages before and after, over the best of all",
    ),
    (
        "page_place",
        "the page's place in its document, 0 at the first page, 1 at the last",
    ),
    (
        "doc_rr",
        "1 / rank of the note's document, documents ranked by their best fused score",
    ),
    ("terms_text", "share of the query terms in the note's text"),
    (
        "terms_section",
        "share of the query terms in the note's section heading",
    ),
    (
        "terms_caption",
        "share of the query terms in the note's caption",
    ),
    (
        "terms_page",
        "share of the query terms in the text of the candidates on the note's page",
    ),
    (
        "rarest",
        "1 when the note holds the query term that the fewest candidates hold",
    ),
    (
        "bigrams",
        "share of the query's adjacent term pairs adjacent in the note's text (its words that are no query term left out)",
    ),
];

/// The number of features.
pub const FEATURE_COUNT: usize = FEATURES.len();

/// The features' names, in row order.
pub fn feature_names() -> impl Iterator<Item = &'static str> {
    FEATURES.iter().map(|(name, _)| *name)
}

/// The query terms of a searched text: its analysed terms without closed-class words,
/// in order (repeats kept, for the pairs).
pub fn query_terms(searched: &str) -> Vec<String> {
    indexer_index::analyze(searched)
        .into_iter()
        .filter(|t| !crate::rewrite::is_function_word(t))
        .collect()
}

/// Which words of a text can be a query term once analysed: a stem keeps the first letters
/// of its word (English stemming changes endings), so only a word that starts with a query
/// term's first three letters (or all of a shorter term) is stemmed. The words are found by
/// searching the text for those prefixes at once (Aho-Corasick, ASCII case folded) rather
/// than by reading every word: a question's 200 candidates hold some 40,000 words, and reading
/// and stemming them all took 12 ms.
struct Wanted {
    /// The ASCII prefixes, searched for.
    ascii: Option<aho_corasick::AhoCorasick>,
    /// The first letters of the terms that start with another character: their words are
    /// found by reading every word ([`for_each_word`]).
    other: Vec<Vec<char>>,
}

/// Whether a byte can be part of a word: an ASCII letter or digit, or a byte of a character
/// beyond ASCII (taken as a letter here; [`for_each_word`] decodes it).
#[inline]
fn word_byte(x: u8) -> bool {
    x >= 128 || x.is_ascii_alphanumeric()
}

impl Wanted {
    fn new(terms: &[&str]) -> Wanted {
        let mut ascii: Vec<String> = Vec::new();
        let mut other: Vec<Vec<char>> = Vec::new();
        for t in terms {
            let p: String = t.chars().take(3).collect();
            if p.is_empty() {
                continue;
            }
            if p.is_ascii() {
                if !ascii.contains(&p) {
                    ascii.push(p);
                }
            } else {
                let p: Vec<char> = p.chars().collect();
                if !other.contains(&p) {
                    other.push(p);
                }
            }
        }
        let ascii = (!ascii.is_empty()).then(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&ascii)
                .expect("a few short ASCII prefixes build")
        });
        Wanted { ascii, other }
    }

    /// Calls `f` with each word of `text` that may be a query term, in order.
    fn each_word(&self, text: &str, mut f: impl FnMut(&str)) {
        if !self.other.is_empty() {
            // A prefix beyond ASCII: read every word.
            for_each_word(text, |w, _| {
                let first: Vec<char> = w.chars().flat_map(char::to_lowercase).take(3).collect();
                let ascii = self
                    .ascii
                    .as_ref()
                    .is_some_and(|a| a.find(w).is_some_and(|m| m.start() == 0));
                if ascii || self.other.iter().any(|p| first.starts_with(p)) {
                    f(w);
                }
            });
            return;
        }
        let Some(ac) = &self.ascii else {
            return;
        };
        let b = text.as_bytes();
        let mut last_start = usize::MAX;
        for m in ac.find_overlapping_iter(text) {
            let s = m.start();
            if s == last_start || (s > 0 && word_byte(b[s - 1])) {
                continue;
            }
            last_start = s;
            let mut e = s;
            while e < b.len() && word_byte(b[e]) {
                e += 1;
            }
            // A word ends at a character beyond ASCII that is no letter.
            let word = &text[s..e];
            let word = word
                .char_indices()
                .find(|(_, c)| !c.is_alphanumeric())
                .map_or(word, |(at, _)| &word[..at]);
            f(word);
        }
    }
}

/// [`word_byte`] as 0 or 1, without branches.
#[inline]
fn word_bit(x: u8) -> u8 {
    u8::from(x >= 128)
        | u8::from((x | 0x20).wrapping_sub(b'a') < 26)
        | u8::from(x.wrapping_sub(b'0') < 10)
}

/// The words of `b` (runs of [`word_byte`]s), the bytes in them, and the digits among those.
/// Counted a byte at a time into byte counters, a chunk of 255 bytes at once, which the
/// compiler vectorises (the same with `usize` sums took ten times as long).
fn counts(b: &[u8]) -> (usize, usize, usize) {
    let (mut starts, mut letters, mut digits) = (0usize, 0usize, 0usize);
    let mut prev = 0u8;
    for chunk in b.chunks(255) {
        let (mut s, mut l, mut d) = (0u8, 0u8, 0u8);
        for &x in chunk {
            let w = word_bit(x);
            s += w & (prev ^ 1);
            l += w;
            d += u8::from(x.wrapping_sub(b'0') < 10);
            prev = w;
        }
        starts += usize::from(s);
        letters += usize::from(l);
        digits += usize::from(d);
    }
    (starts, letters, digits)
}

/// What a byte is to [`for_each_word`]: 0 a separator, 1 an ASCII letter, 2 a byte of a
/// character beyond ASCII (which may be a letter), 3 an ASCII digit.
const BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = if b >= 128 {
            2
        } else if (b as u8).is_ascii_digit() {
            3
        } else if (b as u8).is_ascii_alphabetic() {
            1
        } else {
            0
        };
        b += 1;
    }
    t
};

/// Calls `f` with each word of `text` (a run of letters and digits, as splitting at every
/// other character finds them) and whether it holds an ASCII digit. ASCII is read in runs of
/// letters and digits; a character beyond ASCII is decoded to tell a letter from a mark.
fn for_each_word(text: &str, mut f: impl FnMut(&str, bool)) {
    let b = text.as_bytes();
    let n = b.len();
    // Whether the character at `i` (not ASCII) is a letter or digit, and its length.
    let wide = |i: usize| {
        let c = text[i..].chars().next().expect("a char at a boundary");
        (c.is_alphanumeric(), c.len_utf8())
    };
    let mut i = 0;
    while i < n {
        while i < n && BYTE_CLASS[b[i] as usize] == 0 {
            i += 1;
        }
        if i >= n {
            break;
        }
        if BYTE_CLASS[b[i] as usize] == 2 {
            let (alnum, len) = wide(i);
            if !alnum {
                i += len;
                continue;
            }
        }
        let start = i;
        let mut digit = false;
        loop {
            while i < n && matches!(BYTE_CLASS[b[i] as usize], 1 | 3) {
                digit |= BYTE_CLASS[b[i] as usize] == 3;
                i += 1;
            }
            if i < n && BYTE_CLASS[b[i] as usize] == 2 {
                let (alnum, len) = wide(i);
                if alnum {
                    i += len;
                    continue;
                }
            }
            break;
        }
        f(&text[start..i], digit);
    }
}

/// The query terms a text holds, by their place in the query's distinct terms: in order
/// (for pairs) and as a set of bits (the first 64 terms); and its words, the bytes in them
/// and the digits among those ([`counts`]).
struct Terms {
    seq: Vec<u8>,
    set: u64,
    words: usize,
    letters: usize,
    digits: usize,
}

/// The most query terms counted: a question of more than 64 distinct terms is read by its
/// first 64.
const MAX_TERMS: usize = 64;

/// The query terms of each of `texts` ([`Terms`]). Only the words whose first letters are a
/// query term's ([`Wanted`]) are stemmed, each distinct word once, with one analyser, and
/// matched by their place in `q`: stemming every word of 200 notes, and sets of strings,
/// took 12 ms a question.
fn terms_of<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    wanted: &Wanted,
    q: &[&str],
) -> Vec<Terms> {
    // Each distinct matching word (lower case) by number, and each text's words as numbers.
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut distinct: Vec<String> = Vec::new();
    let mut lower = String::new();
    let mut texts_words: Vec<(Vec<u32>, (usize, usize, usize))> = Vec::new();
    for text in texts {
        let mut ids = Vec::new();
        wanted.each_word(text, |w| {
            lower.clear();
            lower.extend(w.chars().flat_map(char::to_lowercase));
            let id = match seen.get(lower.as_str()) {
                Some(&id) => id,
                None => {
                    let id = distinct.len() as u32;
                    seen.insert(lower.clone(), id);
                    distinct.push(lower.clone());
                    id
                }
            };
            ids.push(id);
        });
        texts_words.push((ids, counts(text.as_bytes())));
    }
    // Each distinct word's place among the query terms, once stemmed.
    let place: Vec<Option<u8>> = indexer_index::analyze_many(distinct.iter().map(String::as_str))
        .into_iter()
        .map(|terms| match terms.as_slice() {
            [t] => q
                .iter()
                .take(MAX_TERMS)
                .position(|x| x == t)
                .map(|p| p as u8),
            _ => None,
        })
        .collect();
    texts_words
        .into_iter()
        .map(|(ids, (words, letters, digits))| {
            let seq: Vec<u8> = ids.iter().filter_map(|&id| place[id as usize]).collect();
            let set = seq.iter().fold(0u64, |s, &p| s | (1 << p));
            Terms {
                seq,
                set,
                words,
                letters,
                digits,
            }
        })
        .collect()
}

/// The share of the query's `n` distinct terms (at most [`MAX_TERMS`]) that `set` holds.
fn share(n: usize, set: u64) -> f64 {
    let n = n.min(MAX_TERMS);
    if n == 0 {
        return 0.0;
    }
    f64::from(set.count_ones()) / n as f64
}

/// The features of every entry of `pool`, row-major (`pool.len() x FEATURE_COUNT`), for a
/// question whose searched text has the query terms `terms`. `pages_of` gives a document's
/// page count (for the page's place in it), `None` when unknown.
pub fn features(pool: &Pool, terms: &[String], pages_of: &dyn Fn(&str) -> Option<u32>) -> Vec<f64> {
    let n = pool.len();
    let mut out = vec![0.0; n * FEATURE_COUNT];
    if n == 0 {
        return out;
    }
    let entries = pool.entries();
    let fused = pool.fused();
    let fused_of = |i: usize| fused.get(i).copied().unwrap_or(0.0);
    let best_fused = (0..n).map(fused_of).fold(0.0, f64::max);
    let scale = |v: f64| {
        if best_fused > 0.0 {
            v / best_fused
        } else {
            0.0
        }
    };
    let bm25_best = entries
        .iter()
        .filter_map(|e| e.bm25_score)
        .fold(0.0f32, f32::max);
    let (c_min, c_max) = entries
        .iter()
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e.cosine), hi.max(e.cosine))
        });
    // The fused order (the pool may hold named pages first).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| fused_of(b).total_cmp(&fused_of(a)).then(a.cmp(&b)));
    let mut fused_rank = vec![0usize; n];
    for (r, &i) in order.iter().enumerate() {
        fused_rank[i] = r + 1;
    }
    // Pages and documents among the candidates.
    let page_key = |i: usize| (entries[i].note.doc.as_str(), entries[i].note.page);
    let mut page_best: HashMap<(&str, Option<u32>), f64> = HashMap::new();
    let mut page_sum: HashMap<(&str, Option<u32>), f64> = HashMap::new();
    let mut page_notes: HashMap<(&str, Option<u32>), usize> = HashMap::new();
    let mut doc_best: HashMap<&str, f64> = HashMap::new();
    for i in 0..n {
        let k = page_key(i);
        let f = fused_of(i);
        let b = page_best.entry(k).or_insert(f64::NEG_INFINITY);
        *b = b.max(f);
        *page_sum.entry(k).or_default() += f;
        *page_notes.entry(k).or_default() += 1;
        let d = doc_best.entry(k.0).or_insert(f64::NEG_INFINITY);
        *d = d.max(f);
    }
    let rank_of = |best: Vec<(f64, String)>| -> HashMap<String, usize> {
        let mut best = best;
        best.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        best.into_iter()
            .enumerate()
            .map(|(r, (_, k))| (k, r + 1))
            .collect()
    };
    let mut pages: Vec<((&str, Option<u32>), f64)> =
        page_best.iter().map(|(k, v)| (*k, *v)).collect();
    pages.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let page_rank: HashMap<(&str, Option<u32>), usize> = pages
        .iter()
        .enumerate()
        .map(|(r, (k, _))| (*k, r + 1))
        .collect();
    let doc_rank = rank_of(doc_best.iter().map(|(k, v)| (*v, k.to_string())).collect());
    // Query terms: distinct, their adjacent pairs, and which the fewest candidates hold.
    let mut q: Vec<&str> = Vec::new();
    for t in terms {
        if !q.contains(&t.as_str()) {
            q.push(t);
        }
    }
    // The query's adjacent pairs, by the places of their terms.
    let place_of = |t: &str| {
        q.iter()
            .take(MAX_TERMS)
            .position(|x| *x == t)
            .map(|p| p as u8)
    };
    let pairs: Vec<(u8, u8)> = terms
        .windows(2)
        .filter(|w| w[0] != w[1])
        .filter_map(|w| Some((place_of(&w[0])?, place_of(&w[1])?)))
        .collect();
    let wanted = Wanted::new(&q);
    let text_terms = terms_of(entries.iter().map(|e| e.note.text.as_str()), &wanted, &q);
    let sections: Vec<String> = entries.iter().map(|e| e.note.section.join(" ")).collect();
    let section_terms = terms_of(sections.iter().map(String::as_str), &wanted, &q);
    let caption_terms = terms_of(
        entries
            .iter()
            .map(|e| e.note.caption.as_deref().unwrap_or("")),
        &wanted,
        &q,
    );
    // The query term that the fewest candidates hold (at least one), the first of them.
    let rarest: Option<u8> = (0..q.len().min(MAX_TERMS) as u8)
        .filter_map(|p| {
            let held = text_terms.iter().filter(|t| t.set & (1 << p) != 0).count();
            (held > 0).then_some((held, p))
        })
        .min_by_key(|(held, _)| *held)
        .map(|(_, p)| p);
    let mut page_terms: HashMap<(&str, Option<u32>), u64> = HashMap::new();
    for (i, t) in text_terms.iter().enumerate() {
        *page_terms.entry(page_key(i)).or_default() |= t.set;
    }
    for i in 0..n {
        let e = &entries[i];
        let note = &e.note;
        let k = page_key(i);
        let row = &mut out[i * FEATURE_COUNT..(i + 1) * FEATURE_COUNT];
        let t = &text_terms[i];
        let (words, letters, digits) = (t.words, t.letters, t.digits);
        let neighbour = note.page.map_or(0.0, |p| {
            [p.wrapping_sub(1), p + 1]
                .iter()
                .filter_map(|&np| page_best.get(&(k.0, Some(np))))
                .copied()
                .fold(0.0, f64::max)
        });
        let place = match (note.page, pages_of(&note.doc)) {
            (Some(p), Some(total)) if total > 1 => f64::from(p - 1) / f64::from(total - 1),
            (Some(_), Some(_)) => 0.0,
            _ => f64::NAN,
        };
        let section = &section_terms[i];
        let caption = &caption_terms[i];
        let in_note = &text_terms[i];
        let adjacent: HashSet<(u8, u8)> = in_note.seq.windows(2).map(|w| (w[0], w[1])).collect();
        let values = [
            e.bm25_score
                .filter(|_| bm25_best > 0.0)
                .map_or(0.0, |b| f64::from(b / bm25_best)),
            e.bm25_rank.map_or(0.0, |r| 1.0 / r as f64),
            f64::from(e.cosine),
            if c_max > c_min {
                f64::from((e.cosine - c_min) / (c_max - c_min))
            } else {
                1.0
            },
            e.vector_rank.map_or(0.0, |r| 1.0 / r as f64),
            fused_of(i),
            1.0 / fused_rank[i] as f64,
            f64::from(u8::from(e.bm25_rank.is_some() && e.vector_rank.is_some())),
            f64::from(u8::from(note.kind == indexer_notes::NoteKind::Figure)),
            f64::from(u8::from(note.kind == indexer_notes::NoteKind::Table)),
            f64::from(u8::from(note.is_page_of_numbers())),
            f64::from(u8::from(note.caption.is_some())),
            (1.0 + words as f64).ln(),
            if letters == 0 {
                0.0
            } else {
                digits as f64 / letters as f64
            },
            page_notes[&k] as f64,
            scale(page_best[&k]),
            scale(page_sum[&k]),
            1.0 / page_rank[&k] as f64,
            scale(neighbour),
            place,
            1.0 / doc_rank[k.0] as f64,
            share(q.len(), in_note.set),
            share(q.len(), section.set),
            share(q.len(), caption.set),
            share(q.len(), page_terms[&k]),
            f64::from(u8::from(
                rarest.is_some_and(|p| in_note.set & (1 << p) != 0),
            )),
            if pairs.is_empty() {
                0.0
            } else {
                pairs.iter().filter(|p| adjacent.contains(p)).count() as f64 / pairs.len() as f64
            },
        ];
        row.copy_from_slice(&values);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::PoolEntry;
    use indexer_notes::{Note, NoteKind};

    fn entry(
        id: &str,
        page: u32,
        text: &str,
        bm25: Option<(usize, f32)>,
        cosine: f32,
    ) -> PoolEntry {
        let mut note = Note::new(id, "a.pdf", NoteKind::Text, text);
        note.page = Some(page);
        PoolEntry {
            note,
            cosine,
            bm25_rank: bm25.map(|b| b.0),
            bm25_score: bm25.map(|b| b.1),
            vector_rank: Some(1),
        }
    }

    fn col(name: &str) -> usize {
        feature_names().position(|f| f == name).unwrap()
    }

    #[test]
    fn features_by_their_definitions() {
        let v = vec![1.0, 0.0];
        let pool = Pool::ranked(
            2,
            [
                (
                    entry(
                        "n0",
                        1,
                        "Mosaic plots shade their tiles",
                        Some((1, 8.0)),
                        0.5,
                    ),
                    v.as_slice(),
                    0.8,
                ),
                (
                    entry(
                        "n1",
                        2,
                        "A table of 12 counts and 3 rows",
                        Some((2, 4.0)),
                        0.3,
                    ),
                    v.as_slice(),
                    0.4,
                ),
                (entry("n2", 2, "mosaic tiles", None, 0.1), v.as_slice(), 0.2),
            ],
        );
        let terms = query_terms("How are the tiles of a mosaic plot shaded?");
        assert_eq!(terms, ["tile", "mosaic", "plot", "shade"]);
        let f = features(&pool, &terms, &|_| Some(3));
        let get = |row: usize, name: &str| f[row * FEATURE_COUNT + col(name)];
        assert_eq!(get(0, "bm25"), 1.0);
        assert_eq!(get(1, "bm25"), 0.5);
        assert_eq!(get(2, "bm25"), 0.0);
        assert_eq!(get(1, "bm25_rr"), 0.5);
        assert_eq!(get(0, "cosine_scaled"), 1.0);
        assert_eq!(get(2, "cosine_scaled"), 0.0);
        assert_eq!(get(2, "fused_rr"), 1.0 / 3.0);
        assert_eq!(get(1, "page_notes"), 2.0);
        assert_eq!(get(2, "page_best"), 0.5);
        assert!((get(2, "page_sum") - 0.75).abs() < 1e-12);
        assert_eq!(get(2, "page_rr"), 0.5);
        assert_eq!(get(0, "neighbour_best"), 0.5);
        assert_eq!(get(2, "page_place"), 0.5);
        assert_eq!(get(0, "terms_text"), 1.0);
        assert_eq!(get(2, "terms_text"), 0.5);
        assert_eq!(get(1, "terms_page"), 0.5);
        // "A table of 12 counts and 3 rows": 3 digits of 24 letters and digits.
        assert!((get(1, "number_share") - 3.0 / 24.0).abs() < 1e-12);
        assert_eq!(get(0, "length"), 6f64.ln());
        // "shade" and "plot" are held by one candidate: the first of them is the rarest.
        assert_eq!(get(0, "rarest"), 1.0);
        assert_eq!(get(2, "rarest"), 0.0);
        // Pairs of the query: (tile, mosaic), (mosaic, plot), (plot, shade); n0 has the last two.
        assert!((get(0, "bigrams") - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(get(0, "doc_rr"), 1.0);
        // An unknown page count: the page's place is missing.
        let f = features(&pool, &terms, &|_| None);
        assert!(f[col("page_place")].is_nan());
    }

    #[test]
    fn words_are_found_as_a_split_finds_them() {
        for text in [
            "",
            "Mosaic plots, 2015!",
            "  Résumé—naïve café x1 ",
            "a",
            "über-ß",
        ] {
            let mut got = Vec::new();
            for_each_word(text, |w, digit| {
                assert_eq!(digit, w.bytes().any(|b| b.is_ascii_digit()), "{w}");
                got.push(w.to_string())
            });
            let want: Vec<&str> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .collect();
            assert_eq!(got, want, "{text:?}");
        }
    }

    /// The words the prefix search finds are the words of the text that start with a
    /// query term's first letters, as reading every word finds them.
    #[test]
    fn the_prefix_search_finds_the_words_reading_finds() {
        let texts = [
            "Mosaic plots shade their tiles; the MOSAIC's tile-shading (2015)",
            "résumé motif mosaïque plot plotting xmosaic mosaic",
            "",
            "mo",
        ];
        for terms in [
            vec!["mosaic", "plot", "shade"],
            vec!["mo"],
            vec!["mosaïqu", "plot"],
        ] {
            let wanted = Wanted::new(&terms);
            for text in texts {
                let mut got = Vec::new();
                wanted.each_word(text, |w| got.push(w.to_string()));
                let mut want = Vec::new();
                for_each_word(text, |w, _| {
                    let lower: Vec<char> = w.chars().flat_map(char::to_lowercase).collect();
                    if terms.iter().any(|t| {
                        let p: Vec<char> = t.chars().take(3).collect();
                        lower.starts_with(&p)
                    }) {
                        want.push(w.to_string());
                    }
                });
                assert_eq!(got, want, "{terms:?} in {text:?}");
            }
        }
        assert_eq!(counts(b"ab 12 x-9"), (4, 6, 3));
        assert_eq!(counts(b""), (0, 0, 0));
        for x in 0..=255u8 {
            assert_eq!(word_bit(x) == 1, word_byte(x), "{x}");
        }
        let long = "word 1 ".repeat(100);
        assert_eq!(counts(long.as_bytes()), (200, 500, 100));
    }

    /// `docs/ranking.md` lists every feature with the words of `FEATURES`.
    #[test]
    fn the_feature_table_of_the_docs_is_this_one() {
        let doc = include_str!("../../../../docs/ranking.md");
        for (name, what) in FEATURES {
            let row = format!("| `{name}` | {what} |");
            assert!(doc.contains(&row), "docs/ranking.md lacks {row}");
        }
        let rows = doc.lines().filter(|l| l.starts_with("| `")).count();
        assert_eq!(rows, FEATURE_COUNT, "docs/ranking.md lists {rows} features");
    }

    #[test]
    fn every_feature_is_documented_once() {
        let names: HashSet<&str> = feature_names().collect();
        assert_eq!(names.len(), FEATURE_COUNT);
        for (name, doc) in FEATURES {
            assert!(
                !doc.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit()),
                "{name}"
            );
        }
        assert!(features(&Pool::default(), &[], &|_| None).is_empty());
    }
}
