use std::path::PathBuf;

use indexer_runtime::SETUP_HINT;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the encoder. [`Error::is_user_error`] separates what the user can fix (a missing
/// runtime file, a bad manifest, a model that does not match its manifest, an index built with
/// another model) from internal failures (inference, IO).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Runtime discovery failed (no runtime folder, a missing library or model folder).
    #[error(transparent)]
    Runtime(#[from] indexer_runtime::Error),
    #[error("missing model file {0}")]
    MissingFile(PathBuf),
    #[error("invalid model manifest {path}: {reason}")]
    Manifest { path: PathBuf, reason: String },
    #[error("cannot load the tokenizer {path}: {reason}")]
    Tokenizer { path: PathBuf, reason: String },
    #[error("cannot load ONNX Runtime from {path}: {reason}")]
    LoadRuntime { path: PathBuf, reason: String },
    #[error(
        "ONNX Runtime is already loaded from {loaded} in this process; cannot load {requested} as well"
    )]
    RuntimeConflict { loaded: PathBuf, requested: PathBuf },
    /// The ONNX file does not fit its manifest: missing output, wrong dimension, unknown inputs.
    #[error("model {path} does not match its manifest: {reason}")]
    ModelMismatch { path: PathBuf, reason: String },
    #[error(
        "the index was built with the encoder model {index} but the encoder is {encoder}; re-ingest or use the index's model"
    )]
    IndexModelMismatch { index: String, encoder: String },
    #[error("invalid encoder option: {0}")]
    Config(String),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("ONNX Runtime failed on {path}: {reason}")]
    Inference { path: PathBuf, reason: String },
    #[error("tokenization failed: {0}")]
    Tokenize(String),
}

impl indexer_notes::Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::Runtime(e) => e.hint(),
            Error::MissingFile(_) | Error::LoadRuntime { .. } => Some(SETUP_HINT.into()),
            Error::Manifest { .. } | Error::ModelMismatch { .. } => {
                Some("fix model.toml in the model folder (see the indexer-embed README)".into())
            }
            Error::IndexModelMismatch { .. } => {
                Some("query with the model the index was built with, or ingest again".into())
            }
            _ => None,
        }
    }
}

impl Error {
    /// True for errors the user causes and can fix; false for internal and IO failures.
    pub fn is_user_error(&self) -> bool {
        !matches!(
            self,
            Error::Io { .. } | Error::Inference { .. } | Error::Tokenize(_)
        )
    }
}
