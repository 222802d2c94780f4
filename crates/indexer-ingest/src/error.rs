use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of ingestion. User errors (the file is bad, the runtime is missing) are told apart
/// from internal ones by [`Error::is_user_error`]; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: encrypted PDF (a password is needed to read it)")]
    Encrypted { path: PathBuf },
    #[error("{path}: not a PDF file (no %PDF- header)")]
    NotPdf { path: PathBuf },
    #[error("{path}: corrupt or truncated PDF ({detail})")]
    Corrupt { path: PathBuf, detail: String },
    #[error("{path}: the PDF has no pages")]
    NoPages { path: PathBuf },
    #[error("{path}: unsupported file type (expected pdf, md, markdown, html, htm or txt)")]
    Unsupported { path: PathBuf },
    #[error("{path}: not valid UTF-8 text")]
    NotUtf8 { path: PathBuf },
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write crop {path}: {detail}")]
    Crop { path: PathBuf, detail: String },
    #[error("pdfium is not available: {detail}")]
    PdfiumUnavailable { detail: String },
    #[error("{path}: pdfium failed{}: {detail}", page.map(|p| format!(" on page {p}")).unwrap_or_default())]
    Pdfium {
        path: PathBuf,
        page: Option<u32>,
        detail: String,
    },
    #[error("{path}: the PDF worker made no progress for {secs} s and was stopped")]
    Timeout { path: PathBuf, secs: u64 },
    #[error("{path}: the PDF worker crashed ({detail})")]
    WorkerCrashed { path: PathBuf, detail: String },
    #[error("cannot run the PDF worker: {detail}")]
    Worker { detail: String },
}

impl Error {
    /// Whether the user can act on this error (a bad file, a missing runtime part), as opposed
    /// to a bug or an environment failure.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Encrypted { .. }
                | Error::NotPdf { .. }
                | Error::Corrupt { .. }
                | Error::NoPages { .. }
                | Error::Unsupported { .. }
                | Error::NotUtf8 { .. }
                | Error::PdfiumUnavailable { .. }
                | Error::Timeout { .. }
        )
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn to_wire(&self) -> WireError {
        match self {
            Error::Encrypted { .. } => WireError::Encrypted,
            Error::NotPdf { .. } => WireError::NotPdf,
            Error::Corrupt { detail, .. } => WireError::Corrupt {
                detail: detail.clone(),
            },
            Error::NoPages { .. } => WireError::NoPages,
            Error::Io { source, .. } => WireError::Io {
                detail: source.to_string(),
            },
            Error::Crop { path, detail } => WireError::Crop {
                path: path.clone(),
                detail: detail.clone(),
            },
            Error::PdfiumUnavailable { detail } => WireError::PdfiumUnavailable {
                detail: detail.clone(),
            },
            Error::Pdfium { page, detail, .. } => WireError::Pdfium {
                page: *page,
                detail: detail.clone(),
            },
            other => WireError::Other {
                detail: other.to_string(),
            },
        }
    }
}

/// An error as it crosses the pipe from a worker process; the parent knows the path.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum WireError {
    Encrypted,
    NotPdf,
    Corrupt { detail: String },
    NoPages,
    Io { detail: String },
    Crop { path: PathBuf, detail: String },
    PdfiumUnavailable { detail: String },
    Pdfium { page: Option<u32>, detail: String },
    Other { detail: String },
}

impl WireError {
    pub(crate) fn into_error(self, path: PathBuf) -> Error {
        match self {
            WireError::Encrypted => Error::Encrypted { path },
            WireError::NotPdf => Error::NotPdf { path },
            WireError::Corrupt { detail } => Error::Corrupt { path, detail },
            WireError::NoPages => Error::NoPages { path },
            WireError::Io { detail } => Error::Io {
                path,
                source: std::io::Error::other(detail),
            },
            WireError::Crop { path, detail } => Error::Crop { path, detail },
            WireError::PdfiumUnavailable { detail } => Error::PdfiumUnavailable { detail },
            WireError::Pdfium { page, detail } => Error::Pdfium { path, page, detail },
            WireError::Other { detail } => Error::WorkerCrashed { path, detail },
        }
    }
}

impl indexer_notes::Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::PdfiumUnavailable { .. } => Some(indexer_runtime::SETUP_HINT.into()),
            Error::Encrypted { .. } => {
                Some("decrypt the file (for example with qpdf --decrypt)".into())
            }
            _ => None,
        }
    }
}
