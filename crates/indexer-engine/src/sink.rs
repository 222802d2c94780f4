//! Where an ingest writes: a local index folder ([`indexer_index::Writer`], generations) or a
//! Milvus collection ([`crate::milvus::MilvusSink`]). The ingest pipeline is the same.

use crate::Result;
use indexer_notes::ParsedDocument;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub(crate) trait Sink {
    /// Content hash of every file the index knows (indexed or failed).
    fn file_state(&self) -> HashMap<String, String>;
    /// The parse settings each indexed file was parsed with.
    fn parsed_with(&self) -> HashMap<String, String>;
    /// The settings of this run, kept with every file it writes.
    fn set_parse_settings(&mut self, settings: &str);
    /// Files that failed last time.
    fn failed_before(&self) -> BTreeSet<String>;
    fn crop_dir(&self) -> PathBuf;
    fn remove(&mut self, doc: &str) -> Result<()>;
    /// A parsed document with its note vectors and the text BM25 indexes of each note.
    fn upsert(&mut self, doc: ParsedDocument, vectors: Vec<f32>, searched: &[String])
    -> Result<()>;
    fn record_failure(&mut self, doc: &str, hash: &str, message: &str) -> Result<()>;
    /// Makes what was written visible and durable; returns the generation.
    fn commit(&mut self) -> Result<u64>;
    fn generation(&self) -> u64;
    /// Live notes after the ingest.
    fn notes_total(&mut self) -> Result<usize>;
}

/// A local index folder.
pub(crate) struct LocalSink {
    pub(crate) dir: PathBuf,
    pub(crate) writer: indexer_index::Writer,
}

impl LocalSink {
    pub(crate) fn open(dir: &Path, model: &str, dim: usize) -> Result<LocalSink> {
        Ok(LocalSink {
            dir: dir.to_path_buf(),
            writer: indexer_index::Writer::open_or_create(dir, model, dim)?,
        })
    }
}

impl Sink for LocalSink {
    fn file_state(&self) -> HashMap<String, String> {
        self.writer.file_state()
    }

    fn parsed_with(&self) -> HashMap<String, String> {
        self.writer.parsed_with()
    }

    fn set_parse_settings(&mut self, settings: &str) {
        self.writer.set_parse_settings(settings)
    }

    fn failed_before(&self) -> BTreeSet<String> {
        match indexer_index::Index::open(&self.dir) {
            Ok(index) => index.failures().into_iter().map(|f| f.doc).collect(),
            Err(_) => BTreeSet::new(),
        }
    }

    fn crop_dir(&self) -> PathBuf {
        self.writer.crop_dir()
    }

    fn remove(&mut self, doc: &str) -> Result<()> {
        self.writer.remove(doc)?;
        Ok(())
    }

    fn upsert(
        &mut self,
        doc: ParsedDocument,
        vectors: Vec<f32>,
        _searched: &[String],
    ) -> Result<()> {
        // The local index builds its BM25 fields (text, section, title) from the note.
        Ok(self.writer.upsert(doc, vectors)?)
    }

    fn record_failure(&mut self, doc: &str, hash: &str, message: &str) -> Result<()> {
        Ok(self.writer.record_failure(doc, hash, message)?)
    }

    fn commit(&mut self) -> Result<u64> {
        Ok(self.writer.commit()?.generation)
    }

    fn generation(&self) -> u64 {
        self.writer.generation()
    }

    fn notes_total(&mut self) -> Result<usize> {
        Ok(indexer_index::Index::open(&self.dir)?.len())
    }
}
