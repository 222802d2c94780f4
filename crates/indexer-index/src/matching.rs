//! How the words of a query match the index's terms beyond the exact stems the query parser
//! looks up: the last word as a prefix (people search as they type) and, for a word the index
//! does not hold, its terms within a small edit distance (typos).
//!
//! Both work on the term dictionaries of the searched fields (a range scan for a prefix; a
//! Levenshtein automaton and a few hundred exact lookups for a typo), so their cost grows with
//! the number of matching terms, not with the number of notes. The index holds stems, so a
//! word is also matched through its stem, its cuts (where its stem may end) and the stems of
//! the strings one edit from it. An expansion is an ordinary BM25 term query on every searched
//! field; one query word counts once however many terms it expands to (the best of them
//! scores). A word the index does not hold counts in full through its guesses; the completions
//! of a word it holds count [`EXPANSION_WEIGHT`] beside it. A word the index holds is never
//! corrected.

use std::collections::HashMap;
use tantivy::query::{
    BooleanQuery, BoostQuery, DisjunctionMaxQuery, FuzzyTermQuery, Occur, Query, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::termdict::TermDictionary;
use tantivy::tokenizer::{LowerCaser, SimpleTokenizer, TextAnalyzer};
use tantivy::{Searcher, Term};

/// Which expansions a query gets. [`Matching::EXACT`] is the query parser alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Matching {
    /// The last word also matches the terms it is the beginning of (at least
    /// [`PREFIX_MIN_CHARS`] characters).
    pub prefix: bool,
    /// A word of [`TYPO_MIN_CHARS`] or more characters that no searched field holds matches the
    /// terms at edit distance 1 ([`TYPO2_MIN_CHARS`] or more: 2), a transposition counting one.
    pub typos: bool,
}

impl Matching {
    pub const EXACT: Matching = Matching {
        prefix: false,
        typos: false,
    };
    /// The last word as a prefix.
    pub const PREFIX: Matching = Matching {
        prefix: true,
        typos: false,
    };
    /// Corrections of misspelt words.
    pub const TYPOS: Matching = Matching {
        prefix: false,
        typos: true,
    };
    /// What a search box wants: prefix and typos.
    pub const TYPING: Matching = Matching {
        prefix: true,
        typos: true,
    };
}

impl std::fmt::Display for Matching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.prefix, self.typos) {
            (false, false) => "exact",
            (true, false) => "prefix",
            (false, true) => "typos",
            (true, true) => "typing",
        })
    }
}

impl std::str::FromStr for Matching {
    type Err = String;
    /// `exact`, `prefix`, `typos` or `typing` (prefix and typos).
    fn from_str(s: &str) -> Result<Matching, String> {
        let (prefix, typos) = match s.trim() {
            "exact" => (false, false),
            "prefix" => (true, false),
            "typos" => (false, true),
            "typing" => (true, true),
            _ => {
                return Err(format!(
                    "matching must be exact, prefix, typos or typing, not {s:?}"
                ));
            }
        };
        Ok(Matching { prefix, typos })
    }
}

/// The score weight of a completion of a word the index holds, against 1 for the word as
/// typed: another word it may become counts half.
pub const EXPANSION_WEIGHT: f32 = 0.5;
/// A last word shorter than this is not completed (one letter says nothing).
pub const PREFIX_MIN_CHARS: usize = 2;
/// Completions kept for the last word: the terms in the most notes.
pub const PREFIX_TERMS: usize = 30;
/// Shorter words are never corrected: at 4 letters one edit reaches too many other words.
pub const TYPO_MIN_CHARS: usize = 5;
/// Words this long are corrected at edit distance 2.
pub const TYPO2_MIN_CHARS: usize = 9;
/// Corrections kept for a word: the nearest, then the terms in the most notes.
pub const TYPO_TERMS: usize = 10;

/// A term of the index and the notes it is in (summed over the searched fields and segments).
type Found = HashMap<String, u64>;

/// The expansions of a query's words, found once per query: BM25 searches them beside the
/// words as typed (`Expansions::query`), and the encoder reads the query with each word the
/// index does not hold replaced by its best expansion ([`Expansions::repaired`]), since an
/// encoder cannot read half a word or a misspelt one either.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansions {
    words: Vec<Expanded>,
}

#[derive(Debug, Clone, PartialEq)]
struct Expanded {
    /// The word's byte range in the query.
    span: (usize, usize),
    /// Index terms (stems), best first: completions by the notes they are in, then
    /// corrections by their distance.
    terms: Vec<String>,
    /// The word as typed is no term of the index: unfinished or misspelt.
    guessed: bool,
}

impl Expanded {
    /// A word the index does not hold counts in full through its guesses; the completions of
    /// a word it holds count [`EXPANSION_WEIGHT`] beside the word itself.
    fn weight(&self) -> f32 {
        if self.guessed { 1.0 } else { EXPANSION_WEIGHT }
    }
}

impl Expansions {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// (the word as typed, its terms best first) for each expanded word, in query order.
    pub fn words<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (&'a str, &'a [String])> {
        self.words
            .iter()
            .map(move |w| (&text[w.span.0..w.span.1], w.terms.as_slice()))
    }

    /// The query with each word the index does not hold replaced by its best term.
    pub fn repaired(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for w in self.words.iter().filter(|w| w.guessed) {
            out.push_str(&text[at..w.span.0]);
            out.push_str(&w.terms[0]);
            at = w.span.1;
        }
        out.push_str(&text[at..]);
        out
    }

    /// The expansions as one BM25 query (a `Should` clause per word, the best of its terms
    /// scoring), `None` when there are none.
    pub(crate) fn query(&self, fields: &[(Field, f32)]) -> Option<Box<dyn Query>> {
        let clauses: Vec<(Occur, Box<dyn Query>)> = self
            .words
            .iter()
            .map(|w| {
                let per_term: Vec<Box<dyn Query>> = w
                    .terms
                    .iter()
                    .map(|t| {
                        let on_fields: Vec<(Occur, Box<dyn Query>)> = fields
                            .iter()
                            .map(|&(field, boost)| {
                                let q = TermQuery::new(
                                    Term::from_field_text(field, t),
                                    IndexRecordOption::WithFreqs,
                                );
                                let q = BoostQuery::new(Box::new(q), boost * w.weight());
                                (Occur::Should, Box::new(q) as Box<dyn Query>)
                            })
                            .collect();
                        Box::new(BooleanQuery::new(on_fields)) as Box<dyn Query>
                    })
                    .collect();
                let q: Box<dyn Query> = Box::new(DisjunctionMaxQuery::new(per_term));
                (Occur::Should, q)
            })
            .collect();
        (!clauses.is_empty()).then(|| Box::new(BooleanQuery::new(clauses)) as Box<dyn Query>)
    }
}

/// Finds the expansions `m` asks for of the words of `text`. `stemmer` is the searched fields'
/// analyzer (the query parser's), which gives a word's indexed form.
pub(crate) fn expand(
    searcher: &Searcher,
    fields: &[(Field, f32)],
    stemmer: &mut TextAnalyzer,
    text: &str,
    m: Matching,
) -> tantivy::Result<Expansions> {
    let mut out = Expansions::default();
    if m == Matching::EXACT {
        return Ok(out);
    }
    let words = words(text);
    for (i, (word, span)) in words.iter().enumerate() {
        let stem = stem_of(stemmer, word);
        let chars: Vec<char> = word.chars().collect();
        let is_held = held(searcher, fields, &stem)?;
        let mut terms: Vec<String> = Vec::new();
        if m.prefix && i + 1 == words.len() && chars.len() >= PREFIX_MIN_CHARS {
            let mut found = Found::new();
            for &(field, _) in fields {
                for seg in searcher.segment_readers() {
                    let dict = seg.inverted_index(field)?;
                    prefix_terms(dict.terms(), word.as_bytes(), &mut found)?;
                }
            }
            // Nothing begins with what is typed, and it is no word of the index: it may be past
            // the stem of the word being typed ("configura" on its way to "configuration",
            // indexed as "configur"). The longest cut the index holds stands for it.
            if found.is_empty() && !is_held {
                for cut in stem_cuts(&chars) {
                    if held(searcher, fields, &cut)? {
                        found.insert(cut, 1);
                        break;
                    }
                }
            }
            found.remove(&stem);
            terms.extend(top(found, PREFIX_TERMS, |_| 0));
        }
        if m.typos && chars.len() >= TYPO_MIN_CHARS && !is_held {
            let distance = if chars.len() >= TYPO2_MIN_CHARS { 2 } else { 1 };
            // A term may be the stem of the word meant, shorter than it or spelt otherwise: a
            // term's cost is its edit distance to the nearest target, plus half a point per
            // character cut.
            let mut cost: HashMap<String, usize> = HashMap::new();
            let mut found = Found::new();
            // (target, characters cut): the word, its stem as the analyzer makes it (which
            // may differ in more than its end: "summary" is indexed as "summari"), its cuts.
            let mut targets = vec![(word.clone(), 0)];
            if stem != *word {
                targets.push((stem.clone(), 0));
            }
            targets.extend(
                stem_cuts(&chars)
                    .into_iter()
                    .enumerate()
                    .map(|(k, c)| (c, k + 1)),
            );
            for (target, cut) in &targets {
                let (target, cut) = (target, *cut);
                let t_chars: Vec<char> = target.chars().collect();
                for &(field, _) in fields {
                    let automaton =
                        FuzzyTermQuery::new(Term::from_field_text(field, target), distance, true)
                            .automaton()?;
                    for seg in searcher.segment_readers() {
                        let dict = seg.inverted_index(field)?;
                        let mut s = dict.terms().search(&automaton).into_stream()?;
                        while s.advance() {
                            let term = String::from_utf8_lossy(s.key()).into_owned();
                            let c = 2 * edit_distance(&t_chars, &term.chars().collect::<Vec<_>>())
                                + cut;
                            let e = cost.entry(term.clone()).or_insert(c);
                            *e = (*e).min(c);
                            let df = found.entry(term).or_insert(0);
                            *df = (*df).max(u64::from(s.value().doc_freq));
                        }
                    }
                }
            }
            // One edit of the word as typed whose stem the index holds ("shding" is one
            // letter from "shading", indexed as "shade", which no edit of the stem reaches).
            if distance == 1 || cost.is_empty() {
                for v in edits1(&chars) {
                    let st = stem_of(stemmer, &v);
                    if st != stem && !cost.contains_key(&st) && held(searcher, fields, &st)? {
                        cost.insert(st.clone(), 2);
                        found.insert(st, 1);
                    }
                }
            }
            // Only the nearest: within a point of the best.
            let best = cost.values().copied().min().unwrap_or(0);
            found.retain(|t, _| cost[t] <= best + 2);
            terms.extend(top(found, TYPO_TERMS, |t| cost[t]));
        }
        let mut seen = std::collections::HashSet::new();
        terms.retain(|t| seen.insert(t.clone()));
        if !terms.is_empty() {
            out.words.push(Expanded {
                span: *span,
                terms,
                guessed: !is_held,
            });
        }
    }
    Ok(out)
}

/// The words of a query, lower-cased, in order (the tokenizer of the searched fields without
/// its stemmer).
fn words(text: &str) -> Vec<(String, (usize, usize))> {
    let mut a = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(LowerCaser)
        .build();
    let mut out = Vec::new();
    let mut s = a.token_stream(text);
    while s.advance() {
        let t = s.token();
        out.push((t.text.clone(), (t.offset_from, t.offset_to)));
    }
    out
}

/// A word's indexed form (its stem); the word itself if the analyzer drops it.
fn stem_of(stemmer: &mut TextAnalyzer, word: &str) -> String {
    let mut s = stemmer.token_stream(word);
    if s.advance() {
        s.token().text.clone()
    } else {
        word.to_string()
    }
}

/// The longest characters a stemmer takes off a word ("-ation" of "configuration" leaves
/// "configur"; most take one to four).
const STEM_SUFFIX_MAX: usize = 4;
/// Cuts shorter than this are never tried: a stem of three letters is a different word.
const STEM_MIN_CHARS: usize = 4;

/// The word without its last 1 to [`STEM_SUFFIX_MAX`] characters, longest first, each at least
/// [`STEM_MIN_CHARS`] long: where its stem may end.
fn stem_cuts(chars: &[char]) -> Vec<String> {
    (1..=STEM_SUFFIX_MAX)
        .filter(|&k| chars.len() >= STEM_MIN_CHARS + k)
        .map(|k| chars[..chars.len() - k].iter().collect())
        .collect()
}

/// Every string one edit from `word` (a letter deleted, inserted or replaced, two neighbours
/// swapped; letters a to z), none on its first letter, which people rarely get wrong.
fn edits1(word: &[char]) -> Vec<String> {
    let mut out = std::collections::BTreeSet::new();
    let s = |v: &[char]| v.iter().collect::<String>();
    for i in 1..=word.len() {
        if i < word.len() {
            let mut v = word.to_vec();
            v.remove(i);
            out.insert(s(&v));
        }
        if i + 1 < word.len() {
            let mut v = word.to_vec();
            v.swap(i, i + 1);
            out.insert(s(&v));
        }
        for c in 'a'..='z' {
            let mut v = word.to_vec();
            v.insert(i, c);
            out.insert(s(&v));
            if i < word.len() && word[i] != c {
                let mut v = word.to_vec();
                v[i] = c;
                out.insert(s(&v));
            }
        }
    }
    out.into_iter().collect()
}

/// Whether any searched field holds the term.
fn held(searcher: &Searcher, fields: &[(Field, f32)], term: &str) -> tantivy::Result<bool> {
    for &(field, _) in fields {
        if searcher.doc_freq(&Term::from_field_text(field, term))? > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Adds the terms of `dict` that begin with `prefix`, with their note counts.
fn prefix_terms(dict: &TermDictionary, prefix: &[u8], found: &mut Found) -> std::io::Result<()> {
    let mut range = dict.range().ge(prefix);
    if let Some(end) = prefix_end(prefix) {
        range = range.lt(end);
    }
    let mut s = range.into_stream()?;
    while s.advance() {
        if s.key().starts_with(prefix) {
            *found
                .entry(String::from_utf8_lossy(s.key()).into_owned())
                .or_default() += u64::from(s.value().doc_freq);
        }
    }
    Ok(())
}

/// The smallest byte string greater than every string that begins with `prefix`; `None` when
/// there is none (all bytes 0xFF).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// The `n` terms with the smallest `rank`, then in the most notes, then in byte order.
fn top(found: Found, n: usize, rank: impl Fn(&str) -> usize) -> Vec<String> {
    let mut v: Vec<(usize, u64, String)> =
        found.into_iter().map(|(t, df)| (rank(&t), df, t)).collect();
    v.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    v.into_iter().take(n).map(|(_, _, t)| t).collect()
}

/// Edit distance with adjacent transpositions costing one (optimal string alignment), the
/// distance the automaton matches with.
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[n][m]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn edit_distance_counts_a_transposition_once() {
        assert_eq!(edit_distance(&chars("mosaik"), &chars("mosaic")), 1);
        assert_eq!(edit_distance(&chars("plott"), &chars("plot")), 1);
        assert_eq!(edit_distance(&chars("form"), &chars("from")), 1);
        assert_eq!(edit_distance(&chars("kitten"), &chars("sitting")), 3);
        assert_eq!(edit_distance(&chars(""), &chars("abc")), 3);
    }

    #[test]
    fn stem_cuts_leave_at_least_four_letters() {
        assert_eq!(
            stem_cuts(&chars("complexuty")),
            ["complexut", "complexu", "complex", "comple"]
        );
        assert_eq!(stem_cuts(&chars("plott")), ["plot"]);
        assert!(stem_cuts(&chars("mosa")).is_empty());
    }

    #[test]
    fn edits1_are_one_edit_away_and_keep_the_first_letter() {
        let w = chars("shding");
        let e = edits1(&w);
        assert!(e.contains(&"shading".to_string()));
        assert!(e.contains(&"shidng".to_string()));
        for v in &e {
            assert!(v.starts_with('s'), "{v}");
            assert_eq!(edit_distance(&w, &chars(v)), 1, "{v}");
        }
    }

    #[test]
    fn prefix_end_is_the_next_string_after_every_completion() {
        assert_eq!(prefix_end(b"mos").unwrap(), b"mot");
        assert_eq!(prefix_end(&[b'a', 0xFF]).unwrap(), b"b");
        assert_eq!(prefix_end(&[0xFF, 0xFF]), None);
    }

    #[test]
    fn matching_names_round_trip() {
        for name in ["exact", "prefix", "typos", "typing"] {
            assert_eq!(name.parse::<Matching>().unwrap().to_string(), name);
        }
        assert_eq!("typing".parse::<Matching>().unwrap(), Matching::TYPING);
        assert!("fuzzy".parse::<Matching>().is_err());
    }

    #[test]
    fn words_are_lower_cased_tokens_in_order() {
        let w: Vec<String> = words("Mosaik  plott, R-2")
            .into_iter()
            .map(|w| w.0)
            .collect();
        assert_eq!(w, ["mosaik", "plott", "r", "2"]);
        assert_eq!(words("Mosaik  plott")[1].1, (8, 13));
    }
}
