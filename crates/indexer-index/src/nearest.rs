//! Vector search: top-k by cosine with the filter inside, through the HNSW graph or an exact
//! scan.

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::graph;
use crate::reader::{Index, bit};
use indexer_notes::NoteKind;

impl Index {
    /// Vector top-k as (ordinal, cosine), best first, with the filter inside the search:
    /// exact when few rows match or the index has no graph, HNSW otherwise (plus an exact
    /// scan of the rows appended since the graph was built).
    pub fn nearest(&self, query: &[f32], k: usize, filter: &Filter) -> Result<Vec<(usize, f32)>> {
        if k == 0 || query.is_empty() {
            return Ok(Vec::new());
        }
        self.check_query(query)?;
        let keep = self.keeper(filter);
        let matrix = self.store.matrix();
        let dim = self.dim();
        let rows = self.store.rows();
        // Rows to scan when the filter names documents: only theirs.
        let doc_rows = || -> Vec<usize> {
            let mut v: Vec<usize> = filter
                .docs
                .iter()
                .filter_map(|d| self.manifest.documents.get(d))
                .flat_map(|e| (e.first_row as usize)..(e.first_row + e.notes) as usize)
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let Some(graph) = &self.graph else {
            return Ok(if filter.docs.is_empty() {
                graph::exact_search(matrix, dim, query, k, 0..rows, keep)
            } else {
                graph::exact_search(matrix, dim, query, k, doc_rows().into_iter(), keep)
            });
        };
        let g = self
            .manifest
            .graph
            .as_ref()
            .expect("graph has a manifest entry");
        let mut ef = self.params.ef_search.max(k);
        if !filter.is_empty() {
            let candidates = if filter.docs.is_empty() {
                (0..rows).filter(|&o| keep(o)).count()
            } else {
                doc_rows().into_iter().filter(|&o| keep(o)).count()
            };
            if candidates <= graph::EXACT_THRESHOLD {
                let ords: Box<dyn Iterator<Item = usize>> = if filter.docs.is_empty() {
                    Box::new(0..rows)
                } else {
                    Box::new(doc_rows().into_iter())
                };
                return Ok(graph::exact_search(matrix, dim, query, k, ords, keep));
            }
            // The graph search walks through rows the filter rejects; widen it in proportion.
            let live = self.len().max(1);
            ef = (ef * live / candidates.max(1)).min(4 * ef).max(ef);
        }
        let graph_rows = g.rows as usize;
        let mut hits = graph.search(matrix, query, k, ef, &|o| o < graph_rows && keep(o));
        if graph_rows < rows {
            hits.extend(graph::exact_search(
                matrix,
                dim,
                query,
                k,
                graph_rows..rows,
                &keep,
            ));
            hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            hits.truncate(k);
        }
        Ok(hits)
    }

    fn check_query(&self, query: &[f32]) -> Result<()> {
        if query.len() != self.dim() {
            return Err(Error::InvalidInput {
                doc: String::new(),
                message: format!(
                    "query vector has {} dimensions, the index {}",
                    query.len(),
                    self.dim()
                ),
            });
        }
        Ok(())
    }

    /// Exact vector top-k over every live row that passes the filter: the reference the
    /// graph search is measured against.
    pub fn nearest_exact(
        &self,
        query: &[f32],
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<(usize, f32)>> {
        self.check_query(query)?;
        let keep = self.keeper(filter);
        Ok(graph::exact_search(
            self.store.matrix(),
            self.dim(),
            query,
            k,
            0..self.store.rows(),
            keep,
        ))
    }

    /// A predicate over ordinals for a filter: live and matching.
    fn keeper<'a>(&'a self, filter: &'a Filter) -> impl Fn(usize) -> bool + Sync + 'a {
        let doc_ranges: Vec<(u64, u64)> = filter
            .docs
            .iter()
            .filter_map(|d| self.manifest.documents.get(d))
            .map(|e| (e.first_row, e.first_row + e.notes))
            .collect();
        let kinds: Vec<NoteKind> = filter.kinds.clone();
        let no_docs = filter.docs.is_empty();
        move |o: usize| {
            if o >= self.store.rows() || !bit(&self.live, o) {
                return false;
            }
            if !no_docs
                && !doc_ranges
                    .iter()
                    .any(|(a, b)| (*a..*b).contains(&(o as u64)))
            {
                return false;
            }
            if kinds.is_empty() && filter.pages.is_none() {
                return true;
            }
            let m = self.store.meta(o);
            if !kinds.is_empty() && !kinds.contains(&m.kind) {
                return false;
            }
            match filter.pages {
                Some((a, b)) => m.page != 0 && m.page >= a && m.page <= b,
                None => true,
            }
        }
    }
}
