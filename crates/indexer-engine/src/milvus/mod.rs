//! The index on a Milvus server, as the engine reads and writes it: notes and their vectors
//! in the collection, a row per file beside it (`indexer_milvus`). `reader` is the first
//! stage (Milvus's two lists fused here exactly as for a local index) and the notes; `sink`
//! is ingest's writer; `files` is what both keep of a file; `scoped` the local index of a
//! few documents that a search filtered to them runs its first stage on.

mod files;
mod reader;
mod scoped;
mod sink;

pub(crate) use reader::MilvusReader;
pub(crate) use sink::MilvusSink;
