use std::path::{Path, PathBuf};

/// Errors of the index crate. User errors (no index, wrong format, another writer, bad input)
/// are separate from internal and IO errors; `Hint::hint` (of `indexer_notes::Hint`) says what the user can do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no index in {}", dir.display())]
    NoIndex { dir: PathBuf },

    #[error(
        "index in {} has format version {found}, this build reads version {expected}",
        dir.display()
    )]
    FormatVersion {
        dir: PathBuf,
        found: u32,
        expected: u32,
    },

    #[error(
        "index in {} was built with encoder {found:?} ({found_dim} dimensions), not {wanted:?} ({wanted_dim} dimensions)",
        dir.display()
    )]
    ModelMismatch {
        dir: PathBuf,
        found: String,
        found_dim: usize,
        wanted: String,
        wanted_dim: usize,
    },

    #[error("another ingest holds the index lock {}", path.display())]
    Locked { path: PathBuf },

    #[error("invalid input for document {doc:?}: {message}")]
    InvalidInput { doc: String, message: String },

    #[error("corrupt index file {}: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },

    #[error("{context} {}", path.display())]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("tantivy failed on {}", path.display())]
    Tantivy {
        path: PathBuf,
        #[source]
        source: tantivy::TantivyError,
    },

    #[error("vector graph failed on {}: {message}", path.display())]
    Graph { path: PathBuf, message: String },
}

impl Error {
    /// Whether the user caused the error and can fix it (as opposed to an IO or internal
    /// failure).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::NoIndex { .. }
                | Error::FormatVersion { .. }
                | Error::ModelMismatch { .. }
                | Error::Locked { .. }
                | Error::InvalidInput { .. }
        )
    }
}

impl indexer_notes::Hint for Error {
    fn hint(&self) -> Option<String> {
        match self {
            Error::NoIndex { .. } => Some("run indexer ingest PATH".into()),
            Error::FormatVersion {
                dir,
                found,
                expected,
            } if found < expected => Some(format!(
                "an older indexer wrote it: delete the folder {} and run indexer ingest PATH \
                 again to rebuild it in this version's format (your documents are not touched)",
                dir.display()
            )),
            Error::FormatVersion { dir, .. } => Some(format!(
                "a newer indexer wrote it: use that version to read {}, or delete the folder \
                 and run indexer ingest PATH to rebuild it for this one",
                dir.display()
            )),
            Error::ModelMismatch { dir, .. } => Some(format!(
                "ingest with the encoder the index was built with, or delete the folder {} to rebuild it with the new one",
                dir.display()
            )),
            Error::Locked { .. } => {
                Some("wait for the other ingest to finish (one writer per index)".into())
            }
            Error::Corrupt { .. } => {
                Some("delete the index folder and run indexer ingest PATH to rebuild it".into())
            }
            _ => write_failure_hint(self),
        }
    }
}

/// The hint of a write that failed for want of room or permission, found anywhere in the
/// error's sources (tantivy wraps its IO errors).
fn write_failure_hint(e: &Error) -> Option<String> {
    use std::io::ErrorKind::*;
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        let kind = c
            .downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| match c.downcast_ref::<tantivy::TantivyError>() {
                Some(tantivy::TantivyError::IoError(io)) => Some(io.kind()),
                _ => None,
            });
        match kind {
            Some(StorageFull | QuotaExceeded | FileTooLarge) => {
                return Some(
                    "the disk is full (or a file size limit was reached): free space and run indexer ingest again; the index keeps its last complete generation, which stays readable"
                        .into(),
                );
            }
            Some(ReadOnlyFilesystem | PermissionDenied) => {
                return Some(
                    "the index folder is not writable: fix its permissions or ingest into another --index folder; searching a read-only index works"
                        .into(),
                );
            }
            _ => {}
        }
        cause = c.source();
    }
    None
}

impl Error {
    pub(crate) fn io(context: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.to_path_buf();
        move |source| Error::Io {
            context,
            path,
            source,
        }
    }

    pub(crate) fn tantivy(path: &Path) -> impl FnOnce(tantivy::TantivyError) -> Error {
        let path = path.to_path_buf();
        move |source| Error::Tantivy { path, source }
    }

    pub(crate) fn corrupt(path: &Path, message: impl Into<String>) -> Error {
        Error::Corrupt {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use indexer_notes::Hint;

    #[test]
    fn failed_writes_say_what_to_do() {
        let io = |kind| Error::Io {
            context: "cannot write",
            path: "idx/vectors-000001.f32".into(),
            source: std::io::Error::from(kind),
        };
        let full = io(std::io::ErrorKind::StorageFull).hint().unwrap();
        assert!(
            full.contains("free space") && full.contains("readable"),
            "{full}"
        );
        assert!(io(std::io::ErrorKind::FileTooLarge).hint().is_some());
        let ro = io(std::io::ErrorKind::ReadOnlyFilesystem).hint().unwrap();
        assert!(ro.contains("not writable"), "{ro}");
        let wrapped = Error::Tantivy {
            path: "idx/gen-000002/tantivy".into(),
            source: tantivy::TantivyError::IoError(std::sync::Arc::new(std::io::Error::from(
                std::io::ErrorKind::StorageFull,
            ))),
        };
        assert!(wrapped.hint().is_some_and(|h| h.contains("free space")));
        assert_eq!(io(std::io::ErrorKind::NotFound).hint(), None);
    }
}
