//! The index on a Milvus server (`--index milvus://HOST:PORT/COLLECTION`): the one crate that
//! touches the Milvus client (`milvus-sdk-rust`, gRPC) and its tokio runtime.
//!
//! A collection `C` holds the notes: id (primary key), document, page, kind, the searched text
//! (context line and note text, analysed by Milvus's BM25 function into a sparse vector), the
//! dense vector, and the note itself as JSON. A second collection `C_files` holds one row per
//! file: its content hash, parse settings, title, pages and notes, or why it failed. A file's
//! row is written after its notes, so it marks the file as done: an ingest that dies leaves
//! the file without a row (or with its old hash), and the next ingest writes it again; notes
//! are upserted by id, so that never duplicates them.
//!
//! The model id, the dimension, the schema version and the crop folder are properties of `C`,
//! checked on every open. Every call is blocking: the crate runs its own runtime on its own
//! threads, so it works from plain threads and from inside another runtime alike.

mod collection;
mod error;
mod filter;
mod rpc;
mod schema;
mod token;
mod url;

pub use collection::{Collection, FileRow, Hit, NoteRow};
pub use error::{Error, Result};
pub use filter::Filter;
pub use schema::{Info, SCHEMA_VERSION};
pub use token::TOKEN_ENV;
pub use url::MilvusUrl;
