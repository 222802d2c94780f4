//! The reader: one complete generation, pinned for as long as the `Index` lives; its notes
//! and vectors by ordinal, note id or document. The searches over it are their own modules
//! (`bm25`, `nearest`, `hybrid`), as is what it holds (`stats`).

use crate::committed_dir::CommittedDir;
use crate::error::{Error, Result};
use crate::fsutil::{self, CROPS};
use crate::graph::{Graph, HnswParams};
use crate::manifest::{DocEntry, Manifest};
use crate::schema::Fields;
use crate::store::Store;
use indexer_notes::Note;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::query::{QueryParser, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{IndexReader, ReloadPolicy, Searcher, Term};

/// A reader over the newest complete generation of an index folder. Send + Sync: share it
/// across threads. It holds a shared lock on its generation, so the writer's garbage
/// collection keeps that generation's files while it is open.
pub struct Index {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    _lock: File,
    pub(crate) fields: Fields,
    _reader: IndexReader,
    pub(crate) searcher: Searcher,
    pub(crate) ordinals: Vec<Column<u64>>,
    pub(crate) parser: QueryParser,
    /// The searched fields' analyzer, for the stems of [`Matching`](crate::Matching) expansions.
    pub(crate) stemmer: TextAnalyzer,
    pub(crate) store: Store,
    /// Live rows: rows of a document the manifest lists. Everything else is a tombstone.
    pub(crate) live: Vec<u64>,
    /// (first_row, notes, doc), sorted by first_row.
    ranges: Vec<(u64, u64, String)>,
    pub(crate) graph: Option<Arc<Graph>>,
    pub(crate) params: HnswParams,
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

pub(crate) fn bit(bits: &[u64], i: usize) -> bool {
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

    /// The tantivy folder of this generation.
    pub(crate) fn tantivy_dir(&self) -> PathBuf {
        self.dir.join(&self.manifest.tantivy.dir)
    }

    /// The document a live ordinal belongs to.
    pub fn doc_of_ordinal(&self, ordinal: usize) -> Option<&str> {
        if ordinal >= self.store.rows() || !bit(&self.live, ordinal) {
            return None;
        }
        self.doc_of(ordinal)
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
