//! This repository itself: every target of every package is read, and none has a module cycle.
//! The same check as `module-cycles` in CI, so `cargo test` fails on a cycle too.

use indexer_arch::check_workspace;
use std::path::Path;

#[test]
fn this_workspace_has_no_module_cycle() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let reports = check_workspace(&workspace).unwrap();
    let roots: Vec<String> = reports
        .iter()
        .map(|r| r.root.display().to_string())
        .collect();
    // The graph really covers the workspace: the binary, the engine and an integration test.
    for expected in ["src/main.rs", "crates/indexer-engine/src/lib.rs"] {
        assert!(
            roots.iter().any(|r| r.ends_with(expected)),
            "{expected} not read; targets: {roots:?}"
        );
    }
    let engine = reports
        .iter()
        .find(|r| r.root.ends_with("crates/indexer-engine/src/lib.rs"))
        .unwrap();
    assert!(engine.modules > 10 && !engine.edges.is_empty());
    let cycles: Vec<String> = reports
        .iter()
        .flat_map(|r| {
            r.cycles
                .iter()
                .map(move |c| format!("{}: {}", r.root.display(), c.members.join(", ")))
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "module cycles (run `cargo run -p indexer-arch --bin module-cycles` for the lines):\n{}",
        cycles.join("\n")
    );
}
