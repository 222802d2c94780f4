//! What the files collection keeps of a file, read and written alike.

use crate::Result;
use indexer_milvus::{Collection, FileRow};
use indexer_notes::NoteKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the files collection keeps of a file besides its hash.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct FileInfo {
    /// The parse settings the file was parsed with.
    pub(super) settings: String,
    pub(super) title: Option<String>,
    pub(super) pages: u32,
    pub(super) notes: u64,
    pub(super) by_kind: BTreeMap<NoteKind, u64>,
    pub(super) pages_without_text: Vec<u32>,
    /// Why the file could not be indexed; `None` when it was.
    pub(super) failure: Option<String>,
    /// Its notes are being written: the row of a new file, put before its first note and
    /// replaced by the file's own row after its last. A row still marked so is of an ingest
    /// that died while writing; its hash is empty, so the next ingest writes the file again,
    /// or, when the file is gone, deletes the notes it left. Not a document to readers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(super) writing: bool,
}

pub(super) fn file_rows(col: &Collection) -> Result<Vec<(FileRow, FileInfo)>> {
    Ok(col
        .files()?
        .into_iter()
        .map(|r| {
            let info = serde_json::from_str(&r.info).unwrap_or_default();
            (r, info)
        })
        .collect())
}
