//! The index on a Milvus server, as the engine reads and writes it: notes and their vectors
//! in the collection, a row per file beside it (`indexer_milvus`), the first stage's two lists
//! fused here exactly as for a local index.

use crate::search::{Pool, PoolEntry, links_among, note_info};
use crate::sink::Sink;
use crate::{Error, Result};
use indexer_index::{Candidate, DocumentInfo, FailureInfo, Filter, Fusion, Stats};
use indexer_milvus::{Collection, FileRow, Hit, MilvusUrl, NoteRow};
use indexer_notes::{Note, NoteKind, ParsedDocument};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// What the files collection keeps of a file besides its hash.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct FileInfo {
    /// The parse settings the file was parsed with.
    settings: String,
    title: Option<String>,
    pages: u32,
    notes: u64,
    by_kind: BTreeMap<NoteKind, u64>,
    pages_without_text: Vec<u32>,
    /// Why the file could not be indexed; `None` when it was.
    failure: Option<String>,
}

fn file_rows(col: &Collection) -> Result<Vec<(FileRow, FileInfo)>> {
    Ok(col
        .files()?
        .into_iter()
        .map(|r| {
            let info = serde_json::from_str(&r.info).unwrap_or_default();
            (r, info)
        })
        .collect())
}

fn note_of(hit: &Hit) -> Result<Note> {
    serde_json::from_str(&hit.note).map_err(|e| {
        Error::Milvus(indexer_milvus::Error::Data(format!(
            "note {} is stored damaged: {e}",
            hit.id
        )))
    })
}

fn milvus_filter(f: &Filter) -> indexer_milvus::Filter {
    indexer_milvus::Filter {
        docs: f.docs.clone(),
        kinds: f.kinds.iter().map(|k| k.as_str().to_string()).collect(),
        pages: f.pages,
    }
}

/// Where a note comes in its document: its page, then the number its id ends with (a
/// collection has no row order to keep it).
fn document_order(n: &Note) -> (String, u32, u64, String) {
    let digits: String =
        n.id.chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
    (
        n.doc.clone(),
        n.page.unwrap_or(0),
        digits.parse().unwrap_or(0),
        n.id.clone(),
    )
}

/// A reader of a Milvus index. Every search reads the collection as it is now: there are no
/// generations to refresh.
#[derive(Debug)]
pub(crate) struct MilvusIndex {
    col: Collection,
}

impl MilvusIndex {
    pub(crate) fn open(url: &MilvusUrl) -> Result<MilvusIndex> {
        Ok(MilvusIndex {
            col: Collection::open(url)?,
        })
    }

    pub(crate) fn url(&self) -> &MilvusUrl {
        self.col.url()
    }

    pub(crate) fn model_id(&self) -> &str {
        &self.col.info().model
    }

    pub(crate) fn dim(&self) -> usize {
        self.col.info().dim
    }

    pub(crate) fn crop_dir(&self) -> PathBuf {
        self.col.info().crops.clone()
    }

    pub(crate) fn len(&self) -> Result<usize> {
        Ok(self.col.count()? as usize)
    }

    pub(crate) fn stats(&self) -> Result<Stats> {
        let rows = file_rows(&self.col)?;
        let mut by_kind: BTreeMap<NoteKind, u64> = NoteKind::ALL.iter().map(|k| (*k, 0)).collect();
        let (mut documents, mut pages, mut failed) = (0, 0u64, 0);
        for (_, i) in &rows {
            if i.failure.is_some() {
                failed += 1;
                continue;
            }
            documents += 1;
            pages += u64::from(i.pages);
            for (k, n) in &i.by_kind {
                *by_kind.entry(*k).or_default() += n;
            }
        }
        Ok(Stats {
            documents,
            pages,
            notes: self.col.count()?,
            notes_by_kind: by_kind,
            failed_files: failed,
            model: self.model_id().to_string(),
            dim: self.dim(),
            bytes: 0,
            generation: 0,
        })
    }

    pub(crate) fn documents(&self) -> Result<Vec<DocumentInfo>> {
        let mut docs: Vec<DocumentInfo> = file_rows(&self.col)?
            .into_iter()
            .filter(|(_, i)| i.failure.is_none())
            .map(|(r, i)| DocumentInfo {
                doc: r.doc,
                hash: r.hash,
                title: i.title,
                pages: i.pages,
                notes: i.notes,
                pages_without_text: i.pages_without_text,
            })
            .collect();
        docs.sort_by(|a, b| a.doc.cmp(&b.doc));
        Ok(docs)
    }

    pub(crate) fn failures(&self) -> Result<Vec<FailureInfo>> {
        let mut out: Vec<FailureInfo> = file_rows(&self.col)?
            .into_iter()
            .filter_map(|(r, i)| {
                Some(FailureInfo {
                    doc: r.doc,
                    hash: r.hash,
                    message: i.failure?,
                })
            })
            .collect();
        out.sort_by(|a, b| a.doc.cmp(&b.doc));
        Ok(out)
    }

    pub(crate) fn note(&self, id: &str) -> Result<Option<Note>> {
        self.col
            .get(&[id.to_string()])?
            .first()
            .map(note_of)
            .transpose()
    }

    /// The notes of `filter` with their vectors, by document then document order.
    pub(crate) fn notes(&self, filter: &Filter) -> Result<Vec<(Note, Vec<f32>)>> {
        let mut out = self
            .col
            .notes(&milvus_filter(filter))?
            .into_iter()
            .map(|h| Ok((note_of(&h)?, h.vector)))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_cached_key(|(n, _)| document_order(n));
        Ok(out)
    }

    /// The first stage: Milvus's BM25 list and its vector list, each with its scores and
    /// ranks, fused by [`indexer_index::fuse`] as a local index fuses them.
    pub(crate) fn pool(
        &self,
        query: &str,
        vector: &[f32],
        k: usize,
        filter: &Filter,
        fusion: Fusion,
    ) -> Result<Pool> {
        let f = milvus_filter(filter);
        // Milvus indexes the terms of a local index's BM25 fields (see `MilvusSink`), so the
        // question is analysed the same way.
        let terms = indexer_index::analyze(query).join(" ");
        let bm25 = self.col.bm25(&terms, k, &f)?;
        let near = self.col.nearest(vector, k, &f)?;
        let mut hits: Vec<Candidate> = Vec::new();
        let mut found: Vec<(Note, Vec<f32>)> = Vec::new();
        let mut by_id: HashMap<String, usize> = HashMap::new();
        let mut slot = |h: &Hit, hits: &mut Vec<Candidate>| -> Result<usize> {
            if let Some(&i) = by_id.get(&h.id) {
                return Ok(i);
            }
            let note = note_of(h)?;
            hits.push(Candidate {
                ordinal: found.len(),
                note_id: note.id.clone(),
                kind: note.kind,
                page: note.page,
                bm25_rank: None,
                bm25_score: None,
                vector_rank: None,
                cosine: None,
                fused: 0.0,
            });
            found.push((note, h.vector.clone()));
            by_id.insert(h.id.clone(), hits.len() - 1);
            Ok(hits.len() - 1)
        };
        for (rank, h) in bm25.iter().enumerate() {
            let i = slot(h, &mut hits)?;
            hits[i].bm25_rank = Some(rank + 1);
            hits[i].bm25_score = Some(h.score);
        }
        for (rank, h) in near.iter().enumerate() {
            let i = slot(h, &mut hits)?;
            hits[i].vector_rank = Some(rank + 1);
            hits[i].cosine = Some(h.score);
        }
        let dim = self.dim();
        if vector.len() == dim {
            for h in &mut hits {
                if h.cosine.is_none() {
                    h.cosine = Some(indexer_index::dot(vector, &found[h.ordinal].1));
                }
            }
        }
        indexer_index::fuse(&mut hits, fusion);
        let mut pool = Pool {
            dim,
            ..Pool::default()
        };
        let mut found: Vec<Option<(Note, Vec<f32>)>> = found.into_iter().map(Some).collect();
        for c in &hits {
            let Some((note, v)) = found[c.ordinal].take() else {
                continue;
            };
            if v.len() != dim {
                continue;
            }
            pool.entries.push(PoolEntry {
                note,
                cosine: c.cosine.unwrap_or(0.0),
                bm25_rank: c.bm25_rank,
                vector_rank: c.vector_rank,
            });
            pool.vectors.extend_from_slice(&v);
            pool.fused.push(f64::from(c.fused));
        }
        pool.links = links_among(&pool.entries);
        pool.info = note_info(&pool.entries);
        Ok(pool)
    }
}

/// Ingest into a Milvus index. Each file is written whole when it is done (notes upserted by
/// id, the file's notes that the new parse did not make deleted, then the file's row), so
/// there is nothing to commit but a flush, and an ingest that dies leaves every finished file
/// in place.
pub(crate) struct MilvusSink {
    col: Collection,
    rows: HashMap<String, (FileRow, FileInfo)>,
    settings: String,
    commits: u64,
}

impl MilvusSink {
    pub(crate) fn open(url: &MilvusUrl, model: &str, dim: usize) -> Result<MilvusSink> {
        let crops = std::env::current_dir()
            .unwrap_or_default()
            .join(format!("{}.crops", url.collection));
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
