//! Evidence-quality evaluation for `indexer`.
//!
//! ```
//! use indexer_eval::metrics::{page_recall, GoldPages};
//! let gold: GoldPages = [("a.pdf".to_string(), vec![3, 4])].into_iter().collect();
//! assert_eq!(page_recall(&[("a.pdf".to_string(), 3)], &gold), Some(0.5));
//! ```

pub mod data;
pub mod metrics;

pub use data::{BeirSet, Question, read_beir, read_questions};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: line {line}: {message}")]
    BadLine {
        path: std::path::PathBuf,
        line: usize,
        message: String,
    },
    #[error("cannot read {path}: {source}")]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}
