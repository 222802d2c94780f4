//! The module graph of one crate target: its modules from the root file down (`mod x;` found
//! as `x.rs` or `x/mod.rs`), and an edge from module A to module B when A's code names an item
//! that B defines. A name is followed through re-exports (`pub use`) to the module that defines
//! it, so `crate::Error` re-exported by `lib.rs` from `error.rs` is an edge to `error`, and a
//! re-export itself is no edge: a facade depends on nothing. Inline modules count as part of
//! their file.

use crate::lex::tokens;
use crate::parse::{ParsedModule, Use, parse};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};

/// A module of the crate.
#[derive(Debug)]
struct Module {
    /// Its path from the crate root (empty for the root).
    path: Vec<String>,
    /// The file module it belongs to (itself for a file module).
    file_module: usize,
    file: PathBuf,
    children: HashMap<String, usize>,
    parsed: ParsedModule,
}

/// The modules of one target (a library, binary, example, bench or test) and their references.
#[derive(Debug)]
pub struct CrateGraph {
    modules: Vec<Module>,
}

/// Where module `from` names an item of module `to`: the file and line of one such reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub file: PathBuf,
    pub line: usize,
}

impl CrateGraph {
    /// Reads the target whose root file is `root` (`lib.rs`, `main.rs`, an example's file).
    pub fn read(root: &Path) -> io::Result<CrateGraph> {
        let mut graph = CrateGraph {
            modules: Vec::new(),
        };
        graph.add_file(root, Vec::new(), None, true)?;
        Ok(graph)
    }

    fn add_file(
        &mut self,
        file: &Path,
        path: Vec<String>,
        parent: Option<usize>,
        owns_dir: bool,
    ) -> io::Result<()> {
        let src = std::fs::read_to_string(file)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", file.display())))?;
        let parsed = parse(&tokens(&src));
        // The folder that holds this file's child modules: beside a root or mod.rs, else in a
        // folder named after the file.
        let dir = if owns_dir {
            file.parent().unwrap_or(Path::new(".")).to_path_buf()
        } else {
            file.with_extension("")
        };
        let file_module = self.modules.len();
        let mut ids = Vec::new();
        for pm in parsed {
            let mut full = path.clone();
            full.extend(pm.inline_path.iter().cloned());
            let id = self.modules.len();
            let parent_id = if pm.inline_path.is_empty() {
                parent
            } else {
                let parent_path = &full[..full.len() - 1];
                self.modules.iter().position(|m| m.path == parent_path)
            };
            if let Some(p) = parent_id {
                let name = full.last().cloned().unwrap_or_default();
                self.modules[p].children.insert(name, id);
            }
            self.modules.push(Module {
                path: full,
                file_module,
                file: file.to_path_buf(),
                children: HashMap::new(),
                parsed: pm,
            });
            ids.push(id);
        }
        for id in ids {
            let inline = self.modules[id].parsed.inline_path.clone();
            let mut child_dir = dir.clone();
            child_dir.extend(inline.iter());
            for name in self.modules[id].parsed.declared.clone() {
                let flat = child_dir.join(format!("{name}.rs"));
                let nested = child_dir.join(&name).join("mod.rs");
                let (child_file, owns) = if flat.is_file() {
                    (flat, false)
                } else if nested.is_file() {
                    (nested, true)
                } else {
                    return Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        format!(
                            "{}: module `{name}` is in neither {} nor {}",
                            self.modules[id].file.display(),
                            flat.display(),
                            nested.display()
                        ),
                    ));
                };
                let mut child_path = self.modules[id].path.clone();
                child_path.push(name);
                self.add_file(&child_file, child_path, Some(id), owns)?;
            }
        }
        Ok(())
    }

    /// How many modules (files and inline ones) the target has.
    pub fn module_count(&self) -> usize {
        self.modules.len()
    }

    /// The name of a file module as the report shows it: `crate` or `a::b`.
    fn name(&self, id: usize) -> String {
        let path = &self.modules[id].path;
        if path.is_empty() {
            "crate".to_string()
        } else {
            path.join("::")
        }
    }

    /// A use path made absolute from module `at`: `None` when it leaves the crate.
    fn absolute(&self, at: usize, path: &[String], depth: usize) -> Option<Vec<String>> {
        let first = path.first()?;
        let module = &self.modules[at];
        match first.as_str() {
            "crate" => Some(path[1..].to_vec()),
            "self" => Some([module.path.clone(), path[1..].to_vec()].concat()),
            "super" => {
                let mut base = module.path.clone();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                Some([base, rest.to_vec()].concat())
            }
            _ if module.children.contains_key(first) => {
                Some([module.path.clone(), path.to_vec()].concat())
            }
            _ if depth < 8 => {
                // A name another `use` of this module brought in (`use Kind::*` after
                // `use crate::kind::Kind`).
                let bound = module
                    .parsed
                    .uses
                    .iter()
                    .find(|u| !u.glob && u.name.as_ref() == Some(first) && u.path != path)?;
                let base = self.absolute(at, &bound.path, depth + 1)?;
                Some([base, path[1..].to_vec()].concat())
            }
            _ => None,
        }
    }

    /// The module that defines the item an absolute path names (the module itself for a
    /// module's path).
    fn resolve(&self, path: &[String], depth: usize) -> Option<usize> {
        if depth > 16 {
            return None;
        }
        let mut cur = 0;
        for (i, seg) in path.iter().enumerate() {
            let module = &self.modules[cur];
            if let Some(&child) = module.children.get(seg) {
                cur = child;
                continue;
            }
            if module.parsed.defined.contains(seg) {
                return Some(cur);
            }
            let rest = &path[i + 1..];
            if let Some(u) = module
                .parsed
                .uses
                .iter()
                .find(|u| !u.glob && u.name.as_ref() == Some(seg))
            {
                let base = self.absolute(cur, &u.path, 0)?;
                return self.resolve(&[base, rest.to_vec()].concat(), depth + 1);
            }
            for u in module.parsed.uses.iter().filter(|u| u.glob) {
                let Some(base) = self.absolute(cur, &u.path, 0) else {
                    continue;
                };
                let Some(m) = self.resolve_module(&base) else {
                    continue;
                };
                let target = &self.modules[m];
                let has = target.children.contains_key(seg)
                    || target.parsed.defined.contains(seg)
                    || target
                        .parsed
                        .uses
                        .iter()
                        .any(|u| u.name.as_ref() == Some(seg));
                if has && m != cur {
                    let mut p = target.path.clone();
                    p.push(seg.clone());
                    p.extend(rest.iter().cloned());
                    return self.resolve(&p, depth + 1);
                }
            }
            return Some(cur);
        }
        Some(cur)
    }

    /// The module an absolute path names, if it names one.
    fn resolve_module(&self, path: &[String]) -> Option<usize> {
        let mut cur = 0;
        for seg in path {
            cur = *self.modules[cur].children.get(seg)?;
        }
        Some(cur)
    }

    /// Every edge between two file modules, one (the first) reference each.
    pub fn edges(&self) -> Vec<Edge> {
        let mut seen: BTreeMap<(usize, usize), (PathBuf, usize)> = BTreeMap::new();
        for (id, module) in self.modules.iter().enumerate() {
            let mut add = |target: Option<usize>, line: usize| {
                let Some(t) = target else { return };
                let (from, to) = (module.file_module, self.modules[t].file_module);
                if from != to {
                    seen.entry((from, to))
                        .or_insert((module.file.clone(), line));
                }
            };
            for Use {
                path,
                public,
                line,
                glob,
                ..
            } in &module.parsed.uses
            {
                if *public {
                    continue;
                }
                let target = self.absolute(id, path, 0).and_then(|abs| {
                    if *glob {
                        self.resolve_module(&abs)
                    } else {
                        self.resolve(&abs, 0)
                    }
                });
                add(target, *line);
            }
            for (path, line) in &module.parsed.paths {
                let first = &path[0];
                let named = matches!(first.as_str(), "crate" | "super" | "self")
                    || module.children.contains_key(first);
                if named {
                    add(
                        self.absolute(id, path, 0)
                            .and_then(|abs| self.resolve(&abs, 0)),
                        *line,
                    );
                }
            }
        }
        seen.into_iter()
            .map(|((from, to), (file, line))| Edge {
                from: self.name(from),
                to: self.name(to),
                file,
                line,
            })
            .collect()
    }
}

/// A strongly connected component of more than one module, and one shortest cycle through
/// its first module, as the edges that close it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    /// Every module of the component, sorted.
    pub members: Vec<String>,
    pub path: Vec<Edge>,
}

/// The cycles of a graph given by its edges: one for each strongly connected component of more
/// than one module.
pub fn cycles(edges: &[Edge]) -> Vec<Cycle> {
    let nodes: BTreeSet<&str> = edges
        .iter()
        .flat_map(|e| [e.from.as_str(), e.to.as_str()])
        .collect();
    let index: HashMap<&str, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut adj = vec![Vec::new(); nodes.len()];
    for (k, e) in edges.iter().enumerate() {
        adj[index[e.from.as_str()]].push((index[e.to.as_str()], k));
    }
    let components = strongly_connected(&adj);
    let mut out = Vec::new();
    for comp in components.into_iter().filter(|c| c.len() > 1) {
        let members: BTreeSet<usize> = comp.iter().copied().collect();
        let start = *members.iter().next().expect("non-empty");
        // Breadth-first from `start` inside the component, back to `start`.
        let mut prev: HashMap<usize, (usize, usize)> = HashMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closing = None;
        'search: while let Some(n) = queue.pop_front() {
            for &(m, k) in &adj[n] {
                if !members.contains(&m) {
                    continue;
                }
                if m == start {
                    closing = Some((n, k));
                    break 'search;
                }
                if let std::collections::hash_map::Entry::Vacant(v) = prev.entry(m) {
                    v.insert((n, k));
                    queue.push_back(m);
                }
            }
        }
        let (mut n, k) = closing.expect("a component of two or more has a cycle through each node");
        let mut cycle = vec![edges[k].clone()];
        while n != start {
            let (p, k) = prev[&n];
            cycle.push(edges[k].clone());
            n = p;
        }
        cycle.reverse();
        out.push(Cycle {
            members: members
                .iter()
                .map(|&i| nodes.iter().nth(i).expect("a node").to_string())
                .collect(),
            path: cycle,
        });
    }
    out
}

/// Tarjan's algorithm, iterative.
fn strongly_connected(adj: &[Vec<(usize, usize)>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&(w, _)) = adj[v].get(*pos) {
                *pos += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(comp);
            }
        }
    }
    out
}
