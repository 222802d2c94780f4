//! The example commands of the README and of `docs/`: every `indexer ...` line of a `sh`
//! block is one the binary accepts (its arguments parsed, `--help` appended so nothing needs
//! an index, a model server or Milvus), so an example cannot name a flag, a subcommand or a
//! value that is gone.

use std::path::{Path, PathBuf};

/// A command line split into words as a shell does for the quoting examples use.
fn words(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quote, mut any) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => (quote, any) = (Some(c), true),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            _ => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The `indexer` command lines of the `sh` blocks of a Markdown text: lines continued with
/// `\` joined, comments cut, `target/release/indexer` read as `indexer`.
fn example_commands(md: &str) -> Vec<String> {
    let (mut out, mut in_sh, mut pending) = (Vec::new(), false, String::new());
    for line in md.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            in_sh = !in_sh && t == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let code = match t.find(" #") {
            Some(i) => &t[..i],
            None => t,
        };
        pending.push_str(code.trim_end_matches('\\'));
        pending.push(' ');
        if code.ends_with('\\') {
            continue;
        }
        let cmd = std::mem::take(&mut pending);
        let cmd = cmd.trim().trim_start_matches("target/release/");
        // Alternatives (`docs|library`) and placeholders in capitals are for a reader.
        if cmd.starts_with("indexer ") && !cmd.contains('|') && !cmd.contains("...") {
            out.push(cmd.to_string());
        }
    }
    out
}

#[test]
fn readme_and_docs_examples_are_commands_the_binary_takes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for f in &files {
        let md = std::fs::read_to_string(f).unwrap();
        for cmd in example_commands(&md) {
            let mut args = words(&cmd);
            args.remove(0);
            args.push("--help".into());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let o = super::indexer(dir.path(), &args);
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}: `{cmd}` is not a command indexer takes:\n{}",
                f.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} example commands found");
}

#[test]
fn the_splitter_and_the_reader_of_blocks() {
    assert_eq!(
        words(r#"indexer query "a b" --doc 'c d' x"#),
        ["indexer", "query", "a b", "--doc", "c d", "x"]
    );
    let md = "text\n```sh\nindexer ingest a   # comment\nindexer eval --q x \\\n  --budgets 3\nls\n```\n```python\nindexer.Index()\n```\n";
    assert_eq!(
        example_commands(md),
        ["indexer ingest a", "indexer eval --q x  --budgets 3"]
    );
}
