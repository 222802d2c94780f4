//! The candidates of a question as a selector reads them: [`Pool`], its entries, and what the
//! structured selectors need of each (document, page, kind, first-stage ranks, links).
//!
//! A pool is made one way ([`Pool::ranked`] for the first stage's candidates, [`Pool::unranked`]
//! for every note of some documents), and holds its invariants: entries, vectors, fused scores
//! and note information of the same length; a ranked pool in its ranking order (named pages
//! first, then by fused score); links between entries that exist. The readers fill it, the
//! named-pages stage ranks pages first in it ([`Pool::put_first`]), selection reads it.

use crate::Result;
use indexer_notes::Note;
use indexer_rerank::{Candidates, NoteInfo, Selection, Selector, SelectorKind};
use std::collections::{HashMap, HashSet};

/// One candidate note with what the first stage knows of it.
#[derive(Debug, Clone)]
pub struct PoolEntry {
    pub note: Note,
    /// Cosine of the note and the query.
    pub cosine: f32,
    /// 1-based rank among the BM25 candidates, if it was one.
    pub bm25_rank: Option<usize>,
    /// Its BM25 score, if it was a BM25 candidate.
    pub bm25_score: Option<f32>,
    /// 1-based rank among the vector candidates, if it was one.
    pub vector_rank: Option<usize>,
}

/// How the ranking stage places an entry before relevance: the notes of a page the question
/// names come first (the page that shows the number before the page at its place in the
/// file), then every other note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Tier {
    /// A note of a page the question does not name.
    #[default]
    Other,
    /// A note of the page at a named number's place in the file, when another page shows the
    /// number.
    Placed,
    /// A note of a page the question names.
    Named,
}

/// The candidates a selector chooses from: notes with their vectors, the links among them and,
/// for a ranked pool, the fused first-stage scores. The one input of selection for `search`
/// and for `indexer eval`.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    entries: Vec<PoolEntry>,
    /// `entries.len() x dim`, row-major.
    vectors: Vec<f32>,
    dim: usize,
    /// Links between entries (from, to), as indices into `entries`, without self-links or
    /// repeats.
    links: Vec<(usize, usize)>,
    /// The first stage's fused score of each entry; empty for an unranked pool.
    fused: Vec<f64>,
    /// The ranking stage's tier of each entry; empty when every entry is [`Tier::Other`].
    tiers: Vec<Tier>,
    /// What the structured selectors read of each entry besides its vector: document, page,
    /// kind and first-stage ranks.
    info: Vec<NoteInfo>,
}

impl Pool {
    /// The first stage's candidates, each with its vector (`dim` values) and fused score, in
    /// any order: the pool holds them by fused score, best first (ties keep the order given).
    /// A candidate whose vector is not `dim` long is left out.
    pub fn ranked<'v>(
        dim: usize,
        candidates: impl IntoIterator<Item = (PoolEntry, &'v [f32], f64)>,
    ) -> Pool {
        let mut pool = Pool {
            dim,
            ..Pool::default()
        };
        for (entry, v, fused) in candidates {
            if v.len() != dim {
                continue;
            }
            pool.entries.push(entry);
            pool.vectors.extend_from_slice(v);
            pool.fused.push(fused);
        }
        pool.rank();
        pool
    }

    /// Notes without first-stage scores (every note of some documents), kept in the order
    /// given.
    pub fn unranked<'v>(
        dim: usize,
        notes: impl IntoIterator<Item = (PoolEntry, &'v [f32])>,
    ) -> Pool {
        let mut pool = Pool {
            dim,
            ..Pool::default()
        };
        for (entry, v) in notes {
            if v.len() != dim {
                continue;
            }
            pool.entries.push(entry);
            pool.vectors.extend_from_slice(v);
        }
        pool.refresh();
        pool
    }

    /// The ranking stage of named pages: the entries whose note ids `tiers` names get those
    /// tiers, `joining` (notes of those pages the first stage did not find, with their
    /// vectors) join with a fused score of 0, and the pool is ordered by tier, then fused
    /// score. The fused scores of the other entries do not change. A no-op on an unranked
    /// pool.
    pub(crate) fn put_first(
        &mut self,
        tiers: &HashMap<String, Tier>,
        joining: Vec<(PoolEntry, Vec<f32>)>,
    ) {
        if self.fused.len() != self.entries.len() || tiers.is_empty() {
            return;
        }
        for (entry, v) in joining {
            if v.len() != self.dim {
                continue;
            }
            self.entries.push(entry);
            self.vectors.extend_from_slice(&v);
            self.fused.push(0.0);
        }
        self.tiers = self
            .entries
            .iter()
            .map(|e| tiers.get(&e.note.id).copied().unwrap_or_default())
            .collect();
        self.rank();
    }

    /// A second ranking stage's scores in place of the fused scores (one an entry), and the
    /// pool ordered by tier, then them. A no-op on an unranked pool or scores of another
    /// length.
    pub(crate) fn rescore(&mut self, scores: Vec<f64>) {
        if self.fused.len() != self.entries.len() || scores.len() != self.entries.len() {
            return;
        }
        self.fused = scores;
        self.rank();
    }

    /// Orders the entries by tier, then fused score (a stable sort: ties keep their order),
    /// and recomputes what depends on the order.
    fn rank(&mut self) {
        let n = self.entries.len();
        let tier = |i: usize| self.tiers.get(i).copied().unwrap_or_default();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| {
            tier(b)
                .cmp(&tier(a))
                .then(self.fused[b].total_cmp(&self.fused[a]))
        });
        if order.iter().enumerate().any(|(i, &j)| i != j) {
            let mut entries: Vec<Option<PoolEntry>> = std::mem::take(&mut self.entries)
                .into_iter()
                .map(Some)
                .collect();
            let mut vectors = Vec::with_capacity(self.vectors.len());
            for &i in &order {
                self.entries
                    .push(entries[i].take().expect("each index once"));
                vectors.extend_from_slice(&self.vectors[i * self.dim..(i + 1) * self.dim]);
            }
            self.vectors = vectors;
            self.fused = order.iter().map(|&i| self.fused[i]).collect();
            if !self.tiers.is_empty() {
                self.tiers = order.iter().map(|&i| self.tiers[i]).collect();
            }
        }
        self.refresh();
    }

    /// Recomputes the note information and the links from the entries.
    fn refresh(&mut self) {
        self.info = note_info(&self.entries);
        self.links = links_among(&self.entries);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in the pool's order.
    pub fn entries(&self) -> &[PoolEntry] {
        &self.entries
    }

    /// The entries, taken out of the pool.
    pub fn into_entries(self) -> Vec<PoolEntry> {
        self.entries
    }

    /// The fused score of each entry; empty for an unranked pool.
    pub fn fused(&self) -> &[f64] {
        &self.fused
    }

    /// The tier of entry `i` in the ranking stage.
    pub fn tier(&self, i: usize) -> Tier {
        self.tiers.get(i).copied().unwrap_or_default()
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The vector of entry `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dim..(i + 1) * self.dim]
    }

    /// The selector's view of the pool.
    pub fn candidates<'a>(&'a self, query: &'a [f32], query_text: &'a str) -> Candidates<'a> {
        Candidates {
            query,
            notes: &self.vectors,
            dim: self.dim,
            links: &self.links,
            query_text,
            fused: &self.fused,
            info: &self.info,
            rrf_k: Some(indexer_index::RRF_K),
        }
    }

    /// Chooses up to `budget` entries with the selector `kind` (default options).
    pub fn select(
        &self,
        query: &[f32],
        query_text: &str,
        kind: SelectorKind,
        budget: usize,
    ) -> Result<Selection> {
        self.select_with(
            indexer_rerank::selector(kind).as_ref(),
            query,
            query_text,
            budget,
        )
    }

    /// Chooses up to `budget` entries with a configured selector (a
    /// [`SelectorSpec`](indexer_rerank::SelectorSpec) built, for a parameter grid).
    ///
    /// When the ranking stage put named pages first, the evidence opens with the best note of
    /// each named page (in the pool's order: named before placed pages, then by their best
    /// note), scored by its fused score; the selector chooses the rest of the budget from the
    /// other entries, with their relevance as the first stage gave it. So every selector puts
    /// the named pages first and keeps its own way for the rest.
    pub fn select_with(
        &self,
        selector: &dyn Selector,
        query: &[f32],
        query_text: &str,
        budget: usize,
    ) -> Result<Selection> {
        let first = self.named_firsts(budget);
        if first.is_empty() {
            return Ok(selector.select(&self.candidates(query, query_text), budget)?);
        }
        let taken: HashSet<usize> = first.iter().copied().collect();
        let rest: Vec<usize> = (0..self.len()).filter(|i| !taken.contains(i)).collect();
        let sub = self.subset(&rest);
        let chosen = selector.select(&sub.candidates(query, query_text), budget - first.len())?;
        let mut indices = first.clone();
        let mut scores: Vec<f64> = first.iter().map(|&i| self.fused[i]).collect();
        indices.extend(chosen.indices.iter().map(|&j| rest[j]));
        scores.extend(chosen.scores);
        Ok(Selection {
            indices,
            scores,
            diagnostics: chosen.diagnostics,
        })
    }

    /// The first entry of each named (or placed) page, in the pool's order, at most `budget`.
    fn named_firsts(&self, budget: usize) -> Vec<usize> {
        let mut seen: HashSet<(&str, Option<u32>)> = HashSet::new();
        let mut out = Vec::new();
        for (i, e) in self.entries.iter().enumerate() {
            if self.tier(i) == Tier::Other || out.len() == budget {
                break;
            }
            if seen.insert((e.note.doc.as_str(), e.note.page)) {
                out.push(i);
            }
        }
        out
    }

    /// The entries `rows` (indices, in order) as a pool of their own: their vectors, fused
    /// scores, information and the links among them; notes are not copied.
    fn subset(&self, rows: &[usize]) -> Subset {
        let pos: HashMap<usize, usize> = rows.iter().enumerate().map(|(r, &i)| (i, r)).collect();
        Subset {
            dim: self.dim,
            vectors: rows.iter().flat_map(|&i| self.vector(i)).copied().collect(),
            fused: if self.fused.is_empty() {
                Vec::new()
            } else {
                rows.iter().map(|&i| self.fused[i]).collect()
            },
            info: rows.iter().map(|&i| self.info[i]).collect(),
            links: self
                .links
                .iter()
                .filter_map(|(a, b)| Some((*pos.get(a)?, *pos.get(b)?)))
                .collect(),
        }
    }
}

/// Some entries of a pool, as a selector reads them.
struct Subset {
    dim: usize,
    vectors: Vec<f32>,
    fused: Vec<f64>,
    info: Vec<NoteInfo>,
    links: Vec<(usize, usize)>,
}

impl Subset {
    fn candidates<'a>(&'a self, query: &'a [f32], query_text: &'a str) -> Candidates<'a> {
        Candidates {
            query,
            notes: &self.vectors,
            dim: self.dim,
            links: &self.links,
            query_text,
            fused: &self.fused,
            info: &self.info,
            rrf_k: Some(indexer_index::RRF_K),
        }
    }
}

/// What the structured selectors need of each entry besides its vector: document (numbered in
/// order of first appearance), page, kind and the first stage's ranks.
fn note_info(entries: &[PoolEntry]) -> Vec<NoteInfo> {
    let mut docs: HashMap<&str, u32> = HashMap::new();
    entries
        .iter()
        .map(|e| {
            let next = docs.len() as u32;
            NoteInfo {
                doc: *docs.entry(e.note.doc.as_str()).or_insert(next),
                page: e.note.page,
                visual: e.note.kind != indexer_notes::NoteKind::Text,
                bm25_rank: e.bm25_rank.map(|r| r as u32),
                vector_rank: e.vector_rank.map(|r| r as u32),
            }
        })
        .collect()
}

/// Links between the entries, from the notes' own links: no self-links, no repeats.
fn links_among(entries: &[PoolEntry]) -> Vec<(usize, usize)> {
    let pos: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.note.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        for l in &e.note.links {
            if let Some(&j) = pos.get(l.target.as_str())
                && j != i
            {
                out.push((i, j));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use indexer_notes::{Link, LinkKind, NoteKind};

    fn entry(id: &str, page: u32, cosine: f32) -> PoolEntry {
        let mut note = Note::new(id, "a.pdf", NoteKind::Text, id);
        note.page = Some(page);
        PoolEntry {
            note,
            cosine,
            bm25_rank: None,
            bm25_score: None,
            vector_rank: None,
        }
    }

    fn unit(i: usize) -> Vec<f32> {
        let mut v = vec![0.0; 4];
        v[i % 4] = 1.0;
        v
    }

    #[test]
    fn a_ranked_pool_is_in_fused_order_with_its_links() {
        let vs: Vec<Vec<f32>> = (0..4).map(unit).collect();
        let mut e = vec![
            entry("n0", 1, 0.1),
            entry("n1", 2, 0.2),
            entry("n2", 3, 0.3),
        ];
        e[0].note.links = vec![
            Link {
                target: "n2".into(),
                kind: LinkKind::Adjacent,
            },
            Link {
                target: "n0".into(),
                kind: LinkKind::Adjacent,
            },
            Link {
                target: "n2".into(),
                kind: LinkKind::SamePage,
            },
            Link {
                target: "gone".into(),
                kind: LinkKind::Adjacent,
            },
        ];
        let bad = entry("short", 9, 0.0);
        let pool = Pool::ranked(
            4,
            e.into_iter()
                .zip([0.2, 0.9, 0.5])
                .zip(&vs)
                .map(|((e, f), v)| (e, v.as_slice(), f))
                .chain([(bad, &vs[0][..2], 1.0)]),
        );
        let ids: Vec<&str> = pool.entries().iter().map(|e| e.note.id.as_str()).collect();
        assert_eq!(ids, ["n1", "n2", "n0"]);
        assert_eq!(pool.fused(), [0.9, 0.5, 0.2]);
        assert_eq!(pool.vector(0), vs[1].as_slice());
        // n0 -> n2 once; no self-link, no link to a note outside the pool.
        assert_eq!(pool.links, [(2, 1)]);
        assert_eq!(pool.info.len(), 3);
    }

    #[test]
    fn a_named_page_comes_first_and_changes_no_other_relevance() {
        let vs: Vec<Vec<f32>> = (0..6).map(unit).collect();
        let make = || {
            Pool::ranked(
                4,
                (0..5).map(|i| {
                    (
                        entry(&format!("n{i}"), i as u32 + 1, 0.5),
                        vs[i].as_slice(),
                        1.0 - i as f64 / 10.0,
                    )
                }),
            )
        };
        let plain = make();
        let mut named = make();
        // Page 4 is named: its note n3 and a note n9 that was no candidate.
        let tiers = HashMap::from([
            ("n3".to_string(), Tier::Named),
            ("n9".to_string(), Tier::Named),
        ]);
        named.put_first(&tiers, vec![(entry("n9", 4, 0.9), vs[5].clone())]);
        let ids: Vec<&str> = named.entries().iter().map(|e| e.note.id.as_str()).collect();
        assert_eq!(ids, ["n3", "n9", "n0", "n1", "n2", "n4"]);
        // Every other candidate keeps its fused score, so a selector's normalised relevance
        // of them is what it was: the named page squashes nothing.
        for (i, e) in plain.entries().iter().enumerate() {
            let j = named
                .entries()
                .iter()
                .position(|x| x.note.id == e.note.id)
                .unwrap();
            assert_eq!(plain.fused()[i], named.fused()[j], "{}", e.note.id);
        }
        let c = named.candidates(&vs[0], "q");
        let plain_c = plain.candidates(&vs[0], "q");
        let rel = indexer_rerank::hybrid_relevance(&plain_c, None);
        let rel_named = indexer_rerank::hybrid_relevance(&c, None);
        for (i, e) in plain.entries().iter().enumerate() {
            let j = named
                .entries()
                .iter()
                .position(|x| x.note.id == e.note.id)
                .unwrap();
            assert!((rel[i] - rel_named[j]).abs() < 1e-12, "{}", e.note.id);
        }
        // Every selector opens with the named page's best note, then chooses as it would.
        for kind in SelectorKind::ALL {
            let s = named.select(&vs[0], "q", kind, 3).unwrap();
            assert_eq!(s.indices[0], 0, "{kind}");
            assert!(s.indices.len() <= 3, "{kind}");
            assert!(!s.indices[1..].contains(&0), "{kind}");
        }
        let fused = named
            .select(&vs[0], "q", SelectorKind::FusedCap, 3)
            .unwrap();
        let ids: Vec<&str> = fused
            .indices
            .iter()
            .map(|&i| named.entries()[i].note.id.as_str())
            .collect();
        assert_eq!(ids, ["n3", "n0", "n1"]);
        // Without a named page, the selector alone.
        let s = plain
            .select(&vs[0], "q", SelectorKind::FusedCap, 3)
            .unwrap();
        assert_eq!(s.indices, [0, 1, 2]);
    }

    #[test]
    fn an_unranked_pool_keeps_its_order_and_names_no_page_first() {
        let vs: Vec<Vec<f32>> = (0..3).map(unit).collect();
        let mut pool = Pool::unranked(
            4,
            (0..3).map(|i| (entry(&format!("n{i}"), 1, 0.0), vs[i].as_slice())),
        );
        pool.put_first(
            &HashMap::from([("n2".to_string(), Tier::Named)]),
            Vec::new(),
        );
        let ids: Vec<&str> = pool.entries().iter().map(|e| e.note.id.as_str()).collect();
        assert_eq!(ids, ["n0", "n1", "n2"]);
        assert!(pool.fused().is_empty());
    }
}
