//! Prefix and typo matching on a real tantivy index: what a search box needs (a word typed
//! partway, a word misspelt) and what it must not do (correct a word the index holds, let a
//! completion outrank the word typed).

use crate::common::*;
use indexer_index::{
    Filter, Index, Matching, TYPO_MIN_CHARS, TYPO2_MIN_CHARS, Writer, edit_distance,
};
use rand::Rng;

const NOTES: [&str; 8] = [
    "A mosaic plot shows the cells of a contingency table as tiles.",
    "The plot command draws lines and points.",
    "The plotmath package typesets formulas in labels.",
    "Configuration of the server is read from a file at start.",
    "A sieve diagram compares observed and expected frequencies.",
    "Residual shading marks the cells that deviate from independence.",
    "The display of a model summary lists its coefficients.",
    "Probability distributions of the counts under the model.",
];

fn build() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", 2).unwrap();
    let texts: Vec<String> = NOTES.iter().map(|s| s.to_string()).collect();
    let (doc, v) = document("d", "h", &texts, |_| vec![1.0, 0.0]);
    w.upsert(doc, v).unwrap();
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

/// The word's stem, by the analyzer of the index's text fields.
fn stem(word: &str) -> Vec<char> {
    let mut a = tantivy_stemmer();
    let mut s = a.token_stream(word);
    assert!(s.advance());
    s.token().text.chars().collect()
}

fn tantivy_stemmer() -> tantivy::tokenizer::TextAnalyzer {
    tantivy::tokenizer::TokenizerManager::default()
        .get("en_stem")
        .unwrap()
}

/// The stems of every string one edit from `w` (not on its first letter): the reference of
/// the module's variant search, written out by brute force.
fn one_edit_stems(w: &[char]) -> Vec<Vec<char>> {
    let mut out = Vec::new();
    let s: String = w.iter().collect();
    let letters: Vec<char> = ('a'..='z').collect();
    for i in 1..=w.len() {
        let mut cands: Vec<String> = Vec::new();
        if i < w.len() {
            cands.push(format!("{}{}", &s[..i], &s[i + 1..]));
            for c in &letters {
                cands.push(format!("{}{c}{}", &s[..i], &s[i + 1..]));
            }
        }
        if i + 1 < w.len() {
            let mut v = w.to_vec();
            v.swap(i, i + 1);
            cands.push(v.iter().collect());
        }
        for c in &letters {
            cands.push(format!("{}{c}{}", &s[..i], &s[i..]));
        }
        out.extend(cands.iter().map(|c| stem(c)));
    }
    out
}

/// The notes (as indices into NOTES) BM25 finds for `q`, best first.
fn found(index: &Index, q: &str, m: Matching) -> Vec<usize> {
    let e = index.expand(q, m).unwrap();
    index
        .bm25_expanded(q, 10, &Filter::default(), Some(&e))
        .unwrap()
        .into_iter()
        .map(|(o, _)| o)
        .collect()
}

#[test]
fn the_last_word_is_a_prefix() {
    let (_d, index) = build();
    assert!(found(&index, "mosa", Matching::EXACT).is_empty());
    assert_eq!(found(&index, "mosa", Matching::TYPING)[0], 0);
    // Past its stem: "configura" is on its way to "configuration", indexed as "configur".
    assert_eq!(found(&index, "configura", Matching::TYPING), [3]);
    // Only the last word: "mosa plot" finds plots, not mosaics first.
    assert!(found(&index, "mosa sieve", Matching::TYPING).first() == Some(&4));
    // The word typed outranks its completions.
    let plot = found(&index, "plot", Matching::TYPING);
    assert!(
        plot.contains(&2),
        "plotmath is a completion of plot: {plot:?}"
    );
    assert!(
        plot.iter().position(|&i| i == 1) < plot.iter().position(|&i| i == 2),
        "{plot:?}"
    );
    assert!(!found(&index, "plot", Matching::EXACT).contains(&2));
}

#[test]
fn misspelt_words_are_corrected_and_held_words_are_not() {
    let (_d, index) = build();
    assert!(found(&index, "mosaik", Matching::EXACT).is_empty());
    assert_eq!(found(&index, "mosaik", Matching::TYPING)[0], 0);
    assert_eq!(found(&index, "sieev diagarm", Matching::TYPOS)[0], 4);
    // Two edits from 9 letters.
    assert_eq!(found(&index, "probabiltiy", Matching::TYPOS)[0], 7);
    // Under 5 letters nothing is corrected.
    assert!(found(&index, "ploq", Matching::TYPOS).is_empty());
    // "model" is in the index: no corrections of it (such as "mode", "modes").
    let e = index.expand("model", Matching::TYPOS).unwrap();
    assert!(e.is_empty(), "{:?}", e.words("model").collect::<Vec<_>>());
}

#[test]
fn the_encoder_reads_the_repaired_query() {
    let (_d, index) = build();
    let q = "Mosaik plott for resdual shading";
    let e = index.expand(q, Matching::TYPING).unwrap();
    assert_eq!(e.repaired(q), "mosaic plot for residu shading");
    assert_eq!(index.expand(q, Matching::EXACT).unwrap().repaired(q), q);
}

/// Property: a word of the index with one random edit (not on its first letter) is found
/// again, and every term it expands to is within the allowed distance of the word typed, of
/// its stem or of a cut of it (the definition the module states).
#[test]
fn random_typos_find_the_word_within_the_distance() {
    let (_d, index) = build();
    let vocab: Vec<&str> = NOTES
        .iter()
        .flat_map(|n| n.split(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.len() >= TYPO_MIN_CHARS)
        .collect();
    let mut rng = rng(17);
    let mut tried = 0;
    for _ in 0..300 {
        let word = vocab[rng.random_range(0..vocab.len())].to_lowercase();
        let mut chars: Vec<char> = word.chars().collect();
        let at = rng.random_range(1..chars.len());
        match rng.random_range(0..3) {
            0 => chars[at] = (b'a' + rng.random_range(0..26u8)) as char,
            1 => {
                chars.remove(at);
            }
            _ => {
                if at + 1 < chars.len() {
                    chars.swap(at, at + 1);
                }
            }
        }
        let typo: String = chars.iter().collect();
        if typo.len() < TYPO_MIN_CHARS
            || vocab.iter().any(|v| v.eq_ignore_ascii_case(&typo))
            || index
                .expand(&typo, Matching::EXACT)
                .map(|_| !found(&index, &typo, Matching::EXACT).is_empty())
                .unwrap()
        {
            continue;
        }
        tried += 1;
        let want: Vec<usize> = NOTES
            .iter()
            .enumerate()
            .filter(|(_, n)| n.to_lowercase().contains(&word))
            .map(|(i, _)| i)
            .collect();
        let got = found(&index, &typo, Matching::TYPOS);
        assert!(
            want.iter().any(|w| got.contains(w)),
            "{typo:?} (from {word:?}) found {got:?}, not {want:?}"
        );
        let d = if typo.chars().count() >= TYPO2_MIN_CHARS {
            2
        } else {
            1
        };
        let e = index.expand(&typo, Matching::TYPOS).unwrap();
        let typed: Vec<char> = typo.chars().collect();
        for (_, terms) in e.words(&typo) {
            for t in terms {
                let t: Vec<char> = t.chars().collect();
                let stem = stem(&typo);
                // The nearest of: the word, its stem, its cuts, or the stem of a word one
                // edit away (checked by the stemmer, which is what the index holds).
                let near = (0..=4.min(typed.len().saturating_sub(4)))
                    .any(|cut| edit_distance(&typed[..typed.len() - cut], &t) <= d)
                    || edit_distance(&stem, &t) <= d
                    || one_edit_stems(&typed).contains(&t);
                assert!(near, "{typo:?} expanded to {t:?}");
            }
        }
    }
    assert!(tried > 100, "only {tried} typos tried");
}
