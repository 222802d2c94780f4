//! The reader: one complete generation, pinned for as long as the `Index` lives.

use crate::committed_dir::CommittedDir;
use crate::error::{Error, Result};
use crate::feedback::Feedback;
use crate::fsutil::{self, CROPS};
use crate::graph::{self, Graph, HnswParams};
use crate::manifest::{DocEntry, Manifest};
use crate::matching::{self, Expansions, Matching};
use crate::schema::Fields;
use crate::scope::ScopedStats;
use crate::store::Store;
use crate::store::kind_code;
use indexer_notes::{Note, NoteKind};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::query::{
    BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery, TermQuery, TermSetQuery,
};
use tantivy::schema::IndexRecordOption;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{IndexReader, ReloadPolicy, Searcher, Term};

/// Restricts candidates to some documents, kinds and pages. Empty lists mean "any".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    pub docs: Vec<String>,
    pub kinds: Vec<NoteKind>,
    /// Inclusive 1-based page range. Notes of unpaged documents have no page and never match
    /// a page range.
    pub pages: Option<(u32, u32)>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty() && self.kinds.is_empty() && self.pages.is_none()
    }

    /// Whether a note passes the filter: the rule the searches apply inside their queries.
    pub fn matches(&self, note: &Note) -> bool {
        (self.docs.is_empty() || self.docs.contains(&note.doc))
            && (self.kinds.is_empty() || self.kinds.contains(&note.kind))
            && self
                .pages
                .is_none_or(|(a, b)| note.page.is_some_and(|p| p >= a && p <= b))
    }
}

/// The k of reciprocal rank fusion, `1 / (k + rank)`, when it is asked for
/// ([`Fusion::Rrf`]): 60, the value of Cormack et al. (2009) that most hybrid search engines
/// keep.
pub const RRF_K: usize = 60;

/// The weight of BM25 in the default fusion ([`Fusion::Convex`]): 0.5, the two retrievers
/// weighted alike once both scores are on [0, 1].
pub const BM25_WEIGHT: f32 = 0.5;

/// How the first stage fuses its BM25 list and its vector list into one score. The one place
/// the default is set; every caller takes it from [`Fusion::default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// The default: a convex combination of normalised scores (Bruch, Gai and Ingber, "An
    /// Analysis of Fusion Functions for Hybrid Retrieval", 2023, found it better than RRF and
    /// stable in its one parameter), `w * b / b_max + (1 - w) * (c - c_min) / (c_max - c_min)`.
    /// `b` is the BM25 score, which has a natural zero (no query term): divided by the best
    /// of the list, and 0 for a note the BM25 list does not hold. `c` is the cosine, which
    /// has none (unrelated texts have a cosine above 0 whose level depends on the encoder):
    /// scaled from the lowest to the highest cosine among the candidates.
    Convex { bm25_weight: f32 },
    /// Reciprocal rank fusion, `sum over the lists of 1 / (k + rank)`: ranks only.
    Rrf { k: usize },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Convex {
            bm25_weight: BM25_WEIGHT,
        }
    }
}

impl std::fmt::Display for Fusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fusion::Convex { bm25_weight } => write!(f, "convex:{bm25_weight}"),
            Fusion::Rrf { k } => write!(f, "rrf:{k}"),
        }
    }
}

impl std::str::FromStr for Fusion {
    type Err = String;
    /// `convex` (BM25 weight 0.5), `convex:W`, `rrf` (k = 60) or `rrf:K`.
    fn from_str(s: &str) -> Result<Fusion, String> {
        let (name, arg) = s.split_once(':').unwrap_or((s, ""));
        let bad =
            || format!("fusion must be convex, convex:W (0 <= W <= 1), rrf or rrf:K, not {s:?}");
        match (name, arg) {
            ("convex", "") => Ok(Fusion::default()),
            ("convex", w) => match w.parse::<f32>() {
                Ok(w) if (0.0..=1.0).contains(&w) => Ok(Fusion::Convex { bm25_weight: w }),
                _ => Err(bad()),
            },
            ("rrf", "") => Ok(Fusion::Rrf { k: RRF_K }),
            ("rrf", k) => k.parse().map(|k| Fusion::Rrf { k }).map_err(|_| bad()),
            _ => Err(bad()),
        }
    }
}

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

/// One candidate note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub ordinal: usize,
    pub note_id: String,
    pub kind: NoteKind,
    pub page: Option<u32>,
    /// 1-based rank in the BM25 list.
    pub bm25_rank: Option<usize>,
    pub bm25_score: Option<f32>,
    /// 1-based rank in the vector list.
    pub vector_rank: Option<usize>,
    /// Cosine to the query vector: for every hit when the query has a vector, BM25-only hits
    /// included.
    pub cosine: Option<f32>,
    /// The fused score ([`Fusion`]): hits are in decreasing order of it.
    pub fused: f32,
}

/// Candidates ordered by their fused score, with their vectors and the links among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CandidateSet {
    pub hits: Vec<Candidate>,
    /// `hits.len() x dim`, row-major, aligned with `hits`.
    pub vectors: Vec<f32>,
    /// Links between candidates, as indices into `hits` (from, to), from the notes' links.
    pub links: Vec<(usize, usize)>,
    /// The feedback terms BM25 searched beside the question (empty without feedback).
    pub feedback: Feedback,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub documents: usize,
    pub pages: u64,
    pub notes: u64,
    pub notes_by_kind: BTreeMap<NoteKind, u64>,
    pub failed_files: usize,
    pub model: String,
    pub dim: usize,
    /// Bytes on disk of the files this generation uses (shared files counted once).
    pub bytes: u64,
    pub generation: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentInfo {
    pub doc: String,
    pub hash: String,
    pub title: Option<String>,
    pub pages: u32,
    pub notes: u64,
    pub pages_without_text: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureInfo {
    pub doc: String,
    pub hash: String,
    pub message: String,
}

/// A reader over the newest complete generation of an index folder. Send + Sync: share it
/// across threads. It holds a shared lock on its generation, so the writer's garbage
/// collection keeps that generation's files while it is open.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    _lock: File,
    fields: Fields,
    _reader: IndexReader,
    searcher: Searcher,
    ordinals: Vec<Column<u64>>,
    parser: QueryParser,
    /// The searched fields' analyzer, for the stems of [`Matching`] expansions.
    stemmer: TextAnalyzer,
    store: Store,
    /// Live rows: rows of a document the manifest lists. Everything else is a tombstone.
    live: Vec<u64>,
    /// (first_row, notes, doc), sorted by first_row.
    ranges: Vec<(u64, u64, String)>,
    graph: Option<Arc<Graph>>,
    params: HnswParams,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index")
            .field("dir", &self.dir)
            .field("generation", &self.manifest.generation)
            .field("notes", &self.len())
            .field("graph", &self.graph)
            .finish_non_exhaustive()
    }
}

fn bit(bits: &[u64], i: usize) -> bool {
    bits[i / 64] >> (i % 64) & 1 == 1
}

impl Index {
    /// Opens the newest complete generation in `dir`.
    pub fn open(dir: &Path) -> Result<Index> {
        Index::open_reusing(dir, None)
    }

    /// Opens the newest generation again, reusing this reader's loaded graph when the new
    /// generation kept it (graph loading is the slow part of opening).
    pub fn reopen(&self) -> Result<Index> {
        Index::open_reusing(&self.dir, Some(self))
    }

    /// The newest complete generation in `dir`, read from its manifest; `None` when there is
    /// no index. Cheap enough to poll.
    pub fn latest_generation(dir: &Path) -> Result<Option<u64>> {
        Ok(Manifest::read_current(dir)?.map(|m| m.generation))
    }

    fn open_reusing(dir: &Path, previous: Option<&Index>) -> Result<Index> {
        // A generation can be collected between reading the manifest and locking it: then
        // a newer manifest exists, read it again.
        let mut attempts = 0;
        let (manifest, lock) = loop {
            let Some(m) = Manifest::read_current(dir)? else {
                return Err(Error::NoIndex {
                    dir: dir.to_path_buf(),
                });
            };
            if let Some(lock) = fsutil::lock_generation_shared(dir, m.generation)? {
                break (m, lock);
            }
            attempts += 1;
            if attempts > 100 {
                return Err(Error::corrupt(
                    &dir.join(crate::manifest::MANIFEST),
                    "the generation it names has no readers.lock",
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        };
        let fields = Fields::load();
        let tdir = dir.join(&manifest.tantivy.dir);
        let (reader, searcher, ordinals, parser, stemmer) =
            guarded(&tdir, || open_tantivy(&tdir, &fields))?;
        let store = Store::open(dir, &manifest.store, manifest.dim)?;
        let rows = store.rows();
        let mut live = vec![0u64; rows.div_ceil(64)];
        let mut ranges = Vec::with_capacity(manifest.documents.len());
        for (doc, e) in &manifest.documents {
            if e.first_row + e.notes > rows as u64 {
                return Err(Error::corrupt(
                    &dir.join(crate::manifest::MANIFEST),
                    format!("document {doc:?} names rows past the store"),
                ));
            }
            for r in e.first_row..e.first_row + e.notes {
                live[r as usize / 64] |= 1 << (r % 64);
            }
            ranges.push((e.first_row, e.notes, doc.clone()));
        }
        ranges.sort();
        let graph = match &manifest.graph {
            None => None,
            Some(g) => match previous.and_then(|p| {
                p.manifest
                    .graph
                    .as_ref()
                    .filter(|pg| pg.basename == g.basename)
                    .and(p.graph.clone())
            }) {
                Some(reused) => Some(reused),
                None => Some(Arc::new(Graph::load(dir, &g.basename)?)),
            },
        };
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            _lock: lock,
            fields,
            _reader: reader,
            searcher,
            ordinals,
            parser,
            stemmer,
            store,
            live,
            ranges,
            graph,
            params: previous.map(|p| p.params).unwrap_or_default(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn generation(&self) -> u64 {
        self.manifest.generation
    }

    pub fn model_id(&self) -> &str {
        &self.manifest.model_id
    }

    pub fn dim(&self) -> usize {
        self.manifest.dim
    }

    /// Sets ef, the breadth of the HNSW search (default 400, see [`HnswParams`]).
    pub fn set_ef_search(&mut self, ef: usize) {
        self.params.ef_search = ef.max(1);
    }

    /// Whether vector search goes through the HNSW graph (false: exact scan).
    pub fn has_graph(&self) -> bool {
        self.graph.is_some()
    }

    /// Where the crop PNGs of figure and table notes live (`Note.image` is relative to it).
    pub fn crop_dir(&self) -> PathBuf {
        self.dir.join(CROPS)
    }

    pub fn stats(&self) -> Stats {
        let mut by_kind: BTreeMap<NoteKind, u64> = NoteKind::ALL.iter().map(|k| (*k, 0)).collect();
        for e in self.manifest.documents.values() {
            for k in NoteKind::ALL {
                *by_kind.entry(k).or_default() += e.by_kind[kind_code(k) as usize];
            }
        }
        let m = &self.manifest;
        let mut bytes = fsutil::dir_bytes(&self.dir.join(&m.tantivy.dir));
        let mut files = vec![
            m.store.vectors_file(),
            m.store.rows_file(),
            m.store.notes_file(),
        ];
        if let Some(g) = &m.graph {
            files.extend(g.files());
        }
        for f in files {
            bytes += std::fs::metadata(self.dir.join(f))
                .map(|m| m.len())
                .unwrap_or(0);
        }
        Stats {
            documents: m.documents.len(),
            pages: m.documents.values().map(|d| u64::from(d.pages)).sum(),
            notes: m.live_rows(),
            notes_by_kind: by_kind,
            failed_files: m.failures.len(),
            model: m.model_id.clone(),
            dim: m.dim,
            bytes,
            generation: m.generation,
        }
    }

    pub fn documents(&self) -> Vec<DocumentInfo> {
        self.manifest
            .documents
            .iter()
            .map(|(doc, e)| DocumentInfo {
                doc: doc.clone(),
                hash: e.hash.clone(),
                title: e.title.clone(),
                pages: e.pages,
                notes: e.notes,
                pages_without_text: e.pages_without_text.clone(),
            })
            .collect()
    }

    pub fn failures(&self) -> Vec<FailureInfo> {
        self.manifest
            .failures
            .iter()
            .map(|(doc, f)| FailureInfo {
                doc: doc.clone(),
                hash: f.hash.clone(),
                message: f.message.clone(),
            })
            .collect()
    }

    /// Number of live notes.
    pub fn len(&self) -> usize {
        self.manifest.live_rows() as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The ordinal of a note id, if the note is live.
    pub fn ordinal(&self, id: &str) -> Result<Option<usize>> {
        guarded(&self.tantivy_dir(), || {
            let q = TermQuery::new(
                Term::from_field_text(self.fields.id, id),
                IndexRecordOption::Basic,
            );
            let top = self
                .searcher
                .search(&q, &TopDocs::with_limit(1).order_by_score())
                .map_err(Error::tantivy(&self.dir))?;
            Ok(top.first().and_then(|(_, addr)| {
                self.ordinals[addr.segment_ord as usize]
                    .first(addr.doc_id)
                    .map(|o| o as usize)
            }))
        })
    }

    /// The live note with this id.
    pub fn note(&self, id: &str) -> Option<Note> {
        let o = self.ordinal(id).ok().flatten()?;
        self.store.note(o).ok()
    }

    /// The note at an ordinal (live or not: ordinals of deleted notes stay readable in the
    /// generation that had them).
    pub fn note_at(&self, ordinal: usize) -> Result<Note> {
        self.store.note(ordinal)
    }

    /// The live notes of a document, in document order.
    pub fn notes_of(&self, doc: &str) -> Vec<Note> {
        self.manifest
            .documents
            .get(doc)
            .map(|e| self.notes_in(e).into_iter().map(|(_, n)| n).collect())
            .unwrap_or_default()
    }

    /// The live notes of a document with their ordinals (for [`Index::vector`]).
    pub fn document_notes(&self, doc: &str) -> Vec<(usize, Note)> {
        self.manifest
            .documents
            .get(doc)
            .map(|e| self.notes_in(e))
            .unwrap_or_default()
    }

    fn notes_in(&self, e: &DocEntry) -> Vec<(usize, Note)> {
        (e.first_row..e.first_row + e.notes)
            .filter_map(|o| self.store.note(o as usize).ok().map(|n| (o as usize, n)))
            .collect()
    }

    /// Every live note with its ordinal, by document then document order.
    pub fn all_notes(&self) -> Vec<(usize, Note)> {
        self.manifest
            .documents
            .values()
            .flat_map(|e| self.notes_in(e))
            .collect()
    }

    /// Every live ordinal, ascending.
    pub fn live_ordinals(&self) -> Vec<usize> {
        (0..self.store.rows())
            .filter(|&o| bit(&self.live, o))
            .collect()
    }

    /// The vector of the note at `ordinal`.
    pub fn vector(&self, ordinal: usize) -> &[f32] {
        self.store.vector(ordinal)
    }

    fn doc_of(&self, ordinal: usize) -> Option<&str> {
        let i = self
            .ranges
            .partition_point(|(first, _, _)| *first <= ordinal as u64);
        let (first, n, doc) = self.ranges.get(i.checked_sub(1)?)?;
        ((ordinal as u64) < first + n).then_some(doc.as_str())
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

    /// BM25 top-k as (ordinal, score), best first, with the filter inside the query; the
    /// words as typed.
    pub fn bm25(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<(usize, f32)>> {
        self.bm25_expanded(text, k, filter, None)
    }

    /// The prefix and typo expansions `matching` asks for of the words of `text`, for
    /// [`Index::bm25_expanded`] and [`CandidateQuery::expansions`].
    pub fn expand(&self, text: &str, matching: Matching) -> Result<Expansions> {
        guarded(&self.tantivy_dir(), || {
            matching::expand(
                &self.searcher,
                &self.fields.searched,
                &mut self.stemmer.clone(),
                text,
                matching,
            )
            .map_err(Error::tantivy(&self.dir))
        })
    }

    /// The tantivy folder of this generation.
    fn tantivy_dir(&self) -> PathBuf {
        self.dir.join(&self.manifest.tantivy.dir)
    }

    /// BM25 top-k with the words as typed and their expansions.
    pub fn bm25_expanded(
        &self,
        text: &str,
        k: usize,
        filter: &Filter,
        expansions: Option<&Expansions>,
    ) -> Result<Vec<(usize, f32)>> {
        guarded(&self.tantivy_dir(), || {
            self.bm25_search(text, k, filter, expansions, None)
        })
    }

    fn bm25_search(
        &self,
        text: &str,
        k: usize,
        filter: &Filter,
        expansions: Option<&Expansions>,
        feedback: Option<&Feedback>,
    ) -> Result<Vec<(usize, f32)>> {
        if k == 0 || text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let (parsed, _errors) = self.parser.parse_query_lenient(text);
        let extra: Vec<Box<dyn Query>> = [
            expansions.and_then(|e| e.query(&self.fields.searched)),
            feedback.and_then(|f| f.query(&self.fields.searched)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let query: Box<dyn Query> = if extra.is_empty() {
            parsed
        } else {
            Box::new(BooleanQuery::new(
                std::iter::once(parsed)
                    .chain(extra)
                    .map(|q| (Occur::Should, q))
                    .collect(),
            ))
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, query)];
        let f = &self.fields;
        if !filter.docs.is_empty() {
            let terms = filter.docs.iter().map(|d| Term::from_field_text(f.doc, d));
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(TermSetQuery::new(terms)),
                    0.0,
                )),
            ));
        }
        if !filter.kinds.is_empty() {
            let terms = filter
                .kinds
                .iter()
                .map(|k| Term::from_field_text(f.kind, k.as_str()));
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(TermSetQuery::new(terms)),
                    0.0,
                )),
            ));
        }
        if let Some((a, b)) = filter.pages {
            let range = RangeQuery::new(
                Bound::Included(Term::from_field_u64(f.page, u64::from(a.max(1)))),
                Bound::Included(Term::from_field_u64(f.page, u64::from(b))),
            );
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        let q = BooleanQuery::new(clauses);
        let collector = TopDocs::with_limit(k).order_by_score();
        // Filtered to documents: BM25 weighs words by their statistics in those documents.
        let scoped = if filter.docs.is_empty() {
            None
        } else {
            ScopedStats::new(&self.searcher, f.doc, &filter.docs)
                .map_err(Error::tantivy(&self.dir))?
        };
        let top = match &scoped {
            Some(stats) => self
                .searcher
                .search_with_statistics_provider(&q, &collector, stats),
            None => self.searcher.search(&q, &collector),
        }
        .map_err(Error::tantivy(&self.dir))?;
        Ok(top
            .into_iter()
            .filter_map(|(score, addr)| {
                let o = self.ordinals[addr.segment_ord as usize].first(addr.doc_id)? as usize;
                Some((o, score))
            })
            .collect())
    }

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

    /// Hybrid candidates: BM25 top-k and vector top-k, both filtered inside the search,
    /// fused by reciprocal rank fusion, with their vectors and links.
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

    /// The document a live ordinal belongs to.
    pub fn doc_of_ordinal(&self, ordinal: usize) -> Option<&str> {
        if ordinal >= self.store.rows() || !bit(&self.live, ordinal) {
            return None;
        }
        self.doc_of(ordinal)
    }
}

/// Sets each candidate's fused score from its BM25 score and rank, its cosine and its vector
/// rank (see [`Fusion`]), and orders them by it (ties: BM25 rank, then ordinal). Candidates of
/// one search can be fused again another way without searching again.
pub fn fuse(hits: &mut [Candidate], fusion: Fusion) {
    score(hits, fusion);
    hits.sort_by(|a, b| {
        b.fused
            .total_cmp(&a.fused)
            .then(
                a.bm25_rank
                    .unwrap_or(usize::MAX)
                    .cmp(&b.bm25_rank.unwrap_or(usize::MAX)),
            )
            .then(a.ordinal.cmp(&b.ordinal))
    });
}

fn score(hits: &mut [Candidate], fusion: Fusion) {
    match fusion {
        Fusion::Rrf { k } => {
            let rr = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (k as f32 + r as f32));
            for h in hits {
                h.fused = rr(h.bm25_rank) + rr(h.vector_rank);
            }
        }
        Fusion::Convex { bm25_weight: w } => {
            let b_max = hits
                .iter()
                .filter_map(|h| h.bm25_score)
                .fold(0.0f32, f32::max);
            let cos = hits.iter().filter_map(|h| h.cosine);
            let (c_min, c_max) = cos.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c), hi.max(c))
            });
            for h in hits {
                let b = match h.bm25_score {
                    Some(b) if b_max > 0.0 => b / b_max,
                    _ => 0.0,
                };
                let c = match h.cosine {
                    Some(c) if c_max > c_min => (c - c_min) / (c_max - c_min),
                    // One cosine among the candidates (or all equal): it ranks nothing.
                    Some(_) => 1.0,
                    None => 0.0,
                };
                h.fused = w * b + (1.0 - w) * c;
            }
        }
    }
}

/// The parts of a generation's tantivy index a reader keeps.
type TantivyParts = (
    IndexReader,
    Searcher,
    Vec<tantivy::columnar::Column<u64>>,
    QueryParser,
    tantivy::tokenizer::TextAnalyzer,
);

fn open_tantivy(tdir: &Path, fields: &Fields) -> Result<TantivyParts> {
    let committed = CommittedDir::open(tdir)
        .map_err(|e| Error::tantivy(tdir)(tantivy::TantivyError::from(e)))?;
    let tindex = tantivy::Index::open(committed).map_err(Error::tantivy(tdir))?;
    if tindex.schema() != fields.schema {
        return Err(Error::corrupt(
            tdir,
            "tantivy schema differs from index_schema/schema-v1.toml",
        ));
    }
    let reader = tindex
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()
        .map_err(Error::tantivy(tdir))?;
    let searcher = reader.searcher();
    let ordinals = searcher
        .segment_readers()
        .iter()
        .map(|s| s.fast_fields().u64("ordinal"))
        .collect::<tantivy::Result<Vec<_>>>()
        .map_err(Error::tantivy(tdir))?;
    let mut parser =
        QueryParser::for_index(&tindex, fields.searched.iter().map(|(f, _)| *f).collect());
    for (f, boost) in &fields.searched {
        parser.set_field_boost(*f, *boost);
    }
    let stemmer = tindex
        .tokenizer_for_field(fields.searched[0].0)
        .map_err(Error::tantivy(tdir))?;
    Ok((reader, searcher, ordinals, parser, stemmer))
}

/// Runs tantivy code on files that may be damaged. tantivy asserts on some damage instead of
/// returning an error (a segment file cut short panics in `FileSlice`, found by fuzzing the
/// index files); a damaged index must be an error that names it, never a crash.
pub(crate) fn guarded<T>(tdir: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(Error::corrupt(
            tdir,
            "tantivy cannot read its files: they are damaged (ingest into a new index)",
        ))
    })
}
