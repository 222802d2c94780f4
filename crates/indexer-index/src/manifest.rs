//! The manifest: one JSON file that names every file of one complete generation.

use crate::error::{Error, Result};
use crate::schema::FORMAT_VERSION;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

pub(crate) const MANIFEST: &str = "MANIFEST";
pub(crate) const GEN_MANIFEST: &str = "manifest.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub format_version: u32,
    pub generation: u64,
    pub model_id: String,
    pub dim: usize,
    pub tantivy: TantivyInfo,
    pub store: StoreInfo,
    pub graph: Option<GraphInfo>,
    pub documents: BTreeMap<String, DocEntry>,
    #[serde(default)]
    pub failures: BTreeMap<String, Failure>,
}

/// The tantivy commit of a generation: its folder (a tantivy index of its own) and, to check
/// on open, the opstamp and the segments its `meta.json` lists.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TantivyInfo {
    pub dir: String,
    pub opstamp: u64,
    pub segments: Vec<String>,
    pub docs: u64,
}

/// The append-only row files of one epoch (an epoch starts at each compaction). A generation
/// sees the first `rows` rows and `notes_bytes` bytes; later bytes belong to a newer or an
/// unfinished generation.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoreInfo {
    pub epoch: u64,
    pub rows: u64,
    pub notes_bytes: u64,
}

impl StoreInfo {
    pub fn vectors_file(&self) -> String {
        format!("vectors-{:06}.f32", self.epoch)
    }
    pub fn rows_file(&self) -> String {
        format!("rows-{:06}.bin", self.epoch)
    }
    pub fn notes_file(&self) -> String {
        format!("notes-{:06}.bin", self.epoch)
    }
}

/// An HNSW graph over rows `0..rows` of the store epoch it was built for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GraphInfo {
    pub basename: String,
    pub epoch: u64,
    pub rows: u64,
    /// Live rows inserted into the graph.
    pub points: u64,
}

impl GraphInfo {
    pub fn files(&self) -> [String; 2] {
        [
            format!("{}.hnsw.graph", self.basename),
            format!("{}.hnsw.data", self.basename),
        ]
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DocEntry {
    pub hash: String,
    /// The parse settings the notes were made with (see `Writer::set_parse_settings`);
    /// empty in indexes made before parsers named a revision.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parse: String,
    pub title: Option<String>,
    pub pages: u32,
    #[serde(default)]
    pub pages_without_text: Vec<u32>,
    /// The document's notes are rows `first_row..first_row + notes` (appended together).
    pub first_row: u64,
    pub notes: u64,
    /// Notes by kind: text, figure, table.
    pub by_kind: [u64; 3],
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Failure {
    pub hash: String,
    pub message: String,
}

pub(crate) fn gen_dir_name(generation: u64) -> String {
    format!("gen-{generation:06}")
}

pub(crate) fn parse_gen_dir_name(name: &str) -> Option<u64> {
    name.strip_prefix("gen-")?.parse().ok()
}

impl Manifest {
    /// Reads the newest complete generation's manifest; `Ok(None)` when there is none.
    pub fn read_current(dir: &Path) -> Result<Option<Manifest>> {
        let path = dir.join(MANIFEST);
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io("cannot read", &path)(e)),
        };
        Manifest::parse(dir, &path, &bytes).map(Some)
    }

    pub fn read_generation(dir: &Path, generation: u64) -> Result<Manifest> {
        let path = dir.join(gen_dir_name(generation)).join(GEN_MANIFEST);
        let bytes = fs::read(&path).map_err(Error::io("cannot read", &path))?;
        Manifest::parse(dir, &path, &bytes)
    }

    fn parse(dir: &Path, path: &Path, bytes: &[u8]) -> Result<Manifest> {
        // Check the version before the rest so that a future layout reports the version and
        // not a field it cannot parse.
        #[derive(Deserialize)]
        struct Version {
            format_version: u32,
        }
        let v: Version = serde_json::from_slice(bytes)
            .map_err(|e| Error::corrupt(path, format!("not a manifest: {e}")))?;
        if v.format_version != FORMAT_VERSION {
            return Err(Error::FormatVersion {
                dir: dir.to_path_buf(),
                found: v.format_version,
                expected: FORMAT_VERSION,
            });
        }
        serde_json::from_slice(bytes).map_err(|e| Error::corrupt(path, e.to_string()))
    }

    pub fn to_json(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec_pretty(self).expect("manifest serializes");
        v.push(b'\n');
        v
    }

    pub fn live_rows(&self) -> u64 {
        self.documents.values().map(|d| d.notes).sum()
    }
}

/// Writes `bytes` to `path` so that a crash leaves either the old file or the new one: write a
/// temporary file, fsync it, rename it over `path`, fsync the folder.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let parent = path.parent().expect("path has a parent");
    let tmp = tmp_path(path);
    {
        let mut f = File::create(&tmp).map_err(Error::io("cannot create", &tmp))?;
        f.write_all(bytes)
            .map_err(Error::io("cannot write", &tmp))?;
        f.sync_all().map_err(Error::io("cannot fsync", &tmp))?;
    }
    fs::rename(&tmp, path).map_err(Error::io("cannot rename onto", path))?;
    sync_dir(parent)
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().expect("file name").to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(Error::io("cannot fsync folder", dir))
}
