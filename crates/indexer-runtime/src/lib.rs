//! Finds the runtime parts of `indexer` that are not Rust crates: `libpdfium.so`,
//! `libonnxruntime.so` and the encoder model folders. `tools/setup` installs them into
//! `.runtime/`; this crate finds that folder and names any missing file with a hint.
//!
//! Discovery order:
//! 1. the `INDEXER_RUNTIME` environment variable, if set (then it must be right: no fallback);
//! 2. `.runtime/` in the current directory;
//! 3. `.runtime/` beside the executable, or in one of its ancestors (so `target/release/indexer`
//!    finds the `.runtime/` of the checkout it was built in).
//!
//! ```no_run
//! let rt = indexer_runtime::Runtime::discover()?;
//! let pdfium = rt.pdfium_library()?; // a path to an existing file
//! let model = rt.model_dir(indexer_runtime::DEFAULT_MODEL)?;
//! # Ok::<(), indexer_runtime::Error>(())
//! ```

use std::path::{Path, PathBuf};

/// The environment variable that points at a runtime folder.
pub const RUNTIME_ENV: &str = "INDEXER_RUNTIME";
/// The name of the runtime folder that `tools/setup` creates at the root of a checkout.
pub const RUNTIME_DIR_NAME: &str = ".runtime";
/// The folder name (under `models/`) of the default encoder.
pub const DEFAULT_MODEL: &str = "all-MiniLM-L6-v2";
/// The hint printed with every missing-runtime error.
pub const SETUP_HINT: &str = "run tools/setup";

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of runtime discovery. All of them are user errors: the fix is to run `tools/setup`
/// or to point `INDEXER_RUNTIME` at the right folder.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "no runtime folder found: {RUNTIME_ENV} is not set and there is no {RUNTIME_DIR_NAME}/ in {cwd} or beside {exe}"
    )]
    NotFound { cwd: PathBuf, exe: PathBuf },
    #[error("{RUNTIME_ENV} points at {0}, which is not a folder")]
    EnvNotADir(PathBuf),
    #[error("missing runtime file {0}")]
    MissingFile(PathBuf),
    #[error("cannot load {path}: {reason}")]
    Load { path: PathBuf, reason: String },
}

impl indexer_notes::Hint for Error {
    /// Always something: run `tools/setup`, or fix `INDEXER_RUNTIME`.
    fn hint(&self) -> Option<String> {
        Some(
            match self {
                Error::EnvNotADir(_) => {
                    "unset INDEXER_RUNTIME or point it at the folder tools/setup filled; or run tools/setup"
                }
                _ => SETUP_HINT,
            }
            .to_string(),
        )
    }
}

/// A runtime folder: `lib/` with the shared libraries, `models/` with encoder model folders.
#[derive(Debug, Clone)]
pub struct Runtime {
    root: PathBuf,
}

impl Runtime {
    /// Finds the runtime folder (see the crate docs for the order).
    pub fn discover() -> Result<Runtime> {
        let env = std::env::var_os(RUNTIME_ENV)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from);
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let exe = std::env::current_exe().unwrap_or_default();
        Self::discover_from(env.as_deref(), &cwd, &exe)
    }

    /// Discovery with explicit inputs, for tests and for callers that know better.
    pub fn discover_from(env: Option<&Path>, cwd: &Path, exe: &Path) -> Result<Runtime> {
        if let Some(dir) = env {
            if !dir.is_dir() {
                return Err(Error::EnvNotADir(dir.to_path_buf()));
            }
            return Ok(Runtime {
                root: dir.to_path_buf(),
            });
        }
        let here = cwd.join(RUNTIME_DIR_NAME);
        if here.is_dir() {
            return Ok(Runtime { root: here });
        }
        // Beside the executable, then its ancestors: a binary in target/release/ of a checkout
        // uses the checkout's runtime. Stop at the filesystem root.
        let mut dir = exe.parent();
        while let Some(d) = dir {
            let candidate = d.join(RUNTIME_DIR_NAME);
            if candidate.is_dir() {
                return Ok(Runtime { root: candidate });
            }
            dir = d.parent();
        }
        Err(Error::NotFound {
            cwd: cwd.to_path_buf(),
            exe: exe.to_path_buf(),
        })
    }

    /// A runtime rooted at `root`, without checks.
    pub fn at(root: impl Into<PathBuf>) -> Runtime {
        Runtime { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn file(&self, rel: &str) -> Result<PathBuf> {
        let p = self.root.join(rel);
        if p.is_file() {
            Ok(p)
        } else {
            Err(Error::MissingFile(p))
        }
    }

    /// `lib/libpdfium.so`.
    pub fn pdfium_library(&self) -> Result<PathBuf> {
        self.file("lib/libpdfium.so")
    }

    /// `lib/libonnxruntime.so`.
    pub fn onnxruntime_library(&self) -> Result<PathBuf> {
        self.file("lib/libonnxruntime.so")
    }

    /// `models/NAME/`, which must hold a `model.toml` manifest.
    pub fn model_dir(&self, name: &str) -> Result<PathBuf> {
        let dir = self.root.join("models").join(name);
        self.file(&format!("models/{name}/model.toml"))?;
        Ok(dir)
    }

    /// Opens a shared library and looks up one symbol in it, to prove that it loads here (the
    /// right architecture, its own dependencies present). The library is closed again.
    pub fn check_loads(path: &Path, symbol: &str) -> Result<()> {
        let load_err = |reason: String| Error::Load {
            path: path.to_path_buf(),
            reason,
        };
        // SAFETY: loading runs the library's initialisers. Both libraries we load are the
        // pinned builds that tools/setup verified by sha256; their initialisers are benign.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| load_err(e.to_string()))?;
        // SAFETY: the symbol is only looked up, never called.
        let sym: std::result::Result<libloading::Symbol<'_, *const ()>, _> =
            unsafe { lib.get(symbol.as_bytes()) };
        sym.map_err(|e| load_err(format!("symbol {symbol} not found: {e}")))?;
        Ok(())
    }

    /// Checks that both libraries exist and load, and that the default model is installed.
    pub fn check(&self) -> Result<()> {
        Self::check_loads(&self.pdfium_library()?, "FPDF_InitLibrary")?;
        Self::check_loads(&self.onnxruntime_library()?, "OrtGetApiBase")?;
        self.model_dir(DEFAULT_MODEL)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_wins_and_must_be_a_folder() {
        let t = tempfile::tempdir().unwrap();
        let rt = Runtime::discover_from(Some(t.path()), Path::new("/nonexistent"), Path::new(""))
            .unwrap();
        assert_eq!(rt.root(), t.path());
        let err = Runtime::discover_from(Some(&t.path().join("nope")), t.path(), Path::new(""))
            .unwrap_err();
        assert!(matches!(err, Error::EnvNotADir(_)), "{err}");
    }

    #[test]
    fn finds_runtime_in_cwd_then_beside_exe_ancestors() {
        let t = tempfile::tempdir().unwrap();
        let checkout = t.path().join("checkout");
        std::fs::create_dir_all(checkout.join(".runtime")).unwrap();
        std::fs::create_dir_all(checkout.join("target/release")).unwrap();
        let exe = checkout.join("target/release/indexer");
        let elsewhere = t.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let rt = Runtime::discover_from(None, &elsewhere, &exe).unwrap();
        assert_eq!(rt.root(), checkout.join(".runtime"));

        std::fs::create_dir_all(elsewhere.join(".runtime")).unwrap();
        let rt = Runtime::discover_from(None, &elsewhere, &exe).unwrap();
        assert_eq!(rt.root(), elsewhere.join(".runtime"));
    }

    #[test]
    fn nothing_found_is_an_error_with_the_setup_hint() {
        let t = tempfile::tempdir().unwrap();
        let err =
            Runtime::discover_from(None, t.path(), &t.path().join("bin/indexer")).unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }));
        assert_eq!(indexer_notes::Hint::hint(&err).unwrap(), "run tools/setup");
        assert!(err.to_string().contains(".runtime/"), "{err}");
    }

    #[test]
    fn missing_file_names_the_file() {
        let t = tempfile::tempdir().unwrap();
        let rt = Runtime::at(t.path());
        let err = rt.pdfium_library().unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "missing runtime file {}",
                t.path().join("lib/libpdfium.so").display()
            )
        );
        assert_eq!(indexer_notes::Hint::hint(&err).unwrap(), SETUP_HINT);
        let err = rt.model_dir(DEFAULT_MODEL).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("models/all-MiniLM-L6-v2/model.toml"),
            "{err}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_library_fails_to_load_with_its_path() {
        let t = tempfile::tempdir().unwrap();
        let fake = t.path().join("libfake.so");
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let err = Runtime::check_loads(&fake, "x").unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("cannot load {}", fake.display())),
            "{err}"
        );
    }
}
