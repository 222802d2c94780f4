//! A Milvus collection as the engine reads it: notes, documents and statistics from the
//! server, and the first stage (Milvus's BM25 and vector lists, fused by
//! [`indexer_index::fuse`] as a local index fuses them).

use super::files::file_rows;
use crate::first_stage::FirstStage;
use crate::location::IndexLocation;
use crate::pool::{Pool, PoolEntry};
use crate::question::SearchedQuestion;
use crate::reader::Reader;
use crate::{Error, Result};
use indexer_index::{Candidate, DocumentInfo, Expansions, FailureInfo, Filter, Matching, Stats};
use indexer_milvus::{Collection, Hit, MilvusUrl};
use indexer_notes::{Note, NoteKind};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

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
pub(crate) struct MilvusReader {
    col: Collection,
    /// The documents of the files collection, read at most every [`PAGES_FRESH_FOR`]: the
    /// learned ranking reads a document's page count for every candidate of a search, the
    /// rewrite stage the names, a filtered search the documents' hashes.
    listing: std::sync::Mutex<Option<(std::time::Instant, std::sync::Arc<Listing>)>>,
    /// The local indexes of the few documents searches were filtered to.
    scopes: super::scoped::Scopes,
}

/// The documents as [`MilvusReader`] keeps them between two reads of the files collection.
#[derive(Debug)]
struct Listing {
    docs: Vec<DocumentInfo>,
    by_id: HashMap<String, usize>,
    /// Made the first time a question is read for them.
    names: std::sync::OnceLock<std::sync::Arc<crate::rewrite::DocumentNames>>,
}

/// How long the page counts read from the files collection are used before they are read
/// again (an ingest beside the server adds documents; their notes come before their rows).
const PAGES_FRESH_FOR: std::time::Duration = std::time::Duration::from_secs(30);

impl MilvusReader {
    pub(crate) fn open(url: &MilvusUrl) -> Result<MilvusReader> {
        Ok(MilvusReader {
            col: Collection::open(url)?,
            listing: std::sync::Mutex::new(None),
            scopes: super::scoped::Scopes::default(),
        })
    }

    /// The local index of the documents `filter` is limited to, when it names some and they
    /// are few enough ([`super::scoped`]).
    fn scope(&self, filter: &Filter) -> Result<Option<std::sync::Arc<crate::local::LocalReader>>> {
        if filter.docs.is_empty() {
            return Ok(None);
        }
        let listing = self.listing()?;
        let Some(docs) = filter
            .docs
            .iter()
            .map(|d| listing.by_id.get(d).map(|&i| listing.docs[i].clone()))
            .collect::<Option<Vec<DocumentInfo>>>()
        else {
            return Ok(None);
        };
        self.scopes.of(&docs, self.model_id(), self.dim(), |doc| {
            self.document_notes(doc)
        })
    }

    /// The documents, as read from the files collection at most [`PAGES_FRESH_FOR`] ago.
    fn listing(&self) -> Result<std::sync::Arc<Listing>> {
        let mut cached = self.listing.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, l)) = cached.as_ref()
            && at.elapsed() <= PAGES_FRESH_FOR
        {
            return Ok(l.clone());
        }
        let docs = self.documents()?;
        let by_id = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.doc.clone(), i))
            .collect();
        let l = std::sync::Arc::new(Listing {
            docs,
            by_id,
            names: std::sync::OnceLock::new(),
        });
        *cached = Some((std::time::Instant::now(), l.clone()));
        Ok(l)
    }

    /// The notes of `filter` with their vectors, by document then document order.
    fn notes(&self, filter: &Filter) -> Result<Vec<(Note, Vec<f32>)>> {
        let mut out = self
            .col
            .notes(&milvus_filter(filter))?
            .into_iter()
            .map(|h| Ok((note_of(&h)?, h.vector)))
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_cached_key(|(n, _)| document_order(n));
        Ok(out)
    }
}

impl Reader for MilvusReader {
    fn model_id(&self) -> &str {
        &self.col.info().model
    }

    fn dim(&self) -> usize {
        self.col.info().dim
    }

    fn crop_dir(&self) -> PathBuf {
        self.col.info().crops.clone()
    }

    fn len(&self) -> Result<usize> {
        Ok(self.col.count()? as usize)
    }

    fn stats(&self) -> Result<Stats> {
        let rows = file_rows(&self.col)?;
        let rows = rows.iter().filter(|(_, i)| !i.writing);
        let mut by_kind: BTreeMap<NoteKind, u64> = NoteKind::ALL.iter().map(|k| (*k, 0)).collect();
        let (mut documents, mut pages, mut failed) = (0, 0u64, 0);
        for (_, i) in rows {
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
            format_version: indexer_milvus::SCHEMA_VERSION,
        })
    }

    fn documents(&self) -> Result<Vec<DocumentInfo>> {
        let mut docs: Vec<DocumentInfo> = file_rows(&self.col)?
            .into_iter()
            .filter(|(_, i)| i.failure.is_none() && !i.writing)
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

    fn failures(&self) -> Result<Vec<FailureInfo>> {
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

    fn note(&self, id: &str) -> Result<Option<Note>> {
        self.col
            .get(&[id.to_string()])?
            .first()
            .map(note_of)
            .transpose()
    }

    fn location(&self) -> IndexLocation {
        IndexLocation::Milvus(self.col.url().clone())
    }

    /// A collection has no generations: every search reads it as it is now.
    fn generation(&self) -> u64 {
        0
    }

    fn all_notes(&self) -> Result<Vec<Note>> {
        Ok(self
            .notes(&Filter::default())?
            .into_iter()
            .map(|(n, _)| n)
            .collect())
    }

    fn document_notes(&self, doc: &str) -> Result<Vec<(Note, Vec<f32>)>> {
        self.notes(&Filter {
            docs: vec![doc.to_string()],
            ..Filter::default()
        })
    }

    /// Milvus does not expose its terms: the words match as typed, but in a search limited
    /// to a few documents, whose local index has them ([`super::scoped`]).
    fn expand(&self, text: &str, matching: Matching, filter: &Filter) -> Result<Expansions> {
        match self.scope(filter)? {
            Some(local) => local.expand(text, matching, filter),
            None => Ok(Expansions::default()),
        }
    }

    /// The first stage: over a local index of the filter's documents when the search is
    /// limited to a few ([`super::scoped`]); else Milvus's BM25 list and its vector list,
    /// each with its scores and ranks, fused by [`indexer_index::fuse`] as a local index
    /// fuses them.
    fn first_stage(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
    ) -> Result<Pool> {
        if let Some(local) = self.scope(filter)? {
            return local.first_stage(question, filter, stage);
        }
        // Milvus's BM25 function takes text, not weighted terms: no feedback here.
        let (query, vector, k, fusion) = (
            question.searched.as_ref(),
            question.vector.as_slice(),
            stage.candidates,
            stage.fusion,
        );
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
        let mut found: Vec<Option<(Note, Vec<f32>)>> = found.into_iter().map(Some).collect();
        let mut candidates = Vec::with_capacity(hits.len());
        let mut vectors = Vec::with_capacity(hits.len());
        for c in &hits {
            let Some((note, v)) = found[c.ordinal].take() else {
                continue;
            };
            let entry = PoolEntry {
                note,
                cosine: c.cosine.unwrap_or(0.0),
                bm25_rank: c.bm25_rank,
                bm25_score: c.bm25_score,
                vector_rank: c.vector_rank,
            };
            candidates.push((entry, f64::from(c.fused)));
            vectors.push(v);
        }
        Ok(Pool::ranked(
            dim,
            candidates
                .into_iter()
                .zip(&vectors)
                .map(|((e, f), v)| (e, v.as_slice(), f)),
        ))
    }

    fn document_names(&self) -> Result<std::sync::Arc<crate::rewrite::DocumentNames>> {
        let l = self.listing()?;
        Ok(l.names
            .get_or_init(|| std::sync::Arc::new(crate::rewrite::DocumentNames::new(&l.docs)))
            .clone())
    }

    fn document_pages(&self, doc: &str) -> Result<Option<u32>> {
        let l = self.listing()?;
        Ok(l.by_id.get(doc).map(|&i| l.docs[i].pages))
    }

    fn bm25_notes(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<Note>> {
        let terms = indexer_index::analyze(text).join(" ");
        self.col
            .bm25(&terms, k, &milvus_filter(filter))?
            .iter()
            .map(note_of)
            .collect()
    }
}
