//! The `indexer` Python package's native module (`indexer._native`): `Index` over the engine's
//! public API, the typed results, `ask` streamed. The package's Python half
//! (`python/indexer/`) adds the exceptions and the retriever adapter.
//!
//! Long calls (ingest, search, waiting for an answer) run without the GIL. Arguments are
//! checked by `indexer_mcp::SearchArgs`, as the MCP server's are, and failures carry the HTTP
//! API's codes.

mod ask;
mod errors;
mod types;

use errors::Raise;
use indexer_engine::{Engine, IngestEvent, Runtime};
use indexer_mcp::{Failure, Pages, RewriteArg, SearchArgs, Unit};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use types::{Hit, Note, Page, json_to_py};

/// The command a PDF worker process runs: this module's `_pdf_worker`, found from the folder
/// the package was imported from (argv[1]), with the interpreter's isolated mode so that
/// nothing in the working directory shadows it.
const WORKER: &str = "import sys; sys.path.insert(0, sys.argv[1]); from indexer import _native; _native._pdf_worker()";

/// The variable the workers find the runtime by (the one `Runtime::discover` reads): set to
/// this index's runtime, since the workers' executable is Python's, not beside the runtime.
const RUNTIME_ENV: &str = "INDEXER_RUNTIME";

/// An index folder: made by the first `ingest`, searched by `query` and `ask`.
///
/// `Index(path=".indexer", *, runtime=None, model=None)`: `path` defaults to `INDEXER_INDEX`,
/// else `.indexer`; `runtime` is the folder `tools/setup` filled (default: `INDEXER_RUNTIME`,
/// else `.runtime` in the working directory or beside the Python executable or above it);
/// `model` is the encoder of a new index (default: `INDEXER_MODEL`, else all-MiniLM-L6-v2).
#[pyclass(frozen, module = "indexer")]
#[derive(Debug)]
pub struct Index {
    path: PathBuf,
    runtime: Runtime,
    model: Option<String>,
    engine: Mutex<Option<Arc<Engine>>>,
}

impl Index {
    /// The engine over the newest generation, opened the first time.
    fn engine(&self, py: Python<'_>) -> PyResult<Arc<Engine>> {
        let open = self
            .engine
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(e) = open {
            py.detach(|| e.refresh()).or_raise()?;
            return Ok(e);
        }
        let e = Arc::new(
            py.detach(|| Engine::open(&self.path, &self.runtime))
                .or_raise()?,
        );
        let mut slot = self.engine.lock().unwrap_or_else(|e| e.into_inner());
        Ok(slot.get_or_insert(e).clone())
    }

    fn worker_command(&self, py: Python<'_>) -> PyResult<std::process::Command> {
        let exe: PathBuf = py.import("sys")?.getattr("executable")?.extract()?;
        if exe.as_os_str().is_empty() {
            return Err(PyTypeError::new_err(
                "sys.executable is empty: PDF worker processes need a Python interpreter",
            ));
        }
        let init: PathBuf = py.import("indexer")?.getattr("__file__")?.extract()?;
        let root = init
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut cmd = std::process::Command::new(exe);
        cmd.args(["-I", "-c", WORKER])
            .arg(root)
            .env(RUNTIME_ENV, self.runtime.root());
        Ok(cmd)
    }
}

#[pymethods]
impl Index {
    #[new]
    #[pyo3(signature = (path=None, *, runtime=None, model=None))]
    fn new(
        path: Option<PathBuf>,
        runtime: Option<PathBuf>,
        model: Option<String>,
    ) -> PyResult<Index> {
        let path = path
            .or_else(|| env("INDEXER_INDEX").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from(".indexer"));
        let path = std::path::absolute(&path).unwrap_or(path);
        let env_runtime = runtime.or_else(|| env(RUNTIME_ENV).map(PathBuf::from));
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let exe = std::env::current_exe().unwrap_or_default();
        let runtime = Runtime::discover_from(env_runtime.as_deref(), &cwd, &exe)
            .map_err(indexer_engine::Error::from)
            .or_raise()?;
        Ok(Index {
            path,
            runtime,
            model,
            engine: Mutex::new(None),
        })
    }

    /// The index folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// The runtime folder (pdfium, ONNX Runtime, models).
    #[getter]
    fn runtime(&self) -> PathBuf {
        self.runtime.root().to_path_buf()
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.path.display().to_string())
    }

    /// Adds files and folders to the index, or updates it: unchanged files are skipped,
    /// changed ones parsed again, removed ones deleted. Returns the summary as a dict (added,
    /// updated, unchanged, removed, failed, skipped, warnings, notes_added, notes_total,
    /// generation, seconds, ...).
    ///
    /// `progress`: True (or None, the default) prints a line per file on stderr; a callable gets each event as a
    /// dict (`{"event": "scanned", ...}`, `"file_started"`, `"page"`, `"embedded"`,
    /// `"file_failed"`, `"warning"`, `"committed"`); False is quiet. `base`: document ids are
    /// paths relative to it (default: the working directory).
    #[pyo3(signature = (paths, progress=None, *, base=None, jobs=None, crops=true, ocr_pictures=false, aligned_tables=false))]
    #[allow(clippy::too_many_arguments)]
    fn ingest<'py>(
        &self,
        py: Python<'py>,
        paths: &Bound<'py, PyAny>,
        progress: Option<Bound<'py, PyAny>>,
        base: Option<PathBuf>,
        jobs: Option<usize>,
        crops: bool,
        ocr_pictures: bool,
        aligned_tables: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let inputs = path_list(paths)?;
        for p in &inputs {
            if !p.exists() {
                return Err(errors::to_py(Failure::invalid(
                    "bad_request",
                    format!("{}: no such file or folder", p.display()),
                )));
            }
        }
        let progress = match progress {
            None => Progress::Print,
            Some(p) if p.is_callable() => Progress::Call(p.unbind()),
            Some(p) if p.is_truthy()? => Progress::Print,
            Some(_) => Progress::Quiet,
        };
        let rt = &self.runtime;
        // Fail before any work if pdfium is missing; the workers bind it themselves.
        rt.pdfium_library()
            .map_err(indexer_engine::Error::from)
            .or_raise()?;
        let model = self
            .model
            .clone()
            .or_else(|| env("INDEXER_MODEL"))
            .unwrap_or_else(|| indexer_engine::DEFAULT_MODEL.to_string());
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let encoder = py
            .detach(|| indexer_engine::load_encoder(rt, &model, cores))
            .or_raise()?;
        let base = match base {
            Some(b) => b,
            None => std::env::current_dir()?,
        };
        let mut cfg = indexer_engine::IngestConfig::new(&self.path, base, self.worker_command(py)?);
        cfg.options.jobs = jobs.unwrap_or(cores);
        cfg.options.crops = crops;
        cfg.options.ocr_pictures = ocr_pictures;
        cfg.options.aligned_tables = aligned_tables;
        cfg.options.chunking = indexer_engine::default_chunking(&encoder);
        let mut reporter = Reporter {
            progress,
            to_parse: 0,
            done: 0,
            error: None,
        };
        let summary = py
            .detach(|| indexer_engine::ingest(&inputs, &cfg, &encoder, &mut |e| reporter.event(e)));
        if let Some(e) = reporter.error {
            return Err(e);
        }
        let summary = summary.or_raise()?;
        // A search opened before sees the new generation.
        let open = self
            .engine
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some(e) = open {
            py.detach(|| e.refresh()).or_raise()?;
        }
        let v = serde_json::to_value(&summary).map_err(|e| PyTypeError::new_err(e.to_string()))?;
        json_to_py(py, &v)
    }

    /// Searches the index. `unit="note"` (default): the evidence set, a list of `Hit`, best
    /// first; `unit="page"` or `"document"`: a list of `Page`, each with its best notes (the
    /// selector is not used).
    ///
    /// `budget`: notes (or pages, documents) to return; `selector`: `fused-cap` (default),
    /// `fused`, `cds`, `cds-paper`, `cds-hybrid`, `mmr`, `dpp`, `cosine`, `ppr`, `random`, ...,
    /// with options as `NAME:KEY=VALUE` (`"fused-cap:cap=2"`); `docs`:
    /// documents by id or a unique end of one (`"lmer.pdf"`); `kinds`: `text`, `figure`,
    /// `table`; `pages`: `5`, `"3-9"` or `(3, 9)`; `rewrite`: the rewrite stage's rules,
    /// `True` (all, the default), `False` (the query searched as typed), or some of
    /// `"instructions"` (closing instructions about the answer, "Answer in millions.", left
    /// out), `"terms"` (a financial measure's line items added, in a financial context) and
    /// `"pages"` (pages named of a known document, "page 12", put first), as
    /// `"pages,terms"` or a list; `ranking`: `"learned"` or `"fused"` (how the candidates are
    /// ranked before selection).
    #[pyo3(signature = (query, budget=10, selector=None, docs=None, kinds=None, pages=None, unit="note", *, candidates=None, matching=None, feedback=None, rewrite=None, ranking=None))]
    #[allow(clippy::too_many_arguments)]
    fn query<'py>(
        &self,
        py: Python<'py>,
        query: String,
        budget: i64,
        selector: Option<String>,
        docs: Option<Bound<'py, PyAny>>,
        kinds: Option<Bound<'py, PyAny>>,
        pages: Option<Bound<'py, PyAny>>,
        unit: &str,
        candidates: Option<i64>,
        matching: Option<String>,
        feedback: Option<bool>,
        rewrite: Option<Bound<'py, PyAny>>,
        ranking: Option<String>,
    ) -> PyResult<Bound<'py, PyList>> {
        let rewrite = match rewrite {
            None => None,
            Some(r) => Some(match r.extract::<bool>() {
                Ok(on) => RewriteArg::On(on),
                Err(_) => RewriteArg::Rules(strings(Some(&r))?.join(",")),
            }),
        };
        let s = SearchArgs {
            query,
            budget: Some(budget),
            selector,
            candidates,
            docs: strings(docs.as_ref())?,
            kinds: strings(kinds.as_ref())?,
            pages: page_filter(pages.as_ref())?,
            unit: Some(unit.to_string()),
            matching,
            feedback,
            rewrite,
            ranking,
        }
        .validate()
        .or_raise()?;
        let engine = self.engine(py)?;
        let view = engine.view();
        match s.unit.group() {
            None => {
                let r = py.detach(|| engine.search(&s.request)).or_raise()?;
                let hits: Vec<Hit> = r.hits.iter().map(|h| Hit::of(&view, h)).collect();
                PyList::new(py, hits)
            }
            Some(by) => {
                let r = py
                    .detach(|| engine.search_grouped(&s.request, by))
                    .or_raise()?;
                let pages: Vec<Page> = r.pages.iter().map(|p| Page::of(&view, p)).collect();
                PyList::new(py, pages)
            }
        }
    }

    /// Answers a question in prose from its evidence set, read by an OpenAI-compatible model
    /// server: `llm_url` (default `INDEXER_LLM_URL`), `llm_model` (default
    /// `INDEXER_LLM_MODEL`, else the server's first model); the API key only from
    /// `INDEXER_LLM_API_KEY`. Returns an `AskStream`: iterate it for the answer's text as it
    /// arrives, then `.result()` for the `Answer` with its citations. The search runs first
    /// (its errors are raised here); the model's, while iterating.
    #[pyo3(signature = (query, budget=10, selector=None, docs=None, kinds=None, pages=None, *, llm_url=None, llm_model=None, images=None, timeout=None, max_tokens=None, options=None))]
    #[allow(clippy::too_many_arguments)]
    fn ask<'py>(
        &self,
        py: Python<'py>,
        query: String,
        budget: i64,
        selector: Option<String>,
        docs: Option<Bound<'py, PyAny>>,
        kinds: Option<Bound<'py, PyAny>>,
        pages: Option<Bound<'py, PyAny>>,
        llm_url: Option<String>,
        llm_model: Option<String>,
        images: Option<String>,
        timeout: Option<f64>,
        max_tokens: Option<u32>,
        options: Option<Bound<'py, PyDict>>,
    ) -> PyResult<ask::AskStream> {
        let s = SearchArgs {
            query,
            budget: Some(budget),
            selector,
            docs: strings(docs.as_ref())?,
            kinds: strings(kinds.as_ref())?,
            pages: page_filter(pages.as_ref())?,
            unit: Some(Unit::Note.as_str().to_string()),
            ..SearchArgs::default()
        }
        .validate()
        .or_raise()?;
        let Some(url) = llm_url
            .filter(|u| !u.trim().is_empty())
            .or_else(|| env("INDEXER_LLM_URL"))
        else {
            return Err(errors::to_py(Failure::ask_disabled("this index")));
        };
        let mut cfg = indexer_engine::LlmConfig::new(url);
        cfg.model = llm_model.or_else(|| env("INDEXER_LLM_MODEL"));
        cfg.api_key = indexer_engine::ApiKey::from_env(indexer_engine::API_KEY_ENV);
        cfg.key_env = Some(indexer_engine::API_KEY_ENV.to_string());
        if let Some(i) = images {
            cfg.images = i.parse().map_err(|e: String| {
                errors::to_py(Failure::invalid("bad_request", format!("images: {e}")))
            })?;
        }
        if let Some(secs) = timeout {
            if !(secs.is_finite() && secs > 0.0 && secs <= 86_400.0) {
                return Err(errors::to_py(Failure::invalid(
                    "bad_number",
                    format!("timeout must be a number of seconds above 0, not {secs}"),
                )));
            }
            cfg.timeout = std::time::Duration::from_secs_f64(secs);
        }
        if let Some(n) = max_tokens {
            cfg.max_tokens = n;
        }
        if let Some(o) = options {
            for (k, v) in o.iter() {
                cfg.options.insert(k.extract()?, types::py_to_json(&v)?);
            }
        }
        let llm = indexer_engine::Llm::new(cfg)
            .map_err(indexer_engine::Error::from)
            .or_raise()?;
        let engine = self.engine(py)?;
        let search = py.detach(|| engine.search(&s.request)).or_raise()?;
        if search.hits.is_empty() {
            // The engine's own refusal, raised here rather than from the stream.
            return Err(errors::engine(indexer_engine::Error::BadRequest(format!(
                "no evidence for {:?} in the index (or within its filters): nothing to ask about",
                search.query
            ))));
        }
        Ok(ask::AskStream::start(engine, llm, search))
    }

    /// One note whole, by the id a hit gives (`hit.note_id`).
    fn show(&self, py: Python<'_>, note_id: &str) -> PyResult<Note> {
        let engine = self.engine(py)?;
        let view = engine.view();
        match py.detach(|| view.note(note_id.trim())).or_raise()? {
            Some(n) => Ok(Note::of(&view, &n)),
            None => Err(errors::to_py(
                Failure::not_found(
                    "note_not_found",
                    format!("no note {note_id:?} in the index"),
                )
                .with_hint(
                    "note ids are as a hit's note_id gives them, for example guide/a.pdf#f3",
                ),
            )),
        }
    }

    /// The index's figures as a dict: documents, pages, notes, notes_by_kind, failed_files,
    /// model, dim, bytes, generation, and `failed`: the files that failed, with the reason.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let engine = self.engine(py)?;
        let view = engine.view();
        let (stats, failed) = py
            .detach(|| Ok::<_, indexer_engine::Error>((view.stats()?, view.failures()?)))
            .or_raise()?;
        let mut v =
            serde_json::to_value(&stats).map_err(|e| PyTypeError::new_err(e.to_string()))?;
        v["failed"] = serde_json::json!(
            failed
                .iter()
                .map(|f| serde_json::json!({"doc": f.doc, "error": f.message}))
                .collect::<Vec<_>>()
        );
        json_to_py(py, &v)
    }

    /// The documents: a list of dicts (doc, title, pages, notes, hash, pages_without_text).
    fn documents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let engine = self.engine(py)?;
        let view = engine.view();
        let docs = py.detach(|| view.documents()).or_raise()?;
        let v = serde_json::to_value(&docs).map_err(|e| PyTypeError::new_err(e.to_string()))?;
        json_to_py(py, &v)
    }
}

/// What `ingest` does with its events.
enum Progress {
    Quiet,
    /// A line per file on `sys.stderr`.
    Print,
    Call(Py<PyAny>),
}

struct Reporter {
    progress: Progress,
    to_parse: usize,
    done: usize,
    /// The first exception of the callback (or of writing), raised when the ingest ends.
    error: Option<PyErr>,
}

impl Reporter {
    /// Called without the GIL, from the ingest; takes it for the callback or the line.
    fn event(&mut self, e: IngestEvent) {
        if let IngestEvent::Scanned { to_parse, .. } = &e {
            self.to_parse = *to_parse;
        }
        if matches!(
            e,
            IngestEvent::Embedded { .. } | IngestEvent::FileFailed { .. }
        ) {
            self.done += 1;
        }
        if self.error.is_some() || matches!(self.progress, Progress::Quiet) {
            return;
        }
        let r = Python::attach(|py| match &self.progress {
            Progress::Quiet => Ok(()),
            Progress::Call(f) => f.call1(py, (event_dict(py, &e)?,)).map(|_| ()),
            Progress::Print => match self.line(&e) {
                Some(line) => py
                    .import("sys")?
                    .getattr("stderr")?
                    .call_method1("write", (line + "\n",))
                    .map(|_| ()),
                None => Ok(()),
            },
        });
        if let Err(err) = r {
            self.error = Some(err);
        }
    }

    fn line(&self, e: &IngestEvent) -> Option<String> {
        Some(match e {
            IngestEvent::Scanned {
                files,
                to_parse,
                unchanged,
                to_remove,
                ..
            } => {
                let mut line = format!(
                    "indexer: {files} files: {to_parse} to parse, {unchanged} unchanged, {to_remove} to remove"
                );
                if let Some(why) = e.parsed_again() {
                    line.push_str(&format!("\nindexer: {why}"));
                }
                line
            }
            IngestEvent::Embedded { doc, notes } => {
                format!(
                    "indexer: [{}/{}] {doc}: {notes} notes",
                    self.done, self.to_parse
                )
            }
            IngestEvent::FileFailed { doc, error } => {
                format!(
                    "indexer: [{}/{}] {doc} failed: {error}",
                    self.done, self.to_parse
                )
            }
            IngestEvent::Warning { doc, message } => format!("indexer: warning: {doc}: {message}"),
            IngestEvent::Committed { generation, files } => {
                format!("indexer: generation {generation} committed ({files} files)")
            }
            IngestEvent::FileStarted { .. } | IngestEvent::Page { .. } => return None,
        })
    }
}

fn event_dict<'py>(py: Python<'py>, e: &IngestEvent) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match e {
        IngestEvent::Scanned {
            files,
            to_parse,
            unchanged,
            to_remove,
            skipped,
            pages_hint,
            other_settings,
            settings_before,
            settings,
        } => {
            d.set_item("event", "scanned")?;
            d.set_item("files", files)?;
            d.set_item("to_parse", to_parse)?;
            d.set_item("unchanged", unchanged)?;
            d.set_item("to_remove", to_remove)?;
            d.set_item("skipped", skipped)?;
            d.set_item("pages_hint", pages_hint)?;
            d.set_item("other_settings", other_settings)?;
            d.set_item("settings_before", settings_before)?;
            d.set_item("settings", settings)?;
        }
        IngestEvent::FileStarted { doc, pages } => {
            d.set_item("event", "file_started")?;
            d.set_item("doc", doc)?;
            d.set_item("pages", pages)?;
        }
        IngestEvent::Page { doc, page, pages } => {
            d.set_item("event", "page")?;
            d.set_item("doc", doc)?;
            d.set_item("page", page)?;
            d.set_item("pages", pages)?;
        }
        IngestEvent::FileFailed { doc, error } => {
            d.set_item("event", "file_failed")?;
            d.set_item("doc", doc)?;
            d.set_item("error", error)?;
        }
        IngestEvent::Embedded { doc, notes } => {
            d.set_item("event", "embedded")?;
            d.set_item("doc", doc)?;
            d.set_item("notes", notes)?;
        }
        IngestEvent::Committed { generation, files } => {
            d.set_item("event", "committed")?;
            d.set_item("generation", generation)?;
            d.set_item("files", files)?;
        }
        IngestEvent::Warning { doc, message } => {
            d.set_item("event", "warning")?;
            d.set_item("doc", doc)?;
            d.set_item("message", message)?;
        }
    }
    Ok(d)
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// One path (str or `os.PathLike`) or an iterable of them.
fn path_list(o: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if o.is_instance_of::<PyString>() || o.hasattr("__fspath__")? {
        return Ok(vec![o.extract()?]);
    }
    o.try_iter()?.map(|p| p?.extract()).collect()
}

/// One string or an iterable of strings.
fn strings(o: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<String>> {
    match o {
        None => Ok(Vec::new()),
        Some(o) if o.is_none() => Ok(Vec::new()),
        Some(o) if o.is_instance_of::<PyString>() => Ok(vec![o.extract()?]),
        Some(o) => o.try_iter()?.map(|s| s?.extract()).collect(),
    }
}

/// `5`, `"3-9"` or `(3, 9)`.
fn page_filter(o: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Pages>> {
    let Some(o) = o.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if o.is_instance_of::<PyString>() {
        return Ok(Some(Pages::Text(o.extract()?)));
    }
    if let Ok(n) = o.extract::<i64>() {
        return Ok(Some(Pages::One(n)));
    }
    if let Ok((a, b)) = o.extract::<(i64, i64)>() {
        return Ok(Some(Pages::Range(a, b)));
    }
    Err(errors::to_py(Failure::invalid(
        "bad_pages",
        format!("pages must be 5, \"3-9\" or (3, 9), not {}", o.repr()?),
    )))
}

/// A PDF worker process's loop (the command `ingest` starts): jobs on stdin, results on
/// stdout, until stdin closes. Internal.
#[pyfunction]
fn _pdf_worker(py: Python<'_>) -> PyResult<()> {
    py.detach(indexer_engine::run_worker)?;
    Ok(())
}

#[pymodule(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Index>()?;
    m.add_class::<Hit>()?;
    m.add_class::<Page>()?;
    m.add_class::<Note>()?;
    m.add_class::<types::Citation>()?;
    m.add_class::<types::Answer>()?;
    m.add_class::<ask::AskStream>()?;
    m.add_function(wrap_pyfunction!(_pdf_worker, m)?)?;
    Ok(())
}
