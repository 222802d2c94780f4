//! The `indexer` engine: the ingest pipeline (walk, hash, parse, embed, write generations) and
//! search (embed the question, hybrid candidates, selection, snippets), over the library crates.
//! The CLI, the server and the evaluation all go through it, so a query means the same thing
//! everywhere.
//!
//! ```no_run
//! use indexer_engine::{Engine, SearchRequest};
//! let rt = indexer_runtime::Runtime::discover()?;
//! let engine = Engine::open(std::path::Path::new(".indexer"), &rt)?;
//! let answer = engine.search(&SearchRequest::new("How is a mosaic plot read?"))?;
//! for hit in &answer.hits {
//!     println!("{} p.{:?} {}", hit.note.doc, hit.note.page, hit.snippet.text);
//! }
//! # Ok::<(), indexer_engine::Error>(())
//! ```

mod ingest;
mod search;
mod snippet;

pub use indexer_index::Filter;
pub use indexer_rerank::{SelectorKind, SelectorSpec};
pub use ingest::{Failure, FileWarning, IngestConfig, IngestEvent, IngestSummary, doc_id, ingest};
pub use search::{
    DEFAULT_BUDGET, DEFAULT_CANDIDATES, DEFAULT_SELECTOR, Engine, Hit, SearchRequest,
    SearchResponse, Timings, load_encoder, load_encoder_for, safe_child,
};
pub use snippet::{Snippet, query_terms, snippet, snippet_source};

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the engine: the library crates' errors, plus bad requests and unreadable inputs.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A request the caller can fix (empty query, zero budget).
    #[error("{0}")]
    BadRequest(String),
    /// An input path that cannot be read.
    #[error("{}: {message}", path.display())]
    Input {
        path: std::path::PathBuf,
        message: String,
    },
    /// The index was built with a model that is not installed in the runtime.
    #[error("the index was built with the model {id}, which no model.toml under {} names", models.display())]
    ModelNotInstalled {
        id: String,
        models: std::path::PathBuf,
    },
    #[error(transparent)]
    Runtime(#[from] indexer_runtime::Error),
    #[error(transparent)]
    Embed(#[from] indexer_embed::Error),
    #[error(transparent)]
    Index(#[from] indexer_index::Error),
    #[error(transparent)]
    Ingest(#[from] indexer_ingest::Error),
    #[error(transparent)]
    Rerank(#[from] indexer_rerank::Error),
}

impl Error {
    /// What the user can do, for a `hint:` line.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Runtime(e) => Some(e.hint().to_string()),
            Error::ModelNotInstalled { .. } => Some(
                "install that model's folder (ONNX file, tokenizer.json, model.toml) under the runtime's models/, or re-ingest into a new index with --model".into(),
            ),
            Error::Embed(e) => e.hint().map(str::to_string),
            Error::Index(e) => e.hint(),
            _ => None,
        }
    }

    /// Whether the error is the caller's to fix (a 4xx for the server), not an internal one.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::BadRequest(_)
            | Error::Input { .. }
            | Error::Runtime(_)
            | Error::ModelNotInstalled { .. } => true,
            Error::Embed(e) => e.is_user_error(),
            Error::Index(e) => e.is_user_error(),
            Error::Ingest(e) => e.is_user_error(),
            Error::Rerank(_) => true,
        }
    }
}
