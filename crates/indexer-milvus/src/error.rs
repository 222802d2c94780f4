//! What can go wrong with a Milvus index, each with a hint.

use crate::token::TOKEN_ENV;
use indexer_notes::Hint;

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A `milvus://` URL that is not one.
    #[error("{0}")]
    Url(String),
    /// Nothing answers at the address, or it stopped answering for longer than the retries.
    #[error("cannot reach Milvus at {endpoint}: {message}")]
    Unreachable { endpoint: String, message: String },
    /// The collection does not exist (a reader never creates one).
    #[error("no collection {collection:?} on the Milvus server at {endpoint}")]
    NoCollection {
        endpoint: String,
        collection: String,
    },
    /// The collection was made by another model, dimension or schema.
    #[error("the collection {collection:?} was made {theirs}; this {what} needs {ours}")]
    Mismatch {
        collection: String,
        what: &'static str,
        theirs: String,
        ours: String,
    },
    /// A note that cannot be stored as it is (a field longer than the schema allows).
    #[error("{0}")]
    Data(String),
    /// Any other error the server or the client reported.
    #[error("Milvus at {endpoint}: {message}")]
    Milvus { endpoint: String, message: String },
}

impl Error {
    /// Whether the error is the user's to fix (a setting, a collection) rather than a fault.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            Error::Url(_) | Error::NoCollection { .. } | Error::Mismatch { .. }
        )
    }
}

impl Hint for Error {
    fn hint(&self) -> Option<String> {
        Some(match self {
            Error::Url(_) => "write the index as milvus://HOST:PORT/COLLECTION, or a folder".into(),
            Error::Unreachable { .. } => "start Milvus (or `milvus-lite server --host 127.0.0.1 \
                 --port PORT --data-dir DIR`) and check the host and port of --index"
                .into(),
            Error::NoCollection { .. } => {
                "run `indexer --index URL ingest DIR` first: ingest creates the collection".into()
            }
            Error::Mismatch { what, .. } => format!(
                "use another collection name for this {what}, or drop the collection and ingest again"
            ),
            Error::Data(_) => return None,
            Error::Milvus { message, .. }
                if message.contains("auth") || message.contains("credential") =>
            {
                format!(
                    "a Milvus with authentication wants {}=USER:PASSWORD (or an API key)",
                    TOKEN_ENV
                )
            }
            Error::Milvus { .. } => "see the Milvus server's log".into(),
        })
    }
}
