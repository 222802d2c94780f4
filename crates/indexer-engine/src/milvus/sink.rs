//! Ingest into a Milvus collection: the [`Sink`] of a `milvus://` index.

use super::files::{FileInfo, file_rows};
use crate::Result;
use crate::sink::Sink;
use indexer_milvus::{Collection, FileRow, MilvusUrl, NoteRow};
use indexer_notes::{NoteKind, ParsedDocument};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Ingest into a Milvus index. Each file is written whole when it is done (notes upserted by
/// id, the file's notes that the new parse did not make deleted, then the file's row), so
/// there is nothing to commit but a flush, and an ingest that dies leaves every finished file
/// in place. A new file has a row before its first note is written, marked as being written
/// and with no hash ([`FileInfo::writing`]): an ingest killed in the middle of its notes
/// leaves a row that the next ingest sees as changed (and writes again) or, when the file
/// is gone, removes with the notes. A file already in has its old row until its new one.
pub(crate) struct MilvusSink {
    col: Collection,
    rows: HashMap<String, (FileRow, FileInfo)>,
    settings: String,
    commits: u64,
}

impl MilvusSink {
    /// Opens the collection of `url`, or makes it with the crop folder `crops`
    /// ([`crate::IndexLocation::new_crop_dir`]).
    pub(crate) fn open(
        url: &MilvusUrl,
        model: &str,
        dim: usize,
        crops: PathBuf,
    ) -> Result<MilvusSink> {
        let col = Collection::open_or_create(url, model, dim, crops)?;
        let rows = file_rows(&col)?
            .into_iter()
            .map(|(r, i)| (r.doc.clone(), (r, i)))
            .collect();
        Ok(MilvusSink {
            col,
            rows,
            settings: String::new(),
            commits: 0,
        })
    }

    fn put(&mut self, doc: &str, hash: &str, info: FileInfo) -> Result<()> {
        let row = FileRow {
            doc: doc.to_string(),
            hash: hash.to_string(),
            info: serde_json::to_string(&info).expect("file info serialises"),
        };
        self.col.put_file(&row)?;
        self.rows.insert(doc.to_string(), (row, info));
        Ok(())
    }
}

impl Sink for MilvusSink {
    fn file_state(&self) -> HashMap<String, String> {
        self.rows
            .iter()
            .map(|(d, (r, _))| (d.clone(), r.hash.clone()))
            .collect()
    }

    fn parsed_with(&self) -> HashMap<String, String> {
        self.rows
            .iter()
            .map(|(d, (_, i))| (d.clone(), i.settings.clone()))
            .collect()
    }

    fn set_parse_settings(&mut self, settings: &str) {
        self.settings = settings.to_string();
    }

    fn failed_before(&self) -> std::collections::BTreeSet<String> {
        self.rows
            .iter()
            .filter(|(_, (_, i))| i.failure.is_some())
            .map(|(d, _)| d.clone())
            .collect()
    }

    fn crop_dir(&self) -> PathBuf {
        self.col.info().crops.clone()
    }

    fn remove(&mut self, doc: &str) -> Result<()> {
        self.col.delete_notes(doc, &[])?;
        self.col.delete_file(doc)?;
        self.rows.remove(doc);
        Ok(())
    }

    fn upsert(
        &mut self,
        doc: ParsedDocument,
        vectors: Vec<f32>,
        searched: &[String],
    ) -> Result<()> {
        if !self.rows.contains_key(&doc.doc) {
            let writing = FileInfo {
                settings: self.settings.clone(),
                writing: true,
                ..FileInfo::default()
            };
            self.put(&doc.doc, "", writing)?;
        }
        let dim = self.col.info().dim;
        let mut rows = Vec::with_capacity(doc.notes.len());
        let mut by_kind: BTreeMap<NoteKind, u64> = BTreeMap::new();
        for ((n, v), text) in doc
            .notes
            .iter()
            .zip(vectors.chunks_exact(dim))
            .zip(searched)
        {
            *by_kind.entry(n.kind).or_default() += 1;
            // The terms a local index's BM25 fields hold (stemmed as tantivy's `en_stem`
            // stems them, so that any Milvus analyser only splits them): the context line,
            // the caption and the text.
            let mut terms = text.clone();
            if let Some(c) = n.caption.as_deref().filter(|c| !n.text.contains(*c)) {
                terms.push('\n');
                terms.push_str(c);
            }
            rows.push(NoteRow {
                id: n.id.clone(),
                doc: n.doc.clone(),
                page: n.page.unwrap_or(0),
                kind: n.kind.as_str().to_string(),
                search: indexer_index::analyze(&terms).join(" "),
                vector: v.to_vec(),
                note: serde_json::to_string(n).expect("a note serialises"),
            });
        }
        self.col.upsert(&rows)?;
        let keep: Vec<String> = doc.notes.iter().map(|n| n.id.clone()).collect();
        self.col.delete_notes(&doc.doc, &keep)?;
        let info = FileInfo {
            settings: self.settings.clone(),
            title: doc.title,
            pages: doc.pages,
            notes: doc.notes.len() as u64,
            by_kind,
            pages_without_text: doc.pages_without_text,
            failure: None,
            writing: false,
        };
        self.put(&doc.doc, &doc.hash, info)
    }

    fn record_failure(&mut self, doc: &str, hash: &str, message: &str) -> Result<()> {
        self.col.delete_notes(doc, &[])?;
        let info = FileInfo {
            settings: self.settings.clone(),
            failure: Some(message.to_string()),
            ..FileInfo::default()
        };
        self.put(doc, hash, info)
    }

    fn commit(&mut self) -> Result<u64> {
        self.col.flush()?;
        self.commits += 1;
        Ok(self.commits)
    }

    fn generation(&self) -> u64 {
        self.commits
    }

    fn notes_total(&mut self) -> Result<usize> {
        Ok(self.col.count()? as usize)
    }
}
