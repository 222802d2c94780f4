//! The ingest pipeline: files and folders in, a new index generation out.
//!
//! Files are hashed first; a file whose hash the index already holds is skipped without being
//! parsed or embedded. The rest are parsed (PDFs in worker processes), embedded and written in
//! batches, each batch committed as a complete index generation, so a crash or kill loses at
//! most the batch in flight and never leaves a half-written generation.

use crate::sink::{LocalSink, Sink};
use crate::{Error, Result};
use indexer_embed::Encoder;
use indexer_ingest::{IngestOptions, WorkerPool};
use indexer_notes::ParsedDocument;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How an ingest runs.
#[derive(Debug)]
pub struct IngestConfig {
    /// The index folder (created if missing).
    pub index_dir: PathBuf,
    /// Document ids are paths relative to this folder (with `/`); files outside it keep their
    /// absolute path as id.
    pub base: PathBuf,
    /// Parsing options (chunking, crops, timeouts, worker count).
    pub options: IngestOptions,
    /// The command that starts a PDF worker process (the binary's hidden worker subcommand).
    pub worker: Command,
    /// Commit a generation after this many parsed files (and at the end).
    pub commit_every_files: usize,
    /// ... or when this much time has passed since the last commit.
    pub commit_every: Duration,
    /// Texts per encoder call.
    pub embed_batch: usize,
}

impl IngestConfig {
    pub fn new(
        index_dir: impl Into<PathBuf>,
        base: impl Into<PathBuf>,
        worker: Command,
    ) -> IngestConfig {
        IngestConfig {
            index_dir: index_dir.into(),
            base: base.into(),
            options: IngestOptions::default(),
            worker,
            commit_every_files: 32,
            commit_every: Duration::from_secs(120),
            embed_batch: 64,
        }
    }
}

/// Progress of an ingest, for progress bars and logs.
#[derive(Debug, Clone)]
pub enum IngestEvent {
    /// The inputs were walked and hashed.
    Scanned {
        files: usize,
        to_parse: usize,
        unchanged: usize,
        to_remove: usize,
        skipped: usize,
        pages_hint: u64,
        /// Files among `to_parse` that are unchanged but were parsed with other settings or
        /// an older parser (`IngestOptions::parse_settings`), parsed again for that.
        other_settings: usize,
        /// The settings those files were parsed with, each once ("" when none were recorded:
        /// an index made before they were).
        settings_before: Vec<String>,
        /// The settings this ingest parses with.
        settings: String,
    },
    /// A worker started a file.
    FileStarted { doc: String, pages: u32 },
    /// A page was parsed.
    Page { doc: String, page: u32, pages: u32 },
    /// A file could not be parsed.
    FileFailed { doc: String, error: String },
    /// Notes of a file were embedded.
    Embedded { doc: String, notes: usize },
    /// A generation was committed.
    Committed { generation: u64, files: usize },
    /// A non-fatal problem in a file (pages without text, for example).
    Warning { doc: String, message: String },
}

impl IngestEvent {
    /// For `Scanned` with unchanged files to parse again, why: the settings they were parsed
    /// with and those of this run, so that a person sees that an index made with other
    /// options (`--aligned-tables`, another chunking) or by an older parser is being rebuilt.
    pub fn parsed_again(&self) -> Option<String> {
        let IngestEvent::Scanned {
            other_settings,
            settings_before,
            settings,
            ..
        } = self
        else {
            return None;
        };
        if *other_settings == 0 {
            return None;
        }
        let before: Vec<String> = settings_before
            .iter()
            .map(|b| {
                if b.is_empty() {
                    "none recorded (an older parser)".to_string()
                } else {
                    format!("{b:?}")
                }
            })
            .collect();
        let noun = if *other_settings == 1 {
            "file is"
        } else {
            "files are"
        };
        Some(format!(
            "{other_settings} unchanged {noun} parsed again: parsed before with {}, now with {settings:?}",
            before.join(" and ")
        ))
    }
}

/// A file that failed, with the reason.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Failure {
    pub doc: String,
    pub error: String,
}

/// A non-fatal problem in a file that was indexed: pages without text, text from OCR, a
/// truncated file, a page that could not be loaded or rendered.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct FileWarning {
    pub doc: String,
    /// 1-based page, if the problem is on one page (or starts there).
    pub page: Option<u32>,
    pub message: String,
}

/// The pages of one file whose text comes from OCR.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct OcrPages {
    pub doc: String,
    /// Every page read by OCR (1-based).
    pub pages: Vec<u32>,
    /// Those of them whose text layer was unreadable (characters other than the ones
    /// printed) and was dropped; the others had no text layer.
    pub unreadable: Vec<u32>,
}

/// What an ingest did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IngestSummary {
    pub added: Vec<String>,
    pub updated: Vec<String>,
    pub unchanged: usize,
    pub removed: Vec<String>,
    pub failed: Vec<Failure>,
    /// Files of types ingestion does not read, with the reason.
    pub skipped: Vec<Failure>,
    /// Problems in files that were indexed all the same.
    pub warnings: Vec<FileWarning>,
    /// Files with pages read by OCR, each with those pages.
    pub ocr: Vec<OcrPages>,
    /// Notes written by this run.
    pub notes_added: usize,
    /// Texts the encoder embedded (0 when nothing changed).
    pub embedded: usize,
    /// Texts longer than the encoder reads, truncated.
    pub truncated: usize,
    /// Pages parsed.
    pub pages: u64,
    /// Notes in the index after the run.
    pub notes_total: usize,
    pub generation: u64,
    pub seconds: f64,
}

/// A file found under the inputs.
#[derive(Debug, Clone)]
struct Found {
    path: PathBuf,
    doc: String,
}

/// The document id of `path`: relative to `base` with `/` separators, else the absolute path.
/// Paths are made absolute and normalised lexically, not canonicalised: a symlinked file keeps
/// the name it has under `base`, which is the name the user (and an eval question) knows.
pub fn doc_id(path: &Path, base: &Path) -> String {
    let abs = absolute(path);
    let base = absolute(base);
    match abs.strip_prefix(&base) {
        Ok(rel) => join_components(rel),
        Err(_) => format!("/{}", join_components(&abs)),
    }
}

fn absolute(p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn join_components(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Walks files and folders (recursively, skipping hidden entries such as `.git` or the index
/// folder itself). Unsupported files are listed as skipped.
fn walk(
    inputs: &[PathBuf],
    base: &Path,
    index_dir: &Path,
) -> Result<(Vec<Found>, Vec<Failure>, Vec<String>)> {
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    // Document-id prefixes of the input folders: documents under them that are gone now are
    // removed from the index; documents elsewhere are left alone.
    let mut roots = Vec::new();
    let index_canon = index_dir.canonicalize().ok();
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| Error::Input {
            path: input.clone(),
            message: e.to_string(),
        })?;
        if meta.is_file() {
            let doc = doc_id(input, base);
            roots.push(doc.clone());
            if indexer_ingest::supported(input).is_some() {
                found.push(Found {
                    path: input.clone(),
                    doc,
                });
            } else {
                skipped.push(Failure {
                    doc,
                    error: "not a PDF, Markdown, HTML or text file".into(),
                });
            }
            continue;
        }
        let root = doc_id(input, base);
        roots.push(if root.is_empty() {
            String::new()
        } else {
            format!("{root}/")
        });
        let mut stack = vec![input.clone()];
        while let Some(dir) = stack.pop() {
            let mut entries: Vec<_> = std::fs::read_dir(&dir)
                .map_err(|e| Error::Input {
                    path: dir.clone(),
                    message: e.to_string(),
                })?
                .filter_map(|e| e.ok())
                .collect();
            entries.sort_by_key(|e| e.file_name());
            for e in entries {
                let name = e.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let p = e.path();
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    if index_canon
                        .as_ref()
                        .is_some_and(|ic| p.canonicalize().ok().as_ref() == Some(ic))
                    {
                        continue;
                    }
                    stack.push(p);
                } else if ft.is_file() || ft.is_symlink() && p.is_file() {
                    let doc = doc_id(&p, base);
                    if indexer_ingest::supported(&p).is_some() {
                        found.push(Found { path: p, doc });
                    } else {
                        skipped.push(Failure {
                            doc,
                            error: "not a PDF, Markdown, HTML or text file".into(),
                        });
                    }
                }
            }
        }
    }
    found.sort_by(|a, b| a.doc.cmp(&b.doc));
    found.dedup_by(|a, b| a.doc == b.doc);
    Ok((found, skipped, roots))
}

fn hash_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| Error::Input {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(indexer_notes::content_hash(&bytes))
}

/// Ingests `inputs` into the index at `cfg.index_dir`.
pub fn ingest(
    inputs: &[PathBuf],
    cfg: &IngestConfig,
    encoder: &dyn Encoder,
    on_event: &mut dyn FnMut(IngestEvent),
) -> Result<IngestSummary> {
    let t0 = Instant::now();
    let mut summary = IngestSummary::default();
    let location = crate::IndexLocation::of(&cfg.index_dir)?;
    let mut writer: Box<dyn Sink> = match &location {
        crate::IndexLocation::Dir(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::Input {
                path: dir.clone(),
                message: e.to_string(),
            })?;
            Box::new(LocalSink::open(dir, encoder.model_id(), encoder.dim())?)
        }
        crate::IndexLocation::Milvus(url) => Box::new(crate::milvus::MilvusSink::open(
            url,
            encoder.model_id(),
            encoder.dim(),
            location.new_crop_dir(),
        )?),
    };
    let (found, skipped, roots) = walk(inputs, &cfg.base, &cfg.index_dir)?;
    summary.skipped = skipped;

    let state: BTreeMap<String, String> = writer.file_state().into_iter().collect();
    // A document parsed with other settings (chunking, crops, OCR of pictures) is parsed
    // again, though its file is unchanged.
    let settings = cfg.options.parse_settings();
    let parsed_with = writer.parsed_with();
    writer.set_parse_settings(&settings);
    // Files that failed last time are tried again (the runtime or the parser may have been
    // fixed since); a failure is cheap to repeat and must keep being reported.
    let failed_before = writer.failed_before();
    let mut todo: Vec<(Found, String, bool)> = Vec::new(); // (file, hash, is_update)
    let mut other_settings = 0;
    let mut settings_before = BTreeSet::new();
    let mut failed_hashing = Vec::new();
    for f in &found {
        match hash_file(&f.path) {
            Ok(h) => match state.get(&f.doc) {
                Some(old)
                    if *old == h
                        && !failed_before.contains(&f.doc)
                        && parsed_with.get(&f.doc).is_some_and(|s| *s == settings) =>
                {
                    summary.unchanged += 1
                }
                Some(old) => {
                    if *old == h && !failed_before.contains(&f.doc) {
                        let before = parsed_with.get(&f.doc).cloned().unwrap_or_default();
                        other_settings += 1;
                        settings_before.insert(before);
                    }
                    todo.push((f.clone(), h, true))
                }
                None => todo.push((f.clone(), h, false)),
            },
            Err(e) => failed_hashing.push(Failure {
                doc: f.doc.clone(),
                error: e.to_string(),
            }),
        }
    }
    let present: BTreeSet<&str> = found.iter().map(|f| f.doc.as_str()).collect();
    let to_remove: Vec<String> = state
        .keys()
        .filter(|d| !present.contains(d.as_str()))
        .filter(|d| {
            roots
                .iter()
                .any(|r| r.is_empty() || *d == r || (r.ends_with('/') && d.starts_with(r.as_str())))
        })
        .cloned()
        .collect();
    on_event(IngestEvent::Scanned {
        files: found.len(),
        to_parse: todo.len(),
        unchanged: summary.unchanged,
        to_remove: to_remove.len(),
        skipped: summary.skipped.len(),
        pages_hint: 0,
        other_settings,
        settings_before: settings_before.into_iter().collect(),
        settings: settings.clone(),
    });
    for f in failed_hashing {
        on_event(IngestEvent::FileFailed {
            doc: f.doc.clone(),
            error: f.error.clone(),
        });
        summary.failed.push(f);
    }
    // Crops that no note of the new generation uses: those of removed documents, and those of
    // changed documents that the new parse did not write again. They are deleted only after the
    // commit that stops referring to them.
    let mut stale_crops: Vec<(String, BTreeSet<String>)> = Vec::new();
    for doc in &to_remove {
        writer.remove(doc)?;
        summary.removed.push(doc.clone());
        stale_crops.push((doc.clone(), BTreeSet::new()));
    }

    let pool = WorkerPool::new(clone_command(&cfg.worker), cfg.options.jobs);
    let crop_dir = writer.crop_dir();
    let batch = (pool.jobs() * 4).min(cfg.commit_every_files.max(1));
    let mut since_commit = 0usize;
    let mut last_commit = Instant::now();
    let mut dirty = !to_remove.is_empty();
    let counter = EncoderCounter(encoder);
    for chunk in todo.chunks(batch) {
        let files: Vec<(PathBuf, String)> = chunk
            .iter()
            .map(|(f, _, _)| (f.path.clone(), f.doc.clone()))
            .collect();
        let results = pool.parse_all(files, &cfg.options, &counter, &crop_dir, &mut |e| match e {
            indexer_ingest::Event::FileStarted { doc, pages } => {
                on_event(IngestEvent::FileStarted { doc, pages })
            }
            indexer_ingest::Event::Page { doc, page, pages } => {
                on_event(IngestEvent::Page { doc, page, pages })
            }
            indexer_ingest::Event::FileFailed { doc, error } => {
                on_event(IngestEvent::FileFailed { doc, error })
            }
            indexer_ingest::Event::FileDone { .. } => {}
        });
        for ((found, hash, is_update), (doc, res)) in chunk.iter().zip(results) {
            match res {
                Ok(mut parsed) => {
                    parsed.hash = hash.clone();
                    summary.pages += u64::from(parsed.pages);
                    // The parser's warnings (pages without text, OCR, a truncated file,
                    // pages that cannot be loaded or rendered) name the file; the event names
                    // it once.
                    for w in &parsed.warnings {
                        let message =
                            without_file_prefix(&w.message, &found.path, &doc).to_string();
                        on_event(IngestEvent::Warning {
                            doc: doc.clone(),
                            message: message.clone(),
                        });
                        summary.warnings.push(FileWarning {
                            doc: doc.clone(),
                            page: w.page,
                            message,
                        });
                    }
                    if !parsed.ocr_pages.is_empty() {
                        summary.ocr.push(OcrPages {
                            doc: doc.clone(),
                            pages: parsed.ocr_pages.clone(),
                            unreadable: parsed.unreadable_pages.clone(),
                        });
                    }
                    if *is_update {
                        let keep = parsed
                            .notes
                            .iter()
                            .filter_map(|n| n.image.clone())
                            .collect();
                        stale_crops.push((doc.clone(), keep));
                    }
                    let contextual = embedding_texts(&parsed, &counter);
                    let texts: Vec<&str> = contextual.iter().map(String::as_str).collect();
                    let mut vectors = Vec::with_capacity(texts.len() * encoder.dim());
                    for part in texts.chunks(cfg.embed_batch.max(1)) {
                        let emb = encoder.embed_documents(part)?;
                        summary.truncated += emb.truncated;
                        vectors.extend_from_slice(&emb.data);
                    }
                    summary.embedded += texts.len();
                    summary.notes_added += parsed.notes.len();
                    on_event(IngestEvent::Embedded {
                        doc: doc.clone(),
                        notes: parsed.notes.len(),
                    });
                    writer.upsert(parsed, vectors, &contextual)?;
                    if *is_update {
                        summary.updated.push(doc)
                    } else {
                        summary.added.push(doc)
                    }
                }
                Err(e) => {
                    // The summary names the document already; drop the path the error starts with.
                    let full = e.to_string();
                    let error = without_file_prefix(&full, &found.path, &doc).to_string();
                    writer.record_failure(&found.doc, hash, &error)?;
                    summary.failed.push(Failure { doc, error });
                }
            }
            dirty = true;
            since_commit += 1;
        }
        if since_commit >= cfg.commit_every_files || last_commit.elapsed() >= cfg.commit_every {
            let generation = writer.commit()?;
            on_event(IngestEvent::Committed {
                generation,
                files: since_commit,
            });
            remove_stale_crops(&crop_dir, &mut stale_crops);
            since_commit = 0;
            last_commit = Instant::now();
            dirty = false;
        }
    }
    if dirty || writer.generation() == 0 {
        let generation = writer.commit()?;
        on_event(IngestEvent::Committed {
            generation,
            files: since_commit,
        });
        remove_stale_crops(&crop_dir, &mut stale_crops);
    }
    summary.generation = writer.generation();
    summary.notes_total = writer.notes_total()?;
    drop(writer);
    summary.seconds = t0.elapsed().as_secs_f64();
    Ok(summary)
}

/// Deletes the crops that the documents' notes in the generation just committed no longer
/// use (see [`indexer_ingest::remove_stale_crops`]).
fn remove_stale_crops(crop_dir: &Path, stale: &mut Vec<(String, BTreeSet<String>)>) {
    for (doc, keep) in stale.drain(..) {
        indexer_ingest::remove_stale_crops(crop_dir, &doc, &keep);
    }
}

/// The default chunking: chunks of [`chunk_tokens`] encoder tokens with 10% overlap.
pub fn default_chunking(encoder: &dyn Encoder) -> indexer_ingest::Chunking {
    indexer_ingest::Chunking::tokens(chunk_tokens(encoder.max_tokens()))
}

/// The length of a default chunk for an encoder that reads `max_tokens`: at most
/// [`NOTE_TOKENS`](indexer_notes::NOTE_TOKENS), less the room the context line takes
/// ([`CONTEXT_TOKENS`](indexer_notes::CONTEXT_TOKENS)), so the context never cuts a note short.
pub fn chunk_tokens(max_tokens: usize) -> usize {
    max_tokens
        .min(indexer_notes::NOTE_TOKENS)
        .saturating_sub(indexer_notes::CONTEXT_TOKENS)
        .max(indexer_notes::CONTEXT_TOKENS)
}

/// What the encoder embeds for each note of a document: the note's context line (title and
/// section path, at most [`CONTEXT_TOKENS`](indexer_notes::CONTEXT_TOKENS) encoder tokens), a
/// line break, its text. The lines are made once per section path.
fn embedding_texts(doc: &ParsedDocument, counter: &dyn indexer_notes::TokenCounter) -> Vec<String> {
    let fits = |line: &str| counter.count_tokens(line) <= indexer_notes::CONTEXT_TOKENS;
    let mut lines: HashMap<&[String], String> = HashMap::new();
    doc.notes
        .iter()
        .map(|n| {
            let line = lines.entry(n.section.as_slice()).or_insert_with(|| {
                indexer_notes::context_line(doc.title.as_deref(), &n.section, &fits)
            });
            indexer_notes::contextual_text(line, &n.text)
        })
        .collect()
}

/// The encoder's token counter, for the chunker.
struct EncoderCounter<'a>(&'a dyn Encoder);

impl indexer_notes::TokenCounter for EncoderCounter<'_> {
    fn count_tokens(&self, text: &str) -> usize {
        self.0.count_tokens(text)
    }
}

fn clone_command(cmd: &Command) -> Command {
    let mut c = Command::new(cmd.get_program());
    c.args(cmd.get_args());
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    if let Some(d) = cmd.get_current_dir() {
        c.current_dir(d);
    }
    c
}

/// `message` without a leading "FILE: " naming `path` or the document id `doc`.
fn without_file_prefix<'a>(message: &'a str, path: &Path, doc: &str) -> &'a str {
    let path = path.display().to_string();
    [path.as_str(), doc]
        .iter()
        .find_map(|p| message.strip_prefix(p).and_then(|m| m.strip_prefix(": ")))
        .unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scan_says_why_unchanged_files_are_parsed_again() {
        let scanned = |other_settings, settings_before: &[&str]| IngestEvent::Scanned {
            files: 3,
            to_parse: 2,
            unchanged: 1,
            to_remove: 0,
            skipped: 0,
            pages_hint: 0,
            other_settings,
            settings_before: settings_before.iter().map(|s| s.to_string()).collect(),
            settings: "notes=5".into(),
        };
        assert_eq!(scanned(0, &[]).parsed_again(), None);
        assert_eq!(
            scanned(2, &["", "notes=5 aligned-tables=on"])
                .parsed_again()
                .as_deref(),
            Some(
                "2 unchanged files are parsed again: parsed before with none recorded (an older \
                 parser) and \"notes=5 aligned-tables=on\", now with \"notes=5\""
            )
        );
        assert_eq!(
            scanned(1, &["notes=4"]).parsed_again().as_deref(),
            Some(
                "1 unchanged file is parsed again: parsed before with \"notes=4\", now with \"notes=5\""
            )
        );
        let other = IngestEvent::FileStarted {
            doc: "a.pdf".into(),
            pages: 1,
        };
        assert_eq!(other.parsed_again(), None);
    }

    #[test]
    fn chunks_are_notes_of_at_most_256_tokens_with_room_for_the_context() {
        // MiniLM reads 256, nomic 512: both make 224-token notes; a short encoder its own.
        assert_eq!(chunk_tokens(256), 224);
        assert_eq!(chunk_tokens(512), 224);
        assert_eq!(chunk_tokens(128), 96);
        assert_eq!(chunk_tokens(40), 32);
    }

    #[test]
    fn notes_are_embedded_with_their_context_line_within_its_budget() {
        use indexer_notes::{CONTEXT_TOKENS, Note, NoteKind, WordCounter};
        let mut a = Note::new("d#t0", "d", NoteKind::Text, "Revenue grew 7%.");
        a.section = vec!["Results".into(), "Revenue".into()];
        let b = Note::new("d#t1", "d", NoteKind::Text, "No section here.");
        let mut long = Note::new("d#t2", "d", NoteKind::Text, "Body.");
        long.section = vec!["word ".repeat(3 * CONTEXT_TOKENS), "Inner".into()];
        let doc = ParsedDocument {
            doc: "d".into(),
            hash: String::new(),
            title: Some("Annual report".into()),
            pages: 1,
            pages_without_text: vec![],
            ocr_pages: vec![],
            unreadable_pages: vec![],
            notes: vec![a, b, long],
            warnings: vec![],
        };
        let texts = embedding_texts(&doc, &WordCounter);
        assert_eq!(
            texts[0],
            "Annual report > Results > Revenue\nRevenue grew 7%."
        );
        assert_eq!(texts[1], "Annual report\nNo section here.");
        // The over-long outer section is dropped; the note's own text is never cut.
        assert_eq!(texts[2], "Annual report > Inner\nBody.");
        let untitled = ParsedDocument { title: None, ..doc };
        assert_eq!(
            embedding_texts(&untitled, &WordCounter)[1],
            "No section here."
        );
    }

    #[test]
    fn doc_ids_are_relative_lexical_paths() {
        let base = Path::new("/data/corpus");
        assert_eq!(doc_id(Path::new("/data/corpus/a/b.pdf"), base), "a/b.pdf");
        assert_eq!(
            doc_id(Path::new("/data/corpus/./a/../c.pdf"), base),
            "c.pdf"
        );
        assert_eq!(
            doc_id(Path::new("/elsewhere/x.pdf"), base),
            "/elsewhere/x.pdf"
        );
        assert_eq!(doc_id(Path::new("/data/corpus"), base), "");
        // A symlink keeps its own name: nothing is resolved on disk.
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("target.pdf"), b"%PDF").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(t.path().join("target.pdf"), t.path().join("link.pdf"))
                .unwrap();
            assert_eq!(doc_id(&t.path().join("link.pdf"), t.path()), "link.pdf");
        }
    }

    #[test]
    fn messages_lose_the_file_name_they_start_with() {
        let path = Path::new("/data/corpus/a.pdf");
        let strip = |m| without_file_prefix(m, path, "a.pdf");
        assert_eq!(
            strip("/data/corpus/a.pdf: page 3 cannot be loaded"),
            "page 3 cannot be loaded"
        );
        assert_eq!(
            strip("a.pdf: page 3 cannot be rendered"),
            "page 3 cannot be rendered"
        );
        assert_eq!(strip("a.pdf is damaged"), "a.pdf is damaged");
        assert_eq!(strip("/data/corpus/a.pdfx: no"), "/data/corpus/a.pdfx: no");
    }
}
