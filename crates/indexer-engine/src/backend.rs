//! The index a search reads, whatever holds it: [`Backend`] is a shared [`Reader`] (a local
//! generation or a Milvus collection), opened from an [`IndexLocation`] here and nowhere
//! else. Cheap to clone: a search holds one for its whole duration, so a refresh never
//! changes the index under a running query.

use crate::Result;
use crate::local::LocalReader;
use crate::location::IndexLocation;
use crate::milvus::MilvusReader;
use crate::reader::Reader;
use indexer_index::Index;
use std::sync::Arc;

pub(crate) type Backend = Arc<dyn Reader>;

/// Opens the newest complete generation of a local index, or a Milvus collection.
pub(crate) fn open(location: &IndexLocation) -> Result<Backend> {
    Ok(match location {
        IndexLocation::Dir(dir) => local(Index::open(dir)?),
        IndexLocation::Milvus(url) => Arc::new(MilvusReader::open(url)?),
    })
}

/// A local generation already open.
pub(crate) fn local(index: Index) -> Backend {
    Arc::new(LocalReader::new(index))
}
