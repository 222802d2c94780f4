//! The row store: per epoch, three append-only files indexed by note ordinal.
//!
//! - `vectors-E.f32`: `rows x dim` little-endian f32, row-major.
//! - `rows-E.bin`: one fixed 24-byte record per row (where its note is, page, kind).
//! - `notes-E.bin`: per row a postcard head (id and link targets, what candidate retrieval
//!   needs) followed by the note as JSON (JSON so that fields added to `Note` later with
//!   `#[serde(default)]` still read).
//!
//! A generation names how many rows and note bytes it sees; bytes past that belong to a newer
//! or an unfinished generation. Files only grow between compactions, so a reader's mapping of
//! its prefix never changes under it.

use crate::error::{Error, Result};
use crate::manifest::StoreInfo;
use indexer_notes::{Note, NoteKind};
use memmap2::{Mmap, MmapOptions};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub(crate) const ROW_BYTES: usize = 24;

/// What the store keeps apart from the note JSON for each row, so that candidate retrieval
/// decodes a few bytes instead of the whole note.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Head {
    pub id: String,
    pub links: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RowMeta {
    pub offset: u64,
    pub head_len: u32,
    pub note_len: u32,
    /// 0 for unpaged documents.
    pub page: u32,
    pub kind: NoteKind,
}

impl RowMeta {
    fn encode(&self) -> [u8; ROW_BYTES] {
        let mut b = [0u8; ROW_BYTES];
        b[0..8].copy_from_slice(&self.offset.to_le_bytes());
        b[8..12].copy_from_slice(&self.head_len.to_le_bytes());
        b[12..16].copy_from_slice(&self.note_len.to_le_bytes());
        b[16..20].copy_from_slice(&self.page.to_le_bytes());
        b[20] = kind_code(self.kind);
        b
    }

    fn decode(b: &[u8]) -> RowMeta {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        RowMeta {
            offset: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            head_len: u32_at(8),
            note_len: u32_at(12),
            page: u32_at(16),
            kind: kind_from_code(b[20]),
        }
    }
}

pub(crate) fn kind_code(k: NoteKind) -> u8 {
    match k {
        NoteKind::Text => 0,
        NoteKind::Figure => 1,
        NoteKind::Table => 2,
    }
}

pub(crate) fn kind_from_code(c: u8) -> NoteKind {
    match c {
        1 => NoteKind::Figure,
        2 => NoteKind::Table,
        _ => NoteKind::Text,
    }
}

/// Read-only view of the first `rows` rows of an epoch.
#[derive(Debug)]
pub(crate) struct Store {
    rows: usize,
    dim: usize,
    vectors: Option<Mmap>,
    meta: Option<Mmap>,
    notes: Option<Mmap>,
    notes_path: PathBuf,
}

fn map_prefix(path: &Path, len: u64) -> Result<Option<Mmap>> {
    if len == 0 {
        return Ok(None);
    }
    let file = File::open(path).map_err(Error::io("cannot open", path))?;
    let actual = file
        .metadata()
        .map_err(Error::io("cannot stat", path))?
        .len();
    if actual < len {
        return Err(Error::corrupt(
            path,
            format!("{actual} bytes, the manifest names {len}"),
        ));
    }
    let len = usize::try_from(len).map_err(|_| Error::corrupt(path, "too large"))?;
    // SAFETY: the writer only appends past the prefix a manifest names and never truncates
    // below the newest complete generation (see the module doc), so the mapped bytes do not
    // change while mapped.
    let map =
        unsafe { MmapOptions::new().len(len).map(&file) }.map_err(Error::io("cannot map", path))?;
    Ok(Some(map))
}

impl Store {
    pub fn open(dir: &Path, info: &StoreInfo, dim: usize) -> Result<Store> {
        const {
            assert!(
                cfg!(target_endian = "little"),
                "the vector file is little-endian f32 read in place"
            )
        };
        let rows = usize::try_from(info.rows).expect("rows fit usize");
        let vectors = map_prefix(&dir.join(info.vectors_file()), info.rows * dim as u64 * 4)?;
        let meta = map_prefix(&dir.join(info.rows_file()), info.rows * ROW_BYTES as u64)?;
        let notes_path = dir.join(info.notes_file());
        let notes = map_prefix(&notes_path, info.notes_bytes)?;
        Ok(Store {
            rows,
            dim,
            vectors,
            meta,
            notes,
            notes_path,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// All vectors, `rows x dim`, row-major.
    pub fn matrix(&self) -> &[f32] {
        match &self.vectors {
            None => &[],
            Some(m) => {
                let bytes: &[u8] = m;
                // Mappings are page-aligned, so the f32 alignment holds; the length is a
                // multiple of 4 by construction.
                let (head, body, tail) = unsafe { bytes.align_to::<f32>() };
                assert!(head.is_empty() && tail.is_empty(), "vector map is aligned");
                body
            }
        }
    }

    pub fn vector(&self, ordinal: usize) -> &[f32] {
        &self.matrix()[ordinal * self.dim..(ordinal + 1) * self.dim]
    }

    pub fn meta(&self, ordinal: usize) -> RowMeta {
        let m = self.meta.as_ref().expect("store has rows");
        RowMeta::decode(&m[ordinal * ROW_BYTES..(ordinal + 1) * ROW_BYTES])
    }

    fn record(&self, ordinal: usize) -> Result<(&[u8], &[u8])> {
        let meta = self.meta(ordinal);
        let notes = self.notes.as_deref().unwrap_or(&[]);
        let start = meta.offset as usize;
        let mid = start + meta.head_len as usize;
        let end = mid + meta.note_len as usize;
        if end > notes.len() {
            return Err(Error::corrupt(
                &self.notes_path,
                format!("row {ordinal} points past the end"),
            ));
        }
        Ok((&notes[start..mid], &notes[mid..end]))
    }

    pub fn head(&self, ordinal: usize) -> Result<Head> {
        let (head, _) = self.record(ordinal)?;
        postcard::from_bytes(head)
            .map_err(|e| Error::corrupt(&self.notes_path, format!("row {ordinal} head: {e}")))
    }

    pub fn note(&self, ordinal: usize) -> Result<Note> {
        let (_, note) = self.record(ordinal)?;
        serde_json::from_slice(note)
            .map_err(|e| Error::corrupt(&self.notes_path, format!("row {ordinal} note: {e}")))
    }
}

/// Appends rows to an epoch's files. Opening truncates them to what the newest complete
/// generation names: bytes past that come from a generation that never completed.
#[derive(Debug)]
pub(crate) struct Appender {
    dim: usize,
    rows: u64,
    notes_bytes: u64,
    vectors: BufWriter<File>,
    meta: BufWriter<File>,
    notes: BufWriter<File>,
    paths: [PathBuf; 3],
}

impl Appender {
    pub fn open(dir: &Path, info: &StoreInfo, dim: usize) -> Result<Appender> {
        let paths = [
            dir.join(info.vectors_file()),
            dir.join(info.rows_file()),
            dir.join(info.notes_file()),
        ];
        let lens = [
            info.rows * dim as u64 * 4,
            info.rows * ROW_BYTES as u64,
            info.notes_bytes,
        ];
        let mut files = Vec::with_capacity(3);
        for (path, len) in paths.iter().zip(lens) {
            let f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(Error::io("cannot open for append", path))?;
            let actual = f.metadata().map_err(Error::io("cannot stat", path))?.len();
            if actual < len {
                return Err(Error::corrupt(
                    path,
                    format!("{actual} bytes, the manifest names {len}"),
                ));
            }
            if actual > len {
                f.set_len(len).map_err(Error::io("cannot truncate", path))?;
            }
            files.push(BufWriter::with_capacity(1 << 20, f));
        }
        let notes = files.pop().expect("3 files");
        let meta = files.pop().expect("3 files");
        let vectors = files.pop().expect("3 files");
        Ok(Appender {
            dim,
            rows: info.rows,
            notes_bytes: info.notes_bytes,
            vectors,
            meta,
            notes,
            paths,
        })
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn notes_bytes(&self) -> u64 {
        self.notes_bytes
    }

    /// Appends one row and returns its ordinal.
    pub fn append(&mut self, note: &Note, vector: &[f32]) -> Result<u64> {
        debug_assert_eq!(vector.len(), self.dim);
        let head = Head {
            id: note.id.clone(),
            links: note.links.iter().map(|l| l.target.clone()).collect(),
        };
        let head = postcard::to_stdvec(&head).expect("head serializes");
        let json = serde_json::to_vec(note).expect("note serializes");
        let meta = RowMeta {
            offset: self.notes_bytes,
            head_len: head.len() as u32,
            note_len: json.len() as u32,
            page: note.page.unwrap_or(0),
            kind: note.kind,
        };
        let io = |i: usize| Error::io("cannot append to", &self.paths[i]);
        let mut vbytes = Vec::with_capacity(vector.len() * 4);
        for x in vector {
            vbytes.extend_from_slice(&x.to_le_bytes());
        }
        self.vectors.write_all(&vbytes).map_err(io(0))?;
        self.meta.write_all(&meta.encode()).map_err(io(1))?;
        self.notes.write_all(&head).map_err(io(2))?;
        self.notes.write_all(&json).map_err(io(2))?;
        self.notes_bytes += (head.len() + json.len()) as u64;
        let ordinal = self.rows;
        self.rows += 1;
        Ok(ordinal)
    }

    /// Flushes and fsyncs the three files.
    pub fn sync(&mut self) -> Result<()> {
        for (i, w) in [&mut self.vectors, &mut self.meta, &mut self.notes]
            .into_iter()
            .enumerate()
        {
            w.flush()
                .map_err(Error::io("cannot write", &self.paths[i]))?;
            w.get_ref()
                .sync_all()
                .map_err(Error::io("cannot fsync", &self.paths[i]))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_meta_round_trips() {
        let m = RowMeta {
            offset: 1 << 40,
            head_len: 17,
            note_len: 90_000,
            page: 612,
            kind: NoteKind::Table,
        };
        assert_eq!(RowMeta::decode(&m.encode()), m);
    }

    #[test]
    fn appended_rows_read_back_and_reopening_truncates_unfinished_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut info = StoreInfo {
            epoch: 1,
            rows: 0,
            notes_bytes: 0,
        };
        let mut a = Appender::open(dir.path(), &info, 2).unwrap();
        let mut n = Note::new("d#t0", "d", NoteKind::Text, "zero");
        n.page = Some(3);
        a.append(&n, &[1.0, 0.0]).unwrap();
        a.append(
            &Note::new("d#f0", "d", NoteKind::Figure, "one"),
            &[0.0, 1.0],
        )
        .unwrap();
        a.sync().unwrap();
        info.rows = 1;
        info.notes_bytes = a.meta_offset_of_second();
        drop(a);
        // Reopening at one row cuts the second row away.
        let a = Appender::open(dir.path(), &info, 2).unwrap();
        assert_eq!(a.rows(), 1);
        drop(a);
        let s = Store::open(dir.path(), &info, 2).unwrap();
        assert_eq!(s.rows(), 1);
        assert_eq!(s.vector(0), &[1.0, 0.0]);
        assert_eq!(s.note(0).unwrap(), n);
        assert_eq!(s.head(0).unwrap().id, "d#t0");
        assert_eq!(s.meta(0).page, 3);
        let len = std::fs::metadata(dir.path().join(info.notes_file()))
            .unwrap()
            .len();
        assert_eq!(len, info.notes_bytes);
    }

    impl Appender {
        fn meta_offset_of_second(&self) -> u64 {
            let m = std::fs::read(&self.paths[1]).unwrap();
            RowMeta::decode(&m[ROW_BYTES..2 * ROW_BYTES]).offset
        }
    }
}
