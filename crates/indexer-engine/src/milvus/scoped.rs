//! Searches of a Milvus index filtered to a few documents: their first stage runs over a local
//! index of just those documents, made here from their notes and vectors in the collection.
//!
//! Milvus's BM25 weighs a word by its statistics over the whole collection and searches one
//! field; a local index searches five with their boosts, expands the question's words with
//! pseudo-relevance feedback, and, filtered to documents, weighs words by their statistics in
//! those documents (the word "revenue" tells little in an annual report, much in a library).
//! So a search the caller has narrowed to a few documents (the usual question over a PDF, a
//! docs site's filter) gets the local first stage, whole, from a small index of their notes,
//! made once and kept while the documents' hashes stay the same; a wider search, or one over
//! more than [`MAX_SCOPED_NOTES`] notes, asks Milvus. The notes and vectors are the
//! collection's, so the candidates are the collection's notes.

use crate::Result;
use crate::local::LocalReader;
use indexer_index::{DocumentInfo, Index, Writer};
use indexer_notes::{Note, ParsedDocument};
use std::sync::{Arc, Mutex};

/// The most notes a scope's local index holds (about 20 long reports); a filter over more
/// documents is searched by Milvus.
pub(super) const MAX_SCOPED_NOTES: u64 = 20_000;
/// Scopes kept at once, the least recently searched dropped first.
const KEPT_SCOPES: usize = 16;

/// A scope: the documents (id and hash, sorted) and the local index of their notes.
#[derive(Debug)]
struct Scope {
    key: Vec<(String, String)>,
    reader: Arc<LocalReader>,
    _dir: tempfile::TempDir,
}

/// The local indexes of the scopes searched lately, most recent last.
#[derive(Debug, Default)]
pub(super) struct Scopes {
    kept: Mutex<Vec<Scope>>,
}

impl Scopes {
    /// The local index of `docs` (the filter's documents as the files collection lists
    /// them), made from `notes` (a document's notes and vectors, in document order) when it
    /// is not kept already. `None` when the scope is empty or too large to be made here.
    pub(super) fn of(
        &self,
        docs: &[DocumentInfo],
        model: &str,
        dim: usize,
        notes: impl Fn(&str) -> Result<Vec<(Note, Vec<f32>)>>,
    ) -> Result<Option<Arc<LocalReader>>> {
        let total: u64 = docs.iter().map(|d| d.notes).sum();
        if docs.is_empty() || total == 0 || total > MAX_SCOPED_NOTES {
            return Ok(None);
        }
        let mut key: Vec<(String, String)> = docs
            .iter()
            .map(|d| (d.doc.clone(), d.hash.clone()))
            .collect();
        key.sort();
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = kept.iter().position(|s| s.key == key) {
            let scope = kept.remove(i);
            let reader = scope.reader.clone();
            kept.push(scope);
            return Ok(Some(reader));
        }
        let dir = tempfile::Builder::new()
            .prefix("indexer-scope-")
            .tempdir()
            .map_err(|source| indexer_index::Error::Io {
                context: "cannot make a temporary folder for the scope's index in",
                path: std::env::temp_dir(),
                source,
            })?;
        let mut w = Writer::open_or_create(dir.path(), model, dim)?;
        for d in docs {
            let rows = notes(&d.doc)?;
            let mut vectors = Vec::with_capacity(rows.len() * dim);
            let mut doc_notes = Vec::with_capacity(rows.len());
            for (n, v) in rows {
                if v.len() == dim {
                    vectors.extend_from_slice(&v);
                    doc_notes.push(n);
                }
            }
            w.upsert(
                ParsedDocument {
                    doc: d.doc.clone(),
                    hash: d.hash.clone(),
                    title: d.title.clone(),
                    pages: d.pages,
                    pages_without_text: d.pages_without_text.clone(),
                    ocr_pages: Vec::new(),
                    unreadable_pages: Vec::new(),
                    notes: doc_notes,
                    warnings: Vec::new(),
                },
                vectors,
            )?;
        }
        w.commit()?;
        drop(w);
        let reader = Arc::new(LocalReader::new(Index::open(dir.path())?));
        if kept.len() >= KEPT_SCOPES {
            kept.remove(0);
        }
        kept.push(Scope {
            key,
            reader: reader.clone(),
            _dir: dir,
        });
        Ok(Some(reader))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::Reader;
    use indexer_notes::NoteKind;
    use std::cell::Cell;

    const DIM: usize = 4;

    fn doc(name: &str, hash: &str, notes: u64) -> DocumentInfo {
        DocumentInfo {
            doc: name.to_string(),
            hash: hash.to_string(),
            title: None,
            pages: 1,
            notes,
            pages_without_text: Vec::new(),
        }
    }

    /// A document's notes as a collection gives them: two texts, unit vectors.
    fn notes_of(doc: &str) -> Vec<(Note, Vec<f32>)> {
        [
            "mosaic plots shade tiles by residuals",
            "graphs answer nearest neighbour queries",
        ]
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let mut n = Note::new(format!("{doc}#t{i}"), doc, NoteKind::Text, *text);
            n.page = Some(1);
            let mut v = vec![0.0; DIM];
            v[i] = 1.0;
            (n, v)
        })
        .collect()
    }

    /// A scope is made once while its documents' hashes stay, made again when one changes,
    /// and holds their notes, searchable; none is made for no notes or too many.
    #[test]
    fn a_scope_is_made_once_per_hash_and_only_when_small() {
        let scopes = Scopes::default();
        let reads = Cell::new(0);
        let read = |d: &str| {
            reads.set(reads.get() + 1);
            Ok(notes_of(d))
        };
        let docs = [doc("a.pdf", "h1", 2), doc("b.pdf", "h2", 2)];
        let first = scopes.of(&docs, "m", DIM, read).unwrap().unwrap();
        assert_eq!(reads.get(), 2);
        assert_eq!(first.len().unwrap(), 4);
        // The same documents in another order: the same index, nothing read.
        let again = scopes
            .of(&[docs[1].clone(), docs[0].clone()], "m", DIM, read)
            .unwrap()
            .unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(reads.get(), 2);
        // A document changed: its scope is made again from the collection.
        let changed = [doc("a.pdf", "h3", 2), doc("b.pdf", "h2", 2)];
        let other = scopes.of(&changed, "m", DIM, read).unwrap().unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        assert_eq!(reads.get(), 4);
        let bm25 = other
            .bm25_notes("residuals", 5, &indexer_index::Filter::default())
            .unwrap();
        assert_eq!(bm25.len(), 2, "one match in each document");
        assert!(bm25.iter().all(|n| n.id.ends_with("#t0")));
        // Nothing to make, or too much to make here.
        assert!(scopes.of(&[], "m", DIM, read).unwrap().is_none());
        assert!(
            scopes
                .of(&[doc("big.pdf", "h", MAX_SCOPED_NOTES + 1)], "m", DIM, read)
                .unwrap()
                .is_none()
        );
        assert_eq!(reads.get(), 4);
    }

    /// At most [`KEPT_SCOPES`] are kept; the least recently searched goes first.
    #[test]
    fn the_least_recently_searched_scope_goes_first() {
        let scopes = Scopes::default();
        let read = |d: &str| Ok(notes_of(d));
        let one = |i: usize| [doc(&format!("d{i}.md"), "h", 2)];
        let first = scopes.of(&one(0), "m", DIM, read).unwrap().unwrap();
        for i in 1..KEPT_SCOPES {
            scopes.of(&one(i), "m", DIM, read).unwrap();
        }
        // d0 searched again: d1 is now the oldest, and goes when one more is made.
        let kept = scopes.of(&one(0), "m", DIM, read).unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &kept));
        scopes.of(&one(KEPT_SCOPES), "m", DIM, read).unwrap();
        let keys: Vec<String> = scopes
            .kept
            .lock()
            .unwrap()
            .iter()
            .map(|s| s.key[0].0.clone())
            .collect();
        assert_eq!(keys.len(), KEPT_SCOPES);
        assert!(keys.contains(&"d0.md".to_string()));
        assert!(!keys.contains(&"d1.md".to_string()));
    }
}
