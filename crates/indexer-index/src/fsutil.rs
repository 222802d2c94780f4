//! Locks, generation folders and garbage collection.

use crate::error::{Error, Result};
use crate::manifest::{Manifest, gen_dir_name, parse_gen_dir_name};
use std::collections::BTreeSet;
use std::fs::{self, File, TryLockError};
use std::path::Path;

pub(crate) const WRITER_LOCK: &str = "LOCK";
pub(crate) const READERS_LOCK: &str = "readers.lock";
/// The folder, inside an index folder, of the crop PNGs of its figure and table notes.
pub const CROPS: &str = "crops";

/// Takes the shared lock a reader holds on its generation for as long as it is open. `None`
/// when the generation has been garbage-collected meanwhile (the caller reads the manifest
/// again).
pub(crate) fn lock_generation_shared(dir: &Path, generation: u64) -> Result<Option<File>> {
    let path = dir.join(gen_dir_name(generation)).join(READERS_LOCK);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("cannot open", &path)(e)),
    };
    file.lock_shared()
        .map_err(Error::io("cannot lock", &path))?;
    // The collector deletes the lock file while it holds the exclusive lock, so if the file
    // is gone now, we locked a generation that is being deleted.
    if !path.exists() {
        return Ok(None);
    }
    Ok(Some(file))
}

/// Data files at the top of the index folder that some generation may reference.
fn is_data_file(name: &str) -> bool {
    (name.starts_with("vectors-") && name.ends_with(".f32"))
        || (name.starts_with("rows-") && name.ends_with(".bin"))
        || (name.starts_with("notes-") && name.ends_with(".bin"))
        || (name.starts_with("graph-")
            && (name.ends_with(".hnsw.graph") || name.ends_with(".hnsw.data")))
}

fn referenced_files(m: &Manifest) -> Vec<String> {
    let mut v = vec![
        m.store.vectors_file(),
        m.store.rows_file(),
        m.store.notes_file(),
    ];
    if let Some(g) = &m.graph {
        v.extend(g.files());
    }
    v
}

/// What one garbage collection removed and kept.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct GcStats {
    pub generations_removed: usize,
    /// Older generations kept because a reader has them open.
    pub generations_in_use: usize,
    pub files_removed: usize,
}

/// Removes unfinished generations, generations older than `current` that no reader holds,
/// and data files no kept generation references. Only the writer runs it, with no
/// generation in progress. `current == None` means no generation was ever completed.
pub(crate) fn collect_garbage(dir: &Path, current: Option<&Manifest>) -> Result<GcStats> {
    let mut stats = GcStats::default();
    let cur_gen = current.map(|m| m.generation);
    let mut kept: Vec<Manifest> = current.into_iter().cloned().collect();
    let entries = fs::read_dir(dir).map_err(Error::io("cannot list", dir))?;
    let mut gens = BTreeSet::new();
    let mut data_files = Vec::new();
    for e in entries {
        let e = e.map_err(Error::io("cannot list", dir))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(g) = parse_gen_dir_name(&name) {
            gens.insert(g);
        } else if is_data_file(&name) {
            data_files.push(name);
        }
    }
    for g in gens {
        if Some(g) == cur_gen {
            continue;
        }
        let gdir = dir.join(gen_dir_name(g));
        let unfinished = cur_gen.is_none_or(|c| g > c);
        if !unfinished {
            let lock_path = gdir.join(READERS_LOCK);
            match File::open(&lock_path) {
                Ok(f) => match f.try_lock() {
                    Ok(()) => {
                        fs::remove_file(&lock_path)
                            .map_err(Error::io("cannot remove", &lock_path))?;
                    }
                    Err(TryLockError::WouldBlock) => {
                        stats.generations_in_use += 1;
                        kept.push(Manifest::read_generation(dir, g)?);
                        continue;
                    }
                    Err(TryLockError::Error(e)) => {
                        return Err(Error::io("cannot lock", &lock_path)(e));
                    }
                },
                // A collection that stopped half-way already removed the lock file.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("cannot open", &lock_path)(e)),
            }
        }
        fs::remove_dir_all(&gdir).map_err(Error::io("cannot remove", &gdir))?;
        stats.generations_removed += 1;
    }
    let referenced: BTreeSet<String> = kept.iter().flat_map(referenced_files).collect();
    for name in data_files {
        if !referenced.contains(&name) {
            let p = dir.join(&name);
            fs::remove_file(&p).map_err(Error::io("cannot remove", &p))?;
            stats.files_removed += 1;
        }
    }
    Ok(stats)
}

/// Hard-links every file of tantivy folder `from` into the new folder `to`, except tantivy's
/// lock files. Segment files are written once and never changed, and tantivy replaces
/// `meta.json` and `.managed.json` by rename, so the new generation can change its copy
/// without touching the old one.
pub(crate) fn link_tantivy_dir(from: &Path, to: &Path) -> Result<usize> {
    fs::create_dir_all(to).map_err(Error::io("cannot create", to))?;
    let mut n = 0;
    for e in fs::read_dir(from).map_err(Error::io("cannot list", from))? {
        let e = e.map_err(Error::io("cannot list", from))?;
        let name = e.file_name();
        let s = name.to_string_lossy();
        if s.ends_with(".lock") || !e.file_type().map(|t| t.is_file()).unwrap_or(false) {
            continue;
        }
        let src = e.path();
        let dst = to.join(&name);
        fs::hard_link(&src, &dst).map_err(Error::io("cannot hard-link", &dst))?;
        n += 1;
    }
    Ok(n)
}

/// fsyncs every file in `dir` and the folder itself.
/// Gives every file of `dir` the read permissions `reference` has (a file of ours, created
/// with the process's umask). tantivy writes its `meta.json` and `.managed.json` through
/// temporary files, which are readable by their owner only: an index built by one user and
/// searched by another (a server's user) would fail on them.
#[cfg(unix)]
pub(crate) fn share_reads_like(dir: &Path, reference: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let want = fs::metadata(reference)
        .map_err(Error::io("cannot read", reference))?
        .permissions()
        .mode()
        & 0o444;
    for e in fs::read_dir(dir).map_err(Error::io("cannot read", dir))? {
        let p = e.map_err(Error::io("cannot read", dir))?.path();
        let meta = fs::metadata(&p).map_err(Error::io("cannot read", &p))?;
        let mode = meta.permissions().mode();
        if meta.is_file() && mode & want != want {
            fs::set_permissions(&p, fs::Permissions::from_mode(mode | want))
                .map_err(Error::io("cannot change the permissions of", &p))?;
        }
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn share_reads_like(_dir: &Path, _reference: &Path) -> Result<()> {
    Ok(())
}

pub(crate) fn sync_tree(dir: &Path) -> Result<()> {
    for e in fs::read_dir(dir).map_err(Error::io("cannot list", dir))? {
        let e = e.map_err(Error::io("cannot list", dir))?;
        let p = e.path();
        if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
            sync_tree(&p)?;
        } else {
            File::open(&p)
                .and_then(|f| f.sync_all())
                .map_err(Error::io("cannot fsync", &p))?;
        }
    }
    crate::manifest::sync_dir(dir)
}

pub(crate) fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = fs::read_dir(dir) else { return 0 };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map(|m| m.len()).unwrap_or(0),
            Err(_) => 0,
        })
        .sum()
}
