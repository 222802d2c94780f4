//! Whole texts as documents, for retrieval benchmarks (BEIR): one note per text, no file to
//! parse, and each retriever's own ranking of the documents.

use crate::engine::Engine;
use crate::{Error, Result};
use indexer_embed::Encoder;
use indexer_index::{Candidate, CandidateQuery, Expansions, Filter, Fusion, Writer};
use indexer_notes::{Note, NoteKind, ParsedDocument};

/// A document given as text.
#[derive(Debug, Clone, Copy)]
pub struct TextDocument<'a> {
    pub id: &'a str,
    /// May be empty.
    pub title: &'a str,
    pub text: &'a str,
}

/// Texts per encoder call.
const EMBED_BATCH: usize = 64;

/// Writes `docs` into the index at `dir` (created if missing) as one text note each (the
/// title, a line break, the text), embedded with `encoder`, and commits one generation.
/// `progress` gets (done, total) over the embedding batches.
pub fn index_texts(
    dir: &std::path::Path,
    docs: &[TextDocument<'_>],
    encoder: &dyn Encoder,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Input {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut w = Writer::open_or_create(dir, encoder.model_id(), encoder.dim())?;
    let batches = docs.len().div_ceil(EMBED_BATCH);
    for (bi, chunk) in docs.chunks(EMBED_BATCH).enumerate() {
        let texts: Vec<String> = chunk
            .iter()
            .map(|d| {
                if d.title.is_empty() {
                    d.text.to_string()
                } else {
                    format!("{}\n{}", d.title, d.text)
                }
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let emb = encoder.embed_documents(&refs)?;
        for (i, (d, text)) in chunk.iter().zip(texts).enumerate() {
            let note = Note::new(format!("{}#t0", d.id), d.id, NoteKind::Text, text);
            let doc = ParsedDocument {
                doc: d.id.to_string(),
                hash: d.id.to_string(),
                // The title is already the text's first line, as BEIR's protocol has it;
                // as the document's title it would also be the notes' context line and
                // count twice in BM25.
                title: None,
                pages: 1,
                pages_without_text: vec![],
                ocr_pages: vec![],
                unreadable_pages: vec![],
                notes: vec![note],
                warnings: vec![],
            };
            w.upsert(doc, emb.data[i * emb.dim..(i + 1) * emb.dim].to_vec())?;
        }
        progress(bi + 1, batches);
    }
    w.commit()?;
    Ok(())
}

/// Document ids ranked by BM25 alone, by the vectors alone, and by the first stage with each
/// fusion asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rankings {
    pub bm25: Vec<String>,
    pub vectors: Vec<String>,
    /// One ranking per fusion, in the order given: the first stage as a search runs it.
    pub fused: Vec<Vec<String>>,
    /// The default fusion of the two lists without pseudo-relevance feedback.
    pub fused_without_feedback: Vec<String>,
}

impl Engine {
    /// The top `k` documents of each retriever for a question (its text and vector), and of
    /// the first stage with each of `fusions`.
    pub fn rankings(
        &self,
        query: &str,
        vector: &[f32],
        k: usize,
        fusions: &[Fusion],
        expansions: &Expansions,
    ) -> Result<Rankings> {
        let reader = self.index();
        let Some(index) = reader.local_index() else {
            return Err(crate::Error::BadRequest(
                "BEIR rankings read a local index folder, not a Milvus collection".into(),
            ));
        };
        let search = |fusion: Fusion, feedback: bool| {
            index.candidates(&CandidateQuery {
                text: query,
                vector,
                bm25_k: k,
                vector_k: k,
                fusion,
                filter: Filter::default(),
                expansions: Some(expansions),
                feedback,
            })
        };
        let docs_of = |hits: &[Candidate]| -> Vec<String> {
            hits.iter()
                .filter_map(|h| index.doc_of_ordinal(h.ordinal).map(str::to_string))
                .collect()
        };
        // Without feedback, the candidates hold each retriever's own list with its ranks.
        let plain = search(Fusion::default(), false)?.hits;
        let by_rank = |rank: fn(&Candidate) -> Option<usize>| -> Vec<String> {
            let mut listed: Vec<Candidate> = plain
                .iter()
                .filter(|h| rank(h).is_some())
                .cloned()
                .collect();
            listed.sort_by_key(rank);
            docs_of(&listed)
        };
        let bm25 = by_rank(|h| h.bm25_rank);
        let vectors = by_rank(|h| h.vector_rank);
        let fused = fusions
            .iter()
            .map(|&fusion| Ok(docs_of(&search(fusion, true)?.hits)))
            .collect::<Result<Vec<_>>>()?;
        Ok(Rankings {
            bm25,
            vectors,
            fused,
            fused_without_feedback: docs_of(&plain),
        })
    }
}
