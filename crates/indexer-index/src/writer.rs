//! The writer: stages changes into a new generation and commits it atomically.

use crate::error::{Error, Result};
use crate::fsutil::{self, CROPS, GcStats, READERS_LOCK, WRITER_LOCK};
use crate::graph::{EXACT_THRESHOLD, Graph, HnswParams};
use crate::manifest::{
    DocEntry, Failure, GEN_MANIFEST, GraphInfo, MANIFEST, Manifest, StoreInfo, TantivyInfo,
    gen_dir_name, write_atomic,
};
use crate::schema::{FORMAT_VERSION, Fields};
use crate::store::{Appender, Store, kind_code};
use indexer_notes::{Note, ParsedDocument, context_line};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tantivy::{IndexWriter, TantivyDocument, Term};

/// Memory budget of tantivy's indexing thread; it flushes a segment when full.
const TANTIVY_HEAP: usize = 64 << 20;

/// Rebuild the store (new ordinals, new tantivy folder) when dead rows pass this fraction.
const COMPACT_DEAD_FRACTION: f64 = 0.3;

/// What happened to the HNSW graph in a commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphAction {
    /// Too few live rows for a graph: exact search.
    None,
    /// The previous graph still covers the index well enough.
    Kept,
    Built,
}

/// The outcome of [`Writer::commit`].
#[derive(Debug, Clone)]
pub struct CommitStats {
    pub generation: u64,
    /// False when there was nothing to commit (no new generation was written).
    pub changed: bool,
    pub documents: usize,
    pub notes: u64,
    pub upserted: usize,
    pub removed: usize,
    pub failures: usize,
    pub rows_appended: u64,
    pub compacted: bool,
    pub graph: GraphAction,
    pub gc: GcStats,
    pub elapsed: Duration,
}

struct Pending {
    generation: u64,
    gen_dir: PathBuf,
    tantivy_dir: PathBuf,
    tindex: tantivy::Index,
    twriter: IndexWriter<TantivyDocument>,
    appender: Appender,
    documents: BTreeMap<String, DocEntry>,
    failures: BTreeMap<String, Failure>,
    upserted: usize,
    removed: usize,
    rows_at_start: u64,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("generation", &self.generation)
            .field("upserted", &self.upserted)
            .field("removed", &self.removed)
            .finish_non_exhaustive()
    }
}

/// The single writer of an index folder. It holds an exclusive lock on `LOCK` for its life.
#[derive(Debug)]
pub struct Writer {
    dir: PathBuf,
    _lock: File,
    fields: Fields,
    model_id: String,
    dim: usize,
    parse: String,
    base: Option<Manifest>,
    pending: Option<Pending>,
    params: HnswParams,
    graph_threshold: usize,
}

fn store_of(base: Option<&Manifest>) -> StoreInfo {
    base.map(|m| m.store.clone()).unwrap_or(StoreInfo {
        epoch: 1,
        rows: 0,
        notes_bytes: 0,
    })
}

impl Writer {
    /// Opens the index in `dir` for writing, creating it if there is none. The encoder model
    /// and dimension must match an existing index.
    pub fn open_or_create(dir: &Path, model_id: &str, dim: usize) -> Result<Writer> {
        if dim == 0 {
            return Err(Error::InvalidInput {
                doc: String::new(),
                message: "vector dimension must be positive".into(),
            });
        }
        fs::create_dir_all(dir.join(CROPS)).map_err(Error::io("cannot create", dir))?;
        let lock_path = dir.join(WRITER_LOCK);
        let lock = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(Error::io("cannot open", &lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(Error::Locked { path: lock_path }),
            Err(TryLockError::Error(e)) => return Err(Error::io("cannot lock", &lock_path)(e)),
        }
        let base = Manifest::read_current(dir)?;
        if let Some(m) = &base
            && (m.model_id != model_id || m.dim != dim)
        {
            return Err(Error::ModelMismatch {
                dir: dir.to_path_buf(),
                found: m.model_id.clone(),
                found_dim: m.dim,
                wanted: model_id.to_string(),
                wanted_dim: dim,
            });
        }
        // Leftovers of a writer that died: unfinished generations and their files.
        fsutil::collect_garbage(dir, base.as_ref())?;
        Ok(Writer {
            dir: dir.to_path_buf(),
            _lock: lock,
            fields: Fields::load(),
            model_id: model_id.to_string(),
            dim,
            parse: String::new(),
            base,
            pending: None,
            params: HnswParams::default(),
            graph_threshold: EXACT_THRESHOLD,
        })
    }

    /// Sets the HNSW build parameters for graphs built from now on.
    pub fn set_hnsw_params(&mut self, params: HnswParams) {
        self.params = params;
    }

    /// Sets how many live notes an index needs before it keeps an HNSW graph (default
    /// [`EXACT_THRESHOLD`]); below it, vector search is exact.
    pub fn set_graph_threshold(&mut self, live_notes: usize) {
        self.graph_threshold = live_notes;
    }

    /// The folder of the crop PNGs of figure and table notes (the one [`Index::crop_dir`]
    /// reads), created with the index. A note's crop is written here before the commit that
    /// makes the note visible.
    ///
    /// [`Index::crop_dir`]: crate::Index::crop_dir
    pub fn crop_dir(&self) -> PathBuf {
        self.dir.join(CROPS)
    }

    /// The newest committed generation (0 when none).
    pub fn generation(&self) -> u64 {
        self.base.as_ref().map(|m| m.generation).unwrap_or(0)
    }

    /// Names the parse settings (the parser's revision, chunking, crops, OCR: what changes a
    /// file's notes) that the documents upserted from now on were parsed with; empty until
    /// set (as in indexes made before parsers named a revision). [`Writer::parsed_with`] gives
    /// them back per document.
    pub fn set_parse_settings(&mut self, settings: &str) {
        self.parse = settings.to_string();
    }

    /// Document id -> the parse settings of every indexed document, as of the last commit
    /// plus staged changes: the caller parses again a document parsed with other settings,
    /// though its file is unchanged.
    pub fn parsed_with(&self) -> HashMap<String, String> {
        let docs = match (&self.pending, &self.base) {
            (Some(p), _) => Some(&p.documents),
            (None, Some(m)) => Some(&m.documents),
            (None, None) => None,
        };
        docs.into_iter()
            .flatten()
            .map(|(d, e)| (d.clone(), e.parse.clone()))
            .collect()
    }

    /// Document id -> content hash of every indexed or failed file, as of the last commit
    /// plus staged changes: the caller skips files whose hash is unchanged, before parsing or
    /// embedding them.
    pub fn file_state(&self) -> HashMap<String, String> {
        let (docs, fails) = match (&self.pending, &self.base) {
            (Some(p), _) => (Some(&p.documents), Some(&p.failures)),
            (None, Some(m)) => (Some(&m.documents), Some(&m.failures)),
            (None, None) => (None, None),
        };
        let mut out = HashMap::new();
        for (d, e) in docs.into_iter().flatten() {
            out.insert(d.clone(), e.hash.clone());
        }
        for (d, f) in fails.into_iter().flatten() {
            out.insert(d.clone(), f.hash.clone());
        }
        out
    }

    fn begin(&mut self) -> Result<&mut Pending> {
        if self.pending.is_none() {
            let generation = self.generation() + 1;
            let gen_dir = self.dir.join(gen_dir_name(generation));
            if gen_dir.exists() {
                fs::remove_dir_all(&gen_dir).map_err(Error::io("cannot remove", &gen_dir))?;
            }
            fs::create_dir_all(&gen_dir).map_err(Error::io("cannot create", &gen_dir))?;
            let tantivy_dir = gen_dir.join("tantivy");
            let tindex = match &self.base {
                Some(m) => {
                    fsutil::link_tantivy_dir(&self.dir.join(&m.tantivy.dir), &tantivy_dir)?;
                    tantivy::Index::open_in_dir(&tantivy_dir)
                        .map_err(Error::tantivy(&tantivy_dir))?
                }
                None => self.create_tantivy(&tantivy_dir)?,
            };
            let twriter = tindex
                .writer_with_num_threads(1, TANTIVY_HEAP)
                .map_err(Error::tantivy(&tantivy_dir))?;
            let store = store_of(self.base.as_ref());
            let appender = Appender::open(&self.dir, &store, self.dim)?;
            let (documents, failures) = match &self.base {
                Some(m) => (m.documents.clone(), m.failures.clone()),
                None => Default::default(),
            };
            self.pending = Some(Pending {
                generation,
                gen_dir,
                tantivy_dir,
                tindex,
                twriter,
                rows_at_start: appender.rows(),
                appender,
                documents,
                failures,
                upserted: 0,
                removed: 0,
            });
        }
        Ok(self.pending.as_mut().expect("pending was just set"))
    }

    fn create_tantivy(&self, tantivy_dir: &Path) -> Result<tantivy::Index> {
        fs::create_dir_all(tantivy_dir).map_err(Error::io("cannot create", tantivy_dir))?;
        tantivy::Index::create_in_dir(tantivy_dir, self.fields.schema.clone())
            .map_err(Error::tantivy(tantivy_dir))
    }

    /// Stages a parsed document with its note vectors (`notes.len() x dim`, row-major, unit
    /// length), replacing any earlier version of the document.
    pub fn upsert(&mut self, doc: ParsedDocument, vectors: Vec<f32>) -> Result<()> {
        let dim = self.dim;
        let invalid = |message: String| Error::InvalidInput {
            doc: doc.doc.clone(),
            message,
        };
        if vectors.len() != doc.notes.len() * dim {
            return Err(invalid(format!(
                "{} vector values for {} notes of dimension {dim}",
                vectors.len(),
                doc.notes.len()
            )));
        }
        let mut ids = HashSet::new();
        for (n, v) in doc.notes.iter().zip(vectors.chunks_exact(dim)) {
            if n.doc != doc.doc {
                return Err(invalid(format!(
                    "note {:?} names document {:?}",
                    n.id, n.doc
                )));
            }
            if !ids.insert(n.id.as_str()) {
                return Err(invalid(format!("note id {:?} appears twice", n.id)));
            }
            let norm2: f32 = v.iter().map(|x| x * x).sum();
            if !norm2.is_finite() || (norm2.sqrt() - 1.0).abs() > 1e-2 {
                return Err(invalid(format!(
                    "the vector of note {:?} has length {} (vectors must be L2-normalised)",
                    n.id,
                    norm2.sqrt()
                )));
            }
        }
        let fields = self.fields.clone();
        let parse = self.parse.clone();
        let p = self.begin()?;
        p.twriter
            .delete_term(Term::from_field_text(fields.doc, &doc.doc));
        let first_row = p.appender.rows();
        let mut by_kind = [0u64; 3];
        for (n, v) in doc.notes.iter().zip(vectors.chunks_exact(dim)) {
            let ordinal = p.appender.append(n, v)?;
            by_kind[kind_code(n.kind) as usize] += 1;
            p.twriter
                .add_document(tantivy_doc(&fields, n, ordinal, doc.title.as_deref()))
                .map_err(Error::tantivy(&p.tantivy_dir))?;
        }
        p.failures.remove(&doc.doc);
        p.documents.insert(
            doc.doc.clone(),
            DocEntry {
                hash: doc.hash,
                parse,
                title: doc.title,
                pages: doc.pages,
                pages_without_text: doc.pages_without_text,
                first_row,
                notes: doc.notes.len() as u64,
                by_kind,
            },
        );
        p.upserted += 1;
        Ok(())
    }

    /// Stages the removal of a document; returns whether it was indexed (or recorded as
    /// failed).
    pub fn remove(&mut self, doc: &str) -> Result<bool> {
        let known = match (&self.pending, &self.base) {
            (Some(p), _) => p.documents.contains_key(doc) || p.failures.contains_key(doc),
            (None, Some(m)) => m.documents.contains_key(doc) || m.failures.contains_key(doc),
            (None, None) => false,
        };
        if !known {
            return Ok(false);
        }
        let doc_field = self.fields.doc;
        let p = self.begin()?;
        p.twriter.delete_term(Term::from_field_text(doc_field, doc));
        p.documents.remove(doc);
        p.failures.remove(doc);
        p.removed += 1;
        Ok(true)
    }

    /// Records that a file could not be indexed, with its hash so that an unchanged failing
    /// file is skipped next time. An earlier indexed version of it is removed: its notes no
    /// longer describe the file.
    pub fn record_failure(&mut self, doc: &str, hash: &str, message: &str) -> Result<()> {
        let doc_field = self.fields.doc;
        let p = self.begin()?;
        if p.documents.remove(doc).is_some() {
            p.twriter.delete_term(Term::from_field_text(doc_field, doc));
        }
        p.failures.insert(
            doc.to_string(),
            Failure {
                hash: hash.to_string(),
                message: message.to_string(),
            },
        );
        Ok(())
    }

    /// Drops staged changes.
    pub fn rollback(&mut self) -> Result<()> {
        if let Some(p) = self.pending.take() {
            drop(p.twriter);
            fs::remove_dir_all(&p.gen_dir).map_err(Error::io("cannot remove", &p.gen_dir))?;
        }
        Ok(())
    }

    /// Writes a new complete generation: new files, fsync, then the manifest by rename. The
    /// previous generation stays readable throughout; a crash at any point leaves it as the
    /// newest. Then collects old generations no reader holds.
    pub fn commit(&mut self) -> Result<CommitStats> {
        let start = Instant::now();
        let Some(mut p) = self.pending.take() else {
            let m = self.base.as_ref();
            return Ok(CommitStats {
                generation: self.generation(),
                changed: false,
                documents: m.map(|m| m.documents.len()).unwrap_or(0),
                notes: m.map(|m| m.live_rows()).unwrap_or(0),
                upserted: 0,
                removed: 0,
                failures: m.map(|m| m.failures.len()).unwrap_or(0),
                rows_appended: 0,
                compacted: false,
                graph: if m.and_then(|m| m.graph.as_ref()).is_some() {
                    GraphAction::Kept
                } else {
                    GraphAction::None
                },
                gc: GcStats::default(),
                elapsed: start.elapsed(),
            });
        };
        let rows_appended = p.appender.rows() - p.rows_at_start;
        p.appender.sync()?;
        let live: u64 = p.documents.values().map(|d| d.notes).sum();
        let total = p.appender.rows();
        let dead = total - live;
        let compact = dead > 256 && dead as f64 > COMPACT_DEAD_FRACTION * total as f64;
        let mut store_info = StoreInfo {
            epoch: store_of(self.base.as_ref()).epoch,
            rows: p.appender.rows(),
            notes_bytes: p.appender.notes_bytes(),
        };
        let (tindex, documents) = if compact {
            drop(p.twriter);
            let (info, documents, tindex) =
                self.compact(p.generation, &p.tantivy_dir, &p.documents, &store_info)?;
            store_info = info;
            (tindex, documents)
        } else {
            p.twriter.commit().map_err(Error::tantivy(&p.tantivy_dir))?;
            p.twriter
                .wait_merging_threads()
                .map_err(Error::tantivy(&p.tantivy_dir))?;
            (p.tindex, p.documents)
        };
        let metas = tindex
            .load_metas()
            .map_err(Error::tantivy(&p.tantivy_dir))?;
        let tantivy = TantivyInfo {
            dir: format!("{}/tantivy", gen_dir_name(p.generation)),
            opstamp: metas.opstamp,
            segments: metas
                .segments
                .iter()
                .map(|s| s.id().uuid_string())
                .collect(),
            docs: metas.segments.iter().map(|s| u64::from(s.num_docs())).sum(),
        };
        drop(tindex);
        if tantivy.docs != live {
            return Err(Error::corrupt(
                &p.tantivy_dir,
                format!("{} tantivy documents for {live} notes", tantivy.docs),
            ));
        }

        let (graph, graph_action) = self.plan_graph(&store_info, &documents, p.generation)?;

        let lock_path = p.gen_dir.join(READERS_LOCK);
        File::create(&lock_path).map_err(Error::io("cannot create", &lock_path))?;
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            generation: p.generation,
            model_id: self.model_id.clone(),
            dim: self.dim,
            tantivy,
            store: store_info,
            graph,
            documents,
            failures: p.failures,
        };
        fs::write(p.gen_dir.join(GEN_MANIFEST), manifest.to_json())
            .map_err(Error::io("cannot write", &p.gen_dir.join(GEN_MANIFEST)))?;
        fsutil::share_reads_like(&p.tantivy_dir, &p.gen_dir.join(GEN_MANIFEST))?;
        fsutil::sync_tree(&p.gen_dir)?;
        crate::manifest::sync_dir(&self.dir)?;
        // The commit point: before this rename readers see the previous generation, after it
        // this one.
        write_atomic(&self.dir.join(MANIFEST), &manifest.to_json())?;
        let gc = fsutil::collect_garbage(&self.dir, Some(&manifest))?;
        let stats = CommitStats {
            generation: manifest.generation,
            changed: true,
            documents: manifest.documents.len(),
            notes: live,
            upserted: p.upserted,
            removed: p.removed,
            failures: manifest.failures.len(),
            rows_appended,
            compacted: compact,
            graph: graph_action,
            gc,
            elapsed: start.elapsed(),
        };
        self.base = Some(manifest);
        Ok(stats)
    }

    /// Copies the live rows into a new epoch (the generation number) with dense ordinals and
    /// indexes them into a fresh tantivy folder.
    fn compact(
        &self,
        generation: u64,
        tantivy_dir: &Path,
        documents: &BTreeMap<String, DocEntry>,
        old: &StoreInfo,
    ) -> Result<(StoreInfo, BTreeMap<String, DocEntry>, tantivy::Index)> {
        let old_store = Store::open(&self.dir, old, self.dim)?;
        let info = StoreInfo {
            epoch: generation,
            rows: 0,
            notes_bytes: 0,
        };
        let mut out = Appender::open(&self.dir, &info, self.dim)?;
        fs::remove_dir_all(tantivy_dir).map_err(Error::io("cannot remove", tantivy_dir))?;
        let tindex = self.create_tantivy(tantivy_dir)?;
        let mut tw: IndexWriter<TantivyDocument> = tindex
            .writer_with_num_threads(1, TANTIVY_HEAP)
            .map_err(Error::tantivy(tantivy_dir))?;
        let mut documents = documents.clone();
        for e in documents.values_mut() {
            let first = out.rows();
            for o in e.first_row..e.first_row + e.notes {
                let note: Note = old_store.note(o as usize)?;
                let ordinal = out.append(&note, old_store.vector(o as usize))?;
                tw.add_document(tantivy_doc(
                    &self.fields,
                    &note,
                    ordinal,
                    e.title.as_deref(),
                ))
                .map_err(Error::tantivy(tantivy_dir))?;
            }
            e.first_row = first;
        }
        out.sync()?;
        tw.commit().map_err(Error::tantivy(tantivy_dir))?;
        tw.wait_merging_threads()
            .map_err(Error::tantivy(tantivy_dir))?;
        let info = StoreInfo {
            epoch: generation,
            rows: out.rows(),
            notes_bytes: out.notes_bytes(),
        };
        Ok((info, documents, tindex))
    }

    fn plan_graph(
        &self,
        store: &StoreInfo,
        documents: &BTreeMap<String, DocEntry>,
        generation: u64,
    ) -> Result<(Option<GraphInfo>, GraphAction)> {
        let mut live: Vec<usize> = documents
            .values()
            .flat_map(|e| (e.first_row as usize)..(e.first_row + e.notes) as usize)
            .collect();
        live.sort_unstable();
        if live.len() < self.graph_threshold.max(1) {
            return Ok((None, GraphAction::None));
        }
        if let Some(g) = self.base.as_ref().and_then(|m| m.graph.as_ref())
            && g.epoch == store.epoch
        {
            let tail = store.rows - g.rows;
            let live_in_graph = live.partition_point(|&o| (o as u64) < g.rows) as u64;
            let dead_in_graph = g.points.saturating_sub(live_in_graph);
            if tail * 20 <= g.points && dead_in_graph * 5 <= g.points {
                return Ok((Some(g.clone()), GraphAction::Kept));
            }
        }
        let s = Store::open(&self.dir, store, self.dim)?;
        let graph = Graph::build(s.matrix(), self.dim, &live, self.params);
        let basename = format!("graph-{generation:06}");
        graph.dump(&self.dir, &basename)?;
        Ok((
            Some(GraphInfo {
                basename,
                epoch: store.epoch,
                rows: store.rows,
                points: graph.points() as u64,
            }),
            GraphAction::Built,
        ))
    }
}

/// The tantivy document of a note. Its `section` field holds the note's context line (the
/// document's title and the section path), the context its vector was embedded with.
fn tantivy_doc(f: &Fields, n: &Note, ordinal: u64, title: Option<&str>) -> TantivyDocument {
    let mut d = TantivyDocument::default();
    d.add_text(f.id, &n.id);
    d.add_text(f.doc, &n.doc);
    d.add_text(f.kind, n.kind.as_str());
    d.add_u64(f.page, u64::from(n.page.unwrap_or(0)));
    d.add_u64(f.ordinal, ordinal);
    d.add_text(f.text, &n.text);
    if let Some(c) = &n.caption {
        d.add_text(f.caption, c);
    }
    if !n.summary.is_empty() {
        d.add_text(f.summary, &n.summary);
    }
    if !n.keywords.is_empty() {
        d.add_text(f.keywords, n.keywords.join(" "));
    }
    let context = context_line(title, &n.section, &|_| true);
    if !context.is_empty() {
        d.add_text(f.section, context);
    }
    d
}
