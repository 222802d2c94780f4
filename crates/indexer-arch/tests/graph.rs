//! The module graph on small crates written by the test: a cycle is found however it is
//! written, a layered crate has none, and re-exports lead to the module that defines a name.

use indexer_arch::check_target;
use std::path::Path;

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn cycles_of(files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), files);
    let report = check_target(dir.path(), &dir.path().join("src/lib.rs")).unwrap();
    report.cycles.into_iter().map(|c| c.members).collect()
}

#[test]
fn two_modules_that_use_each_other_are_a_cycle() {
    let cycles = cycles_of(&[
        ("src/lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
        ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "src/b.rs",
            "pub struct B;\npub fn f() -> crate::a::A { todo!() }\n",
        ),
    ]);
    assert_eq!(cycles, vec![vec!["a".to_string(), "b".to_string()]]);
}

#[test]
fn a_cycle_through_three_modules_and_a_folder_is_found() {
    let cycles = cycles_of(&[
        ("src/lib.rs", "mod a;\nmod pdf;\n"),
        (
            "src/a.rs",
            "pub struct A;\nfn g() { super::pdf::tables::t(); }\n",
        ),
        ("src/pdf/mod.rs", "pub mod figures;\npub mod tables;\n"),
        (
            "src/pdf/figures.rs",
            "use crate::a::A;\npub fn f(_: A) {}\n",
        ),
        (
            "src/pdf/tables.rs",
            "use super::figures;\npub fn t() { figures::f(crate::a::A) }\n",
        ),
    ]);
    assert_eq!(
        cycles,
        vec![vec![
            "a".to_string(),
            "pdf::figures".to_string(),
            "pdf::tables".to_string()
        ]]
    );
}

#[test]
fn names_reached_through_re_exports_lead_to_their_module() {
    // `crate::Error` is defined in `error` and re-exported by the root: `search` using it and
    // the root re-exporting `search` is no cycle. `error` naming `search` would be one.
    let layered = cycles_of(&[
        (
            "src/lib.rs",
            "mod error;\nmod search;\npub use error::Error;\npub use search::*;\n",
        ),
        ("src/error.rs", "pub enum Error { A }\n"),
        (
            "src/search.rs",
            "use crate::Error;\npub fn search() -> Result<(), Error> { Ok(()) }\n",
        ),
    ]);
    assert!(layered.is_empty(), "{layered:?}");
    let cyclic = cycles_of(&[
        (
            "src/lib.rs",
            "mod error;\nmod search;\npub use error::Error;\npub use search::*;\n",
        ),
        (
            "src/error.rs",
            "pub enum Error { A }\nfn f() { crate::search(); }\n",
        ),
        (
            "src/search.rs",
            "use crate::Error;\npub fn search() -> Result<(), Error> { Ok(()) }\n",
        ),
    ]);
    assert_eq!(
        cyclic,
        vec![vec!["error".to_string(), "search".to_string()]]
    );
}

#[test]
fn test_code_and_comments_do_not_count() {
    let cycles = cycles_of(&[
        ("src/lib.rs", "mod a;\nmod b;\n"),
        ("src/a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "src/b.rs",
            "/// See [`crate::a::A`].\npub struct B;\n#[cfg(test)]\nmod tests { use crate::a::A; }\n",
        ),
    ]);
    assert!(cycles.is_empty(), "{cycles:?}");
}

#[test]
fn the_cycle_names_the_line_of_each_reference() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a.rs", "\n\nuse crate::b::B;\npub struct A;\n"),
            (
                "src/b.rs",
                "pub struct B;\nfn f() { let _ = crate::a::A; }\n",
            ),
        ],
    );
    let report = check_target(dir.path(), &dir.path().join("src/lib.rs")).unwrap();
    let mut refs: Vec<(String, String, usize)> = report.cycles[0]
        .path
        .iter()
        .map(|e| (e.from.clone(), e.file.display().to_string(), e.line))
        .collect();
    refs.sort();
    assert_eq!(
        refs,
        vec![
            ("a".to_string(), "src/a.rs".to_string(), 3),
            ("b".to_string(), "src/b.rs".to_string(), 2),
        ]
    );
}
