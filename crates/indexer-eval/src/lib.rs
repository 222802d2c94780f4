//! Evidence-quality evaluation for `indexer`.
//!
//! ```
//! use indexer_eval::metrics::{page_recall, GoldPages};
//! let gold: GoldPages = [("a.pdf".to_string(), vec![3, 4])].into_iter().collect();
//! assert_eq!(page_recall(&[("a.pdf".to_string(), 3)], &gold), Some(0.5));
//! ```

mod beir;
pub mod data;
mod eval;
mod export;
pub mod folds;
pub mod metrics;
mod report;

pub use beir::{BeirMethod, BeirReport, beir_markdown, run_beir};
pub use data::{BeirSet, Question, read_beir, read_questions};
pub use eval::{
    EvalConfig, PoolMode, ResultRow, Scope, SelectedNote, aggregate, read_rows, run_eval,
};
pub use export::{ExportSummary, export_features};
pub use report::{
    EvalReport, FoldGroup, Group, SOURCES, Summary, markdown, register_font, write_report,
};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: line {line}: {message}")]
    BadLine {
        path: std::path::PathBuf,
        line: usize,
        message: String,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("cannot draw {path}: {message}")]
    Plot {
        path: std::path::PathBuf,
        message: String,
    },
    /// Selection failed (bad vectors in the index, an unknown selector).
    #[error("selection: {0}")]
    Select(String),
    /// The index, the encoder or ingest failed.
    #[error(transparent)]
    Engine(#[from] indexer_engine::Error),
    #[error("cannot read {path}: {source}")]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

impl indexer_engine::Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::Engine(e) => e.hint(),
            _ => None,
        }
    }
}
