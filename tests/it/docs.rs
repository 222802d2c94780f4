//! The example commands of the README and of `docs/`: every `indexer ...` line of a `sh`
//! block is one the binary accepts (its arguments parsed, `--help` appended so nothing needs
//! an index, a model server or Milvus), so an example cannot name a flag, a subcommand or a
//! value that is gone. The README's examples that need no model server, Milvus or a folder of
//! the reader's own also run, in order, over the README's `./corpus` (two real PDFs), and each
//! must succeed.

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

/// Whether an example needs what a test does not have: a model server (`ask`), a port held
/// open (`serve`), Milvus, gold questions (`eval`) or the reader's own folders (`~`).
fn needs_more_than_a_corpus(args: &[String]) -> bool {
    args.iter()
        .any(|a| a.starts_with("milvus://") || a.starts_with('~') || a.starts_with("--index"))
        || args
            .iter()
            .find(|a| !a.starts_with('-'))
            .is_some_and(|cmd| ["ask", "serve", "eval", "mcp"].contains(&cmd.as_str()))
}

#[test]
fn readme_examples_run_over_its_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let md = std::fs::read_to_string(root.join("README.md")).unwrap();
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::create_dir_all(dir.join("corpus/vcd")).unwrap();
    std::fs::copy(
        super::corpus("lme4-lmer.pdf"),
        dir.join("corpus/lme4-lmer.pdf"),
    )
    .unwrap();
    std::fs::copy(
        super::corpus("vcd-strucplot.pdf"),
        dir.join("corpus/vcd/strucplot.pdf"),
    )
    .unwrap();
    let mut ran = Vec::new();
    for cmd in example_commands(&md) {
        let mut args = words(&cmd);
        args.remove(0);
        if needs_more_than_a_corpus(&args) {
            continue;
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = super::indexer(dir, &argv);
        assert_eq!(
            o.status.code(),
            Some(0),
            "README: `{cmd}` fails:\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !(o.stdout.is_empty() && o.stderr.is_empty()),
            "README: `{cmd}` prints nothing"
        );
        if args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json")
        {
            let v = super::json(&o);
            assert!(
                v["hits"].as_array().is_some_and(|h| !h.is_empty()),
                "`{cmd}`: {v}"
            );
        }
        ran.push(args[0].clone());
    }
    // The quick look of the first screen and the Query section: ingest, queries, show.
    for cmd in ["ingest", "query", "show"] {
        assert!(
            ran.iter().any(|r| r == cmd),
            "no README example of {cmd} ran: {ran:?}"
        );
    }
    assert!(ran.len() >= 5, "{ran:?}");
}
