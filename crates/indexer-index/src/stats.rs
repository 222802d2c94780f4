//! What a generation holds: [`Stats`], the [`DocumentInfo`] of its documents and the
//! [`FailureInfo`] of the files that failed, read from its manifest.

use crate::fsutil;
use crate::reader::Index;
use crate::store::kind_code;
use indexer_notes::NoteKind;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stats {
    pub documents: usize,
    pub pages: u64,
    pub notes: u64,
    pub notes_by_kind: BTreeMap<NoteKind, u64>,
    pub failed_files: usize,
    pub model: String,
    pub dim: usize,
    /// Bytes on disk of the files this generation uses (shared files counted once).
    pub bytes: u64,
    pub generation: u64,
    /// The on-disk format version of the index (a Milvus collection: its schema version).
    pub format_version: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentInfo {
    pub doc: String,
    pub hash: String,
    pub title: Option<String>,
    pub pages: u32,
    pub notes: u64,
    pub pages_without_text: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureInfo {
    pub doc: String,
    pub hash: String,
    pub message: String,
}

impl Index {
    pub fn stats(&self) -> Stats {
        let mut by_kind: BTreeMap<NoteKind, u64> = NoteKind::ALL.iter().map(|k| (*k, 0)).collect();
        for e in self.manifest.documents.values() {
            for k in NoteKind::ALL {
                *by_kind.entry(k).or_default() += e.by_kind[kind_code(k) as usize];
            }
        }
        let m = &self.manifest;
        let mut bytes = fsutil::dir_bytes(&self.dir.join(&m.tantivy.dir));
        let mut files = vec![
            m.store.vectors_file(),
            m.store.rows_file(),
            m.store.notes_file(),
        ];
        if let Some(g) = &m.graph {
            files.extend(g.files());
        }
        for f in files {
            bytes += std::fs::metadata(self.dir.join(f))
                .map(|m| m.len())
                .unwrap_or(0);
        }
        Stats {
            documents: m.documents.len(),
            pages: m.documents.values().map(|d| u64::from(d.pages)).sum(),
            notes: m.live_rows(),
            notes_by_kind: by_kind,
            failed_files: m.failures.len(),
            model: m.model_id.clone(),
            dim: m.dim,
            bytes,
            generation: m.generation,
            format_version: m.format_version,
        }
    }

    /// The page count of document `doc`, if the index holds it.
    pub fn document_pages(&self, doc: &str) -> Option<u32> {
        self.manifest.documents.get(doc).map(|e| e.pages)
    }

    pub fn documents(&self) -> Vec<DocumentInfo> {
        self.manifest
            .documents
            .iter()
            .map(|(doc, e)| DocumentInfo {
                doc: doc.clone(),
                hash: e.hash.clone(),
                title: e.title.clone(),
                pages: e.pages,
                notes: e.notes,
                pages_without_text: e.pages_without_text.clone(),
            })
            .collect()
    }

    pub fn failures(&self) -> Vec<FailureInfo> {
        self.manifest
            .failures
            .iter()
            .map(|(doc, f)| FailureInfo {
                doc: doc.clone(),
                hash: f.hash.clone(),
                message: f.message.clone(),
            })
            .collect()
    }
}
