//! Hybrid candidates: one [`CandidateQuery`], its BM25 and vector lists fused as it asks, with
//! pseudo-relevance feedback, into a [`CandidateSet`].

use crate::candidates::{Candidate, CandidateSet};
use crate::error::Result;
use crate::feedback::Feedback;
use crate::filter::Filter;
use crate::fusion::{Fusion, fuse};
use crate::graph;
use crate::matching::Expansions;
use crate::reader::{Index, guarded};
use std::collections::HashMap;

/// One hybrid retrieval request.
#[derive(Debug, Clone)]
pub struct CandidateQuery<'a> {
    /// The question for BM25 (tantivy query syntax, parsed leniently). Empty: no BM25.
    pub text: &'a str,
    /// The unit query vector. Empty: no vector search.
    pub vector: &'a [f32],
    pub bm25_k: usize,
    pub vector_k: usize,
    pub fusion: Fusion,
    pub filter: Filter,
    /// Prefix and typo expansions of the words, searched by BM25 beside the words as typed
    /// (from [`Index::expand`]).
    pub expansions: Option<&'a Expansions>,
    /// Pseudo-relevance feedback: BM25 searches again with the terms that mark the first
    /// round's best note beside the question's words ([`Feedback`]). Needs `text`.
    pub feedback: bool,
}

impl Default for CandidateQuery<'_> {
    fn default() -> Self {
        CandidateQuery {
            text: "",
            vector: &[],
            bm25_k: 100,
            vector_k: 100,
            fusion: Fusion::default(),
            filter: Filter::default(),
            expansions: None,
            feedback: true,
        }
    }
}

impl Index {
    /// Hybrid candidates: BM25 top-k and vector top-k, both filtered inside the search,
    /// fused as `q.fusion` says ([`Fusion`]), with their vectors and links.
    pub fn candidates(&self, q: &CandidateQuery<'_>) -> Result<CandidateSet> {
        let bm25 = self.bm25_expanded(q.text, q.bm25_k, &q.filter, q.expansions)?;
        let near = self.nearest(q.vector, q.vector_k, &q.filter)?;
        let mut hits = self.assemble(q, &bm25, &near)?;
        // Pseudo-relevance feedback: the best note's own words, searched again beside the
        // question's (see the `feedback` module). Only from a note BM25 found: one that no
        // word of the question reaches is the vectors' guess alone, too weak to search by. A
        // note the store cannot read (damage) gives none; the search goes on without it.
        let mut feedback = Feedback::default();
        if q.feedback
            && !q.text.trim().is_empty()
            && let Some(top) = hits.first()
            && top.bm25_rank.is_some()
            && let Ok(note) = self.store.note(top.ordinal)
        {
            feedback = guarded(&self.tantivy_dir(), || {
                Ok(Feedback::from_note(
                    &note.text,
                    q.text,
                    &self.searcher,
                    self.fields.text,
                ))
            })?;
            if !feedback.is_empty() {
                let bm25 = guarded(&self.tantivy_dir(), || {
                    self.bm25_search(q.text, q.bm25_k, &q.filter, q.expansions, Some(&feedback))
                })?;
                hits = self.assemble(q, &bm25, &near)?;
            }
        }
        self.finish(hits, feedback)
    }

    /// The candidates of a BM25 list and a vector list, fused as `q` asks.
    fn assemble(
        &self,
        q: &CandidateQuery<'_>,
        bm25: &[(usize, f32)],
        near: &[(usize, f32)],
    ) -> Result<Vec<Candidate>> {
        let mut by_ord: HashMap<usize, usize> = HashMap::new();
        let mut hits: Vec<Candidate> = Vec::with_capacity(bm25.len() + near.len());
        let mut slot = |o: usize, hits: &mut Vec<Candidate>| -> Result<usize> {
            if let Some(&i) = by_ord.get(&o) {
                return Ok(i);
            }
            let m = self.store.meta(o);
            hits.push(Candidate {
                ordinal: o,
                note_id: String::new(),
                kind: m.kind,
                page: (m.page != 0).then_some(m.page),
                bm25_rank: None,
                bm25_score: None,
                vector_rank: None,
                cosine: None,
                fused: 0.0,
            });
            by_ord.insert(o, hits.len() - 1);
            Ok(hits.len() - 1)
        };
        for (rank, (o, score)) in bm25.iter().enumerate() {
            let i = slot(*o, &mut hits)?;
            hits[i].bm25_rank = Some(rank + 1);
            hits[i].bm25_score = Some(*score);
        }
        for (rank, (o, cos)) in near.iter().enumerate() {
            let i = slot(*o, &mut hits)?;
            hits[i].vector_rank = Some(rank + 1);
            hits[i].cosine = Some(*cos);
        }
        let dim = self.dim();
        if q.vector.len() == dim {
            for h in &mut hits {
                if h.cosine.is_none() {
                    h.cosine = Some(graph::dot(q.vector, self.store.vector(h.ordinal)));
                }
            }
        }
        fuse(&mut hits, q.fusion);
        Ok(hits)
    }

    /// The candidate set of fused hits: their vectors, note ids and links.
    fn finish(&self, mut hits: Vec<Candidate>, feedback: Feedback) -> Result<CandidateSet> {
        let dim = self.dim();
        let mut vectors = Vec::with_capacity(hits.len() * dim);
        let mut heads = Vec::with_capacity(hits.len());
        for h in &mut hits {
            vectors.extend_from_slice(self.store.vector(h.ordinal));
            let head = self.store.head(h.ordinal)?;
            h.note_id = head.id.clone();
            heads.push(head);
        }
        let index_of: HashMap<&str, usize> = hits
            .iter()
            .enumerate()
            .map(|(i, h)| (h.note_id.as_str(), i))
            .collect();
        let mut links = Vec::new();
        for (i, head) in heads.iter().enumerate() {
            for t in &head.links {
                if let Some(&j) = index_of.get(t.as_str())
                    && j != i
                {
                    links.push((i, j));
                }
            }
        }
        links.sort_unstable();
        links.dedup();
        Ok(CandidateSet {
            hits,
            vectors,
            links,
            feedback,
        })
    }
}
