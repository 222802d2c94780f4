//! A committed generation's tantivy folder, opened for reading without tantivy's locks.
//!
//! A generation's files never change after its commit: the next generation hard-links the
//! segments it keeps into a folder of its own and writes there. So a reader needs none of the
//! locks tantivy takes when it opens an index, and taking them would create lock files, which
//! fails in an index folder the reader may not write (a read-only mount, a server's user).

use std::path::Path;
use std::sync::Arc;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
};

#[derive(Debug, Clone)]
pub(crate) struct CommittedDir(MmapDirectory);

impl CommittedDir {
    pub(crate) fn open(path: &Path) -> Result<CommittedDir, OpenDirectoryError> {
        MmapDirectory::open(path).map(CommittedDir)
    }
}

impl Directory for CommittedDir {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        self.0.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.0.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.0.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.0.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.0.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> std::io::Result<()> {
        self.0.atomic_write(path, data)
    }

    fn sync_directory(&self) -> std::io::Result<()> {
        self.0.sync_directory()
    }

    /// No lock: nothing changes the folder while a reader holds the generation.
    fn acquire_lock(&self, _lock: &Lock) -> Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.0.watch(watch_callback)
    }
}
