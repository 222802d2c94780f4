//! Where an index lives: a folder (the default), or a collection on a Milvus server.

use crate::Result;
use indexer_milvus::MilvusUrl;
use std::path::{Path, PathBuf};

/// An index: a folder of generations, or `milvus://HOST:PORT/COLLECTION`. Every entry point
/// that takes an index path (`--index`, `INDEXER_INDEX`, `index` in indexer.toml) reads it
/// through [`IndexLocation::of`], the one place a path becomes a Milvus URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLocation {
    Dir(PathBuf),
    Milvus(MilvusUrl),
}

impl IndexLocation {
    /// A path that starts with `milvus://` is a Milvus URL (an error if malformed); anything
    /// else is a folder.
    pub fn of(path: &Path) -> Result<IndexLocation> {
        match path.to_str() {
            Some(s) if MilvusUrl::is_milvus(s) => Ok(IndexLocation::Milvus(s.parse()?)),
            _ => Ok(IndexLocation::Dir(path.to_path_buf())),
        }
    }
}

impl IndexLocation {
    /// Where a new index keeps the crop PNGs of its figure and table notes: the one rule for
    /// both kinds. A folder keeps them in its `crops/`; a Milvus collection, which holds no
    /// files, in `<collection>.crops` in the current folder, stored as a collection property
    /// when the collection is made (a URL's `crops=` wins). An existing index says where its
    /// crops are (the crop folder its manifest or collection names), whatever this rule says now.
    pub fn new_crop_dir(&self) -> PathBuf {
        match self {
            IndexLocation::Dir(d) => d.join(indexer_index::CROPS),
            IndexLocation::Milvus(url) => std::env::current_dir()
                .unwrap_or_default()
                .join(format!("{}.crops", url.collection)),
        }
    }
}

impl std::fmt::Display for IndexLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexLocation::Dir(d) => write!(f, "{}", d.display()),
            IndexLocation::Milvus(u) => write!(f, "{u}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_milvus_url_is_not_a_folder() {
        let m = IndexLocation::of(Path::new("milvus://127.0.0.1:19530/docs")).unwrap();
        assert!(matches!(&m, IndexLocation::Milvus(u) if u.collection == "docs"));
        assert_eq!(m.to_string(), "milvus://127.0.0.1:19530/docs");
        let d = IndexLocation::of(Path::new("./milvus/x")).unwrap();
        assert_eq!(d, IndexLocation::Dir(PathBuf::from("./milvus/x")));
        assert!(IndexLocation::of(Path::new("milvus://h:1/bad-name")).is_err());
    }

    #[test]
    fn a_new_index_keeps_its_crops_by_one_rule() {
        let d = IndexLocation::of(Path::new("idx")).unwrap();
        assert_eq!(
            d.new_crop_dir(),
            Path::new("idx").join(indexer_index::CROPS)
        );
        let m = IndexLocation::of(Path::new("milvus://127.0.0.1:19530/docs")).unwrap();
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(m.new_crop_dir(), cwd.join("docs.crops"));
    }
}
