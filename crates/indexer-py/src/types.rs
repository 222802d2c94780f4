//! The typed results: `Hit`, `Page`, `Note`, `Citation`, `Answer`. Plain data, read-only,
//! copied out of the engine's results (no reference to the index is kept).

use indexer_engine::IndexView;
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

/// One evidence note of a search, best first.
#[pyclass(frozen, get_all, module = "indexer")]
#[derive(Debug, Clone)]
pub struct Hit {
    /// 1-based rank; `[n]` in an answer is the hit of rank n.
    pub rank: usize,
    pub note_id: String,
    /// The document id: its path relative to where it was ingested from.
    pub doc: String,
    /// 1-based page of a PDF; None for Markdown, HTML and text.
    pub page: Option<u32>,
    /// The number printed on the page, when it shows one (`xii`).
    pub page_label: Option<String>,
    /// `text`, `figure` or `table`.
    pub kind: String,
    /// The note's whole text.
    pub text: String,
    pub caption: Option<String>,
    /// The heading path, outermost first.
    pub section: Vec<String>,
    /// The part of the text that shows the match.
    pub snippet: String,
    /// The selector's score (the fused score for the default selector).
    pub score: f64,
    /// Cosine of the note and the question.
    pub cosine: f32,
    pub bm25_rank: Option<usize>,
    pub vector_rank: Option<usize>,
    /// The PNG crop of a figure or table, a file in the index's crop folder; None otherwise.
    pub image_path: Option<String>,
}

impl Hit {
    pub fn of(view: &IndexView, h: &indexer_engine::Hit) -> Hit {
        let n = &h.note;
        Hit {
            rank: h.rank,
            note_id: n.id.clone(),
            doc: n.doc.clone(),
            page: n.page,
            page_label: n.page_label.clone(),
            kind: n.kind.as_str().to_string(),
            text: n.text.clone(),
            caption: n.caption.clone(),
            section: n.section.clone(),
            snippet: h.snippet.text.clone(),
            score: h.score,
            cosine: h.cosine,
            bm25_rank: h.bm25_rank,
            vector_rank: h.vector_rank,
            image_path: image_path(view, n),
        }
    }
}

/// The crop of a note, only if it is a file inside the index's crop folder.
fn image_path(view: &IndexView, n: &indexer_engine::Note) -> Option<String> {
    view.image_path(n).map(|p| p.to_string_lossy().into_owned())
}

#[pymethods]
impl Hit {
    /// The hit as a dict (for JSON, pandas, a vector store's metadata).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("rank", self.rank)?;
        d.set_item("note_id", &self.note_id)?;
        d.set_item("doc", &self.doc)?;
        d.set_item("page", self.page)?;
        d.set_item("page_label", &self.page_label)?;
        d.set_item("kind", &self.kind)?;
        d.set_item("text", &self.text)?;
        d.set_item("caption", &self.caption)?;
        d.set_item("section", &self.section)?;
        d.set_item("snippet", &self.snippet)?;
        d.set_item("score", self.score)?;
        d.set_item("cosine", self.cosine)?;
        d.set_item("bm25_rank", self.bm25_rank)?;
        d.set_item("vector_rank", self.vector_rank)?;
        d.set_item("image_path", &self.image_path)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Hit(rank={}, note_id={:?}, doc={:?}, page={}, kind={:?}, score={:.4})",
            self.rank,
            self.note_id,
            self.doc,
            self.page.map_or("None".to_string(), |p| p.to_string()),
            self.kind,
            self.score
        )
    }
}

/// One page (or document) of a search by page or document, with its best notes.
#[pyclass(frozen, get_all, module = "indexer")]
#[derive(Debug, Clone)]
pub struct Page {
    pub rank: usize,
    pub doc: String,
    /// None for an unpaged document, and for every result of a search by document.
    pub page: Option<u32>,
    /// The best fused score of its notes.
    pub score: f64,
    /// Its best notes (at most 3), best first; their rank is among all candidates.
    pub hits: Vec<Hit>,
}

impl Page {
    pub fn of(view: &IndexView, p: &indexer_engine::PageResult) -> Page {
        Page {
            rank: p.rank,
            doc: p.doc.clone(),
            page: p.page,
            score: p.score,
            hits: p.notes.iter().map(|h| Hit::of(view, h)).collect(),
        }
    }
}

#[pymethods]
impl Page {
    fn __repr__(&self) -> String {
        format!(
            "Page(rank={}, doc={:?}, page={}, score={:.4}, hits={})",
            self.rank,
            self.doc,
            self.page.map_or("None".to_string(), |p| p.to_string()),
            self.score,
            self.hits.len()
        )
    }
}

/// A note whole, as `Index.show` returns it.
#[pyclass(frozen, get_all, module = "indexer")]
#[derive(Debug, Clone)]
pub struct Note {
    pub note_id: String,
    pub doc: String,
    pub page: Option<u32>,
    pub page_label: Option<String>,
    pub kind: String,
    pub text: String,
    pub caption: Option<String>,
    /// The running text around a figure or table; for the text note of a page of numbers (a
    /// statement), the page with the amounts its text leaves out.
    pub context: Option<String>,
    pub summary: String,
    pub keywords: Vec<String>,
    pub section: Vec<String>,
    pub image_path: Option<String>,
    /// Links to other notes: (target note id, kind), kind one of `adjacent`, `caption`,
    /// `reference`, `same_page`.
    pub links: Vec<(String, String)>,
}

impl Note {
    pub fn of(view: &IndexView, n: &indexer_engine::Note) -> Note {
        Note {
            note_id: n.id.clone(),
            doc: n.doc.clone(),
            page: n.page,
            page_label: n.page_label.clone(),
            kind: n.kind.as_str().to_string(),
            text: n.text.clone(),
            caption: n.caption.clone(),
            context: n.context.clone(),
            summary: n.summary.clone(),
            keywords: n.keywords.clone(),
            section: n.section.clone(),
            image_path: image_path(view, n),
            links: n
                .links
                .iter()
                .map(|l| {
                    let kind = serde_json::to_value(l.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default();
                    (l.target.clone(), kind)
                })
                .collect(),
        }
    }
}

#[pymethods]
impl Note {
    fn __repr__(&self) -> String {
        format!(
            "Note(note_id={:?}, doc={:?}, page={}, kind={:?})",
            self.note_id,
            self.doc,
            self.page.map_or("None".to_string(), |p| p.to_string()),
            self.kind
        )
    }
}

/// One evidence number an answer cites and the note it names.
#[pyclass(frozen, get_all, module = "indexer")]
#[derive(Debug, Clone)]
pub struct Citation {
    pub n: usize,
    pub note_id: String,
    pub doc: String,
    pub page: Option<u32>,
    pub kind: String,
}

#[pymethods]
impl Citation {
    fn __repr__(&self) -> String {
        format!(
            "Citation(n={}, note_id={:?}, doc={:?}, page={})",
            self.n,
            self.note_id,
            self.doc,
            self.page.map_or("None".to_string(), |p| p.to_string())
        )
    }
}

/// A cited answer, once `ask` has finished.
#[pyclass(frozen, get_all, module = "indexer")]
#[derive(Debug, Clone)]
pub struct Answer {
    pub question: String,
    /// The answer's text.
    pub text: String,
    /// The evidence the answer cites, in order of first citation.
    pub citations: Vec<Citation>,
    /// Numbers cited that name no evidence sent.
    pub unknown_citations: Vec<usize>,
    /// The evidence sent to the model; `[n]` is the hit of rank n.
    pub evidence: Vec<Hit>,
    pub model: String,
    /// What was changed to get an answer (evidence cut to fit, images dropped).
    pub notices: Vec<String>,
    /// `stop`, `length` (the answer hit its maximum length), ...
    pub finish_reason: Option<String>,
}

impl Answer {
    pub fn of(view: &IndexView, r: &indexer_engine::AskResponse) -> Answer {
        Answer {
            question: r.question.clone(),
            text: r.answer.clone(),
            citations: r
                .citations
                .iter()
                .map(|c| Citation {
                    n: c.n,
                    note_id: c.note_id.clone(),
                    doc: c.doc.clone(),
                    page: c.page,
                    kind: c.kind.as_str().to_string(),
                })
                .collect(),
            unknown_citations: r.unknown_citations.clone(),
            evidence: r.evidence.iter().map(|h| Hit::of(view, h)).collect(),
            model: r.model.clone(),
            notices: r.notices.clone(),
            finish_reason: r.finish_reason.clone(),
        }
    }
}

#[pymethods]
impl Answer {
    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Answer(text={:?}, citations={}, model={:?})",
            self.text,
            self.citations.len(),
            self.model
        )
    }
}

/// A JSON value as Python objects (dicts, lists, str, int, float, bool, None).
pub fn json_to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (None, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(json_to_py(py, i)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, v) in m {
                d.set_item(k, json_to_py(py, v)?)?;
            }
            d.into_any()
        }
    })
}

/// Python objects (dicts with string keys, lists, tuples, str, int, float, bool, None) as
/// JSON, for the extra fields of a model server request.
pub fn py_to_json(o: &Bound<'_, PyAny>) -> PyResult<Value> {
    use pyo3::exceptions::PyTypeError;
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
    if o.is_none() {
        Ok(Value::Null)
    } else if o.is_instance_of::<PyBool>() {
        Ok(Value::Bool(o.extract()?))
    } else if o.is_instance_of::<PyInt>() {
        Ok(Value::from(o.extract::<i64>()?))
    } else if o.is_instance_of::<PyFloat>() {
        Ok(serde_json::Number::from_f64(o.extract()?).map_or(Value::Null, Value::Number))
    } else if o.is_instance_of::<PyString>() {
        Ok(Value::String(o.extract()?))
    } else if let Ok(d) = o.cast::<PyDict>() {
        let mut m = serde_json::Map::new();
        for (k, v) in d.iter() {
            m.insert(k.extract::<String>()?, py_to_json(&v)?);
        }
        Ok(Value::Object(m))
    } else if o.is_instance_of::<PyList>() || o.is_instance_of::<PyTuple>() {
        o.try_iter()?
            .map(|i| py_to_json(&i?))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array)
    } else {
        Err(PyTypeError::new_err(format!(
            "cannot send {} as JSON",
            o.get_type().name()?
        )))
    }
}
