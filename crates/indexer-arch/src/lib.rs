//! The module graph of the workspace's crates, and its cycles. A module cycle inside a crate
//! (`a` names an item of `b` and `b` one of `a`, directly or through others) means neither can
//! be read, tested or moved without the other; the layering rule of ARCHITECTURE.md is that
//! types sit low and orchestration high, so references only go down. `module-cycles` (this
//! crate's binary, run by CI) lists every cycle with the line of each reference that closes it
//! and fails if there is one.
//!
//! The graph is read from the source text (no compiler): `use` items and the paths code names
//! from `crate::`, `super::`, `self::` or a child module, followed through re-exports to the
//! module that defines the item. Code under `#[cfg(test)]` is left out.

pub mod graph;
pub mod lex;
pub mod parse;

use graph::{CrateGraph, Cycle, Edge, cycles};
use std::io;
use std::path::{Path, PathBuf};

/// One target of a package (a library, binary, example, bench or integration test) and the
/// cycles of its module graph.
#[derive(Debug)]
pub struct TargetReport {
    /// The target's root file, relative to the workspace.
    pub root: PathBuf,
    pub modules: usize,
    pub edges: Vec<Edge>,
    pub cycles: Vec<Cycle>,
}

/// Every target root of the package in `dir`: `src/lib.rs`, `src/main.rs`, `src/bin/*`,
/// `examples/*`, `benches/*`, `tests/*` (a file, or a folder's `main.rs`).
pub fn target_roots(dir: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for file in ["src/lib.rs", "src/main.rs"] {
        let p = dir.join(file);
        if p.is_file() {
            roots.push(p);
        }
    }
    for folder in ["src/bin", "examples", "benches", "tests"] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter_map(|p| {
                if p.is_file() && p.extension().is_some_and(|x| x == "rs") {
                    Some(p)
                } else if p.join("main.rs").is_file() {
                    Some(p.join("main.rs"))
                } else {
                    None
                }
            })
            .collect();
        found.sort();
        roots.extend(found);
    }
    roots
}

/// The packages of the workspace at `root`: the root package (when it has `src/`) and every
/// folder of `crates/` with a `Cargo.toml`.
pub fn packages(root: &Path) -> io::Result<Vec<PathBuf>> {
    let mut dirs = Vec::new();
    if root.join("src").is_dir() {
        dirs.push(root.to_path_buf());
    }
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    crates.sort();
    dirs.extend(crates);
    Ok(dirs)
}

/// The report of one target.
pub fn check_target(workspace: &Path, root: &Path) -> io::Result<TargetReport> {
    let graph = CrateGraph::read(root)?;
    let edges = graph.edges();
    let cycles = cycles(&edges);
    let relative = |p: &Path| p.strip_prefix(workspace).unwrap_or(p).to_path_buf();
    let fix = |e: Edge| Edge {
        file: relative(&e.file),
        ..e
    };
    Ok(TargetReport {
        root: relative(root),
        modules: graph.module_count(),
        edges: edges.into_iter().map(fix).collect(),
        cycles: cycles
            .into_iter()
            .map(|c| Cycle {
                members: c.members,
                path: c.path.into_iter().map(fix).collect(),
            })
            .collect(),
    })
}

/// The reports of every target of every package of the workspace.
pub fn check_workspace(workspace: &Path) -> io::Result<Vec<TargetReport>> {
    let mut out = Vec::new();
    for package in packages(workspace)? {
        for root in target_roots(&package) {
            out.push(check_target(workspace, &root)?);
        }
    }
    Ok(out)
}
