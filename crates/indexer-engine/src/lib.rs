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

mod ask;
mod backend;
mod encoder;
mod engine;
mod first_stage;
mod ingest;
mod local;
mod location;
mod milvus;
mod named_pages;
mod pages;
mod pool;
mod question;
pub mod ranking;
mod reader;
pub mod rewrite;
mod routing;
mod search;
mod sink;
mod snippet;
mod texts;
mod view;

pub use ask::{AskEvent, AskResponse, AskTimings, Citation, answer, evidence_of};
pub use encoder::{load_encoder, load_encoder_for};
pub use engine::Engine;
pub use first_stage::{DEFAULT_CANDIDATES, DEFAULT_FEEDBACK, FirstStage};
pub use indexer_embed::{Encoder, OnnxEncoder};
pub use indexer_index::{
    DocumentInfo, Expansions, FailureInfo, Filter, Fusion, Matching, RRF_K, Stats,
};
pub use indexer_ingest::{Chunking, run_worker};
/// The errors of asking a model server (`Error::Llm`).
pub use indexer_llm::Error as LlmError;
pub use indexer_llm::{
    API_KEY_ENV, ApiKey, DEFAULT_LLM_TIMEOUT, DEFAULT_MAX_TOKENS, Evidence, Images, Llm, LlmConfig,
    PromptTemplate, Usage,
};
pub use indexer_notes::{Hint, Link, LinkKind, Note, NoteKind, ParsedDocument};
pub use indexer_rerank::{
    CdsDiagnostics, Selection, Selector, SelectorKind, SelectorSpec, selector,
};
pub use indexer_runtime::{DEFAULT_MODEL, Runtime};
pub use ingest::{
    Failure, FileWarning, IngestConfig, IngestEvent, IngestSummary, OcrPages, chunk_tokens,
    default_chunking, ingest,
};
pub use location::IndexLocation;
pub use pages::{GroupBy, NOTES_PER_PAGE, PageResponse, PageResult};
pub use pool::{Pool, PoolEntry, Tier};
pub use question::{NamedPage, Rewrite, SearchedQuestion};
pub use ranking::{Ranker, Ranking};
pub use rewrite::{PageRef, PageReferences, Reason, Rewritten, RuleKind, Rules};
pub use routing::{RoutedDocument, Routing};
pub use search::{
    DEFAULT_BUDGET, DEFAULT_MATCHING, DEFAULT_RANKING, DEFAULT_REWRITE, DEFAULT_SELECTOR,
    DEFAULT_SNIPPET_CHARS, Hit, SearchRequest, SearchResponse, Timings, parse_pages,
    parse_selector,
};
pub use snippet::{QueryTerm, Snippet, query_terms, snippet_source};
pub use texts::{Rankings, TextDocument, index_texts};
pub use view::{IndexView, safe_child};

/// The README's example compiles (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

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
    /// A document filter names no document of the index.
    #[error("{}", unknown_document(doc, *ambiguous, closest))]
    UnknownDocument {
        doc: String,
        /// Several ids end with `/doc`; `closest` lists them.
        ambiguous: bool,
        closest: Vec<String>,
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
    /// The index on a Milvus server.
    #[error(transparent)]
    Milvus(#[from] indexer_milvus::Error),
    #[error(transparent)]
    Ingest(#[from] indexer_ingest::Error),
    #[error(transparent)]
    Rerank(#[from] indexer_rerank::Error),
    /// Asking the model server (`indexer ask`).
    #[error(transparent)]
    Llm(#[from] indexer_llm::Error),
}

fn unknown_document(doc: &str, ambiguous: bool, closest: &[String]) -> String {
    if ambiguous {
        format!(
            "{doc:?} names several documents of the index: {}",
            closest.join(", ")
        )
    } else {
        format!("no document {doc:?} in the index")
    }
}

impl Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::UnknownDocument {
                ambiguous: false,
                closest,
                ..
            } if !closest.is_empty() => Some(format!("did you mean {}?", closest.join(", "))),
            Error::UnknownDocument { ambiguous, .. } => Some(if *ambiguous {
                "name the document by more of its path".into()
            } else {
                "indexer stats --json lists the documents".into()
            }),
            Error::ModelNotInstalled { .. } => Some(
                "install that model's folder (ONNX file, tokenizer.json, model.toml) under the runtime's models/, or re-ingest into a new index with --model".into(),
            ),
            Error::Runtime(e) => e.hint(),
            Error::Embed(e) => e.hint(),
            Error::Index(e) => e.hint(),
            Error::Milvus(e) => e.hint(),
            Error::Ingest(e) => e.hint(),
            Error::Llm(e) => e.hint(),
            Error::BadRequest(_) | Error::Input { .. } | Error::Rerank(_) => None,
        }
    }
}

impl Error {
    /// Whether the error is the caller's to fix (a 4xx for the server), not an internal one.
    pub fn is_user_error(&self) -> bool {
        match self {
            Error::BadRequest(_)
            | Error::Input { .. }
            | Error::UnknownDocument { .. }
            | Error::Runtime(_)
            | Error::ModelNotInstalled { .. } => true,
            Error::Embed(e) => e.is_user_error(),
            Error::Index(e) => e.is_user_error(),
            Error::Milvus(e) => e.is_user_error(),
            Error::Ingest(e) => e.is_user_error(),
            Error::Rerank(_) => true,
            Error::Llm(e) => e.is_user_error(),
        }
    }
}
