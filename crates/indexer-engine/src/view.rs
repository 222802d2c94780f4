//! A read-only view of one index generation: notes, documents, statistics and crops, without
//! an encoder (for `show`, `stats`, `export` and the server's document routes).

use crate::backend::{self, Backend};
use crate::{Error, IndexLocation, Result};
use indexer_index::{DocumentInfo, FailureInfo, Stats};
use indexer_notes::Note;
use std::path::{Path, PathBuf};

/// One complete generation of an index (or a Milvus collection as it is now), pinned while
/// the view lives. Cheap to clone. A local index answers from memory; a Milvus one asks the
/// server, so these calls can fail.
#[derive(Clone)]
pub struct IndexView {
    index: Backend,
}

impl std::fmt::Debug for IndexView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IndexView")
            .field("index", &self.index.location().to_string())
            .field("generation", &self.index.generation())
            .finish()
    }
}

impl IndexView {
    /// Opens the newest complete generation of the index in `dir` (a folder, or a
    /// `milvus://` URL).
    pub fn open(dir: &Path) -> Result<IndexView> {
        Ok(IndexView::from(backend::open(&IndexLocation::of(dir)?)?))
    }

    pub(crate) fn from(index: Backend) -> IndexView {
        IndexView { index }
    }

    pub(crate) fn backend(&self) -> &Backend {
        &self.index
    }

    /// Where the index is.
    pub fn location(&self) -> IndexLocation {
        self.index.location()
    }

    /// The generation of a local index (0 on Milvus).
    pub fn generation(&self) -> u64 {
        self.index.generation()
    }

    /// The id of the encoder the index was built with.
    pub fn model_id(&self) -> &str {
        self.index.model_id()
    }

    /// The folder of the crop PNGs of figure and table notes.
    pub fn crop_dir(&self) -> PathBuf {
        self.index.crop_dir()
    }

    /// Live notes.
    pub fn len(&self) -> Result<usize> {
        self.index.len()
    }

    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    pub fn stats(&self) -> Result<Stats> {
        self.index.stats()
    }

    pub fn documents(&self) -> Result<Vec<DocumentInfo>> {
        self.index.documents()
    }

    /// Files that failed to parse, with the reason.
    pub fn failures(&self) -> Result<Vec<FailureInfo>> {
        self.index.failures()
    }

    pub fn note(&self, id: &str) -> Result<Option<Note>> {
        self.index.note(id)
    }

    /// Every live note, by document then document order.
    pub fn notes(&self) -> Result<Vec<Note>> {
        self.index.all_notes()
    }

    /// Where the crop image of a figure or table note of a paged document is, as the note
    /// names it (for the evidence's `image_path`; [`IndexView::image_path`] is what may be
    /// served).
    pub fn crop_path(&self, note: &Note) -> Option<PathBuf> {
        note.page?;
        Some(self.index.crop_dir().join(note.image.as_deref()?))
    }

    /// The crop image of a note, only if it is a file inside the index's crop folder (whatever
    /// the note's stored path says: `..` or absolute paths are refused). Markdown and HTML
    /// images point at the user's files, not at the index, and have none.
    pub fn image_path(&self, note: &Note) -> Option<PathBuf> {
        note.page?;
        safe_child(&self.index.crop_dir(), note.image.as_deref()?)
    }

    /// The document id that `doc` names: the id itself; else the one id that ends with `/doc`
    /// (so `a.pdf` finds `/home/u/papers/a.pdf`, or `papers/a.pdf` ingested from its
    /// parent); else the one document whose title is `doc` (letter case aside); else the one
    /// whose file name begins with `doc` (`lme4` finds `docs/lme4-lmer.pdf`). Anything else
    /// is [`Error::UnknownDocument`] with the closest ids, or the several it could be.
    pub fn resolve_document(&self, doc: &str) -> Result<String> {
        let docs = self.index.documents()?;
        if docs.iter().any(|d| d.doc == doc) {
            return Ok(doc.to_string());
        }
        let wanted = doc.trim_start_matches("./").trim_start_matches('/');
        let suffix = format!("/{wanted}");
        let file = |d: &str| d.rsplit('/').next().unwrap_or(d).to_string();
        let lower = wanted.to_lowercase();
        // Each way of naming a document, most exact first: the first that names any decides.
        let ways: [&dyn Fn(&indexer_index::DocumentInfo) -> bool; 3] = [
            &|d| d.doc.ends_with(&suffix),
            &|d| {
                d.title
                    .as_deref()
                    .is_some_and(|t| t.trim().to_lowercase() == lower.trim())
            },
            &|d| !lower.is_empty() && file(&d.doc).to_lowercase().starts_with(&lower),
        ];
        for way in ways {
            let matches: Vec<&str> = docs
                .iter()
                .filter(|d| way(d))
                .map(|d| d.doc.as_str())
                .collect();
            match matches.as_slice() {
                [] => continue,
                [one] => return Ok(one.to_string()),
                many => {
                    return Err(Error::UnknownDocument {
                        doc: doc.to_string(),
                        ambiguous: true,
                        closest: many.iter().map(|s| s.to_string()).collect(),
                    });
                }
            }
        }
        Err(Error::UnknownDocument {
            doc: doc.to_string(),
            ambiguous: false,
            closest: closest_ids(doc, docs.iter().map(|d| d.doc.as_str())),
        })
    }
}

/// The ids whose file names are nearest to `wanted`'s by edit distance (a typo or two: at most
/// a quarter of the name, at least 2), the best ones only, three at most, for a hint.
fn closest_ids<'a>(wanted: &str, ids: impl Iterator<Item = &'a str>) -> Vec<String> {
    let name = |s: &str| s.rsplit('/').next().unwrap_or(s).to_lowercase();
    let w = name(wanted);
    let limit = (w.chars().count() / 4).max(2);
    let mut scored: Vec<(usize, &str)> = ids
        .map(|id| (edit_distance(&w, &name(id)), id))
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    let best = scored.first().map_or(0, |s| s.0);
    scored
        .into_iter()
        .take_while(|(d, _)| *d == best)
        .take(3)
        .map(|(_, id)| id.to_string())
        .collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// `dir/name` if `name` is a plain relative path that stays inside `dir` and names a file.
pub fn safe_child(dir: &Path, name: &str) -> Option<PathBuf> {
    let rel = Path::new(name);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return None;
    }
    let p = dir.join(rel);
    let canon_dir = dir.canonicalize().ok()?;
    let canon = p.canonicalize().ok()?;
    (canon.starts_with(&canon_dir) && canon.is_file()).then_some(canon)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_child_refuses_escapes() {
        // The file outside the crop folder is a sibling folder's, inside this test's own
        // temporary folder, so nothing is left behind.
        let t = tempfile::tempdir().unwrap();
        let crops = t.path().join("crops");
        std::fs::create_dir(&crops).unwrap();
        std::fs::write(crops.join("a.png"), b"x").unwrap();
        std::fs::write(t.path().join("outside.png"), b"x").unwrap();
        assert!(safe_child(&crops, "a.png").is_some());
        assert!(safe_child(&crops, "../outside.png").is_none());
        assert!(safe_child(&crops, "/etc/passwd").is_none());
        assert!(safe_child(&crops, "missing.png").is_none());
        assert!(safe_child(&crops, "").is_none());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", crops.join("link.png")).unwrap();
            assert!(safe_child(&crops, "link.png").is_none());
        }
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn closest_ids_prefer_near_file_names() {
        let ids = ["papers/lmer.pdf", "papers/strucplot.pdf", "notes/intro.md"];
        assert_eq!(
            closest_ids("lmr.pdf", ids.into_iter()),
            vec!["papers/lmer.pdf"]
        );
        assert!(closest_ids("zzzzzzzzzzzz.txt", ids.into_iter()).is_empty());
    }
}
