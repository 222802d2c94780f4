//! Every input kept for the fuzz targets, run in the normal suite: `regressions/TARGET/` holds
//! the inputs fuzzing found a failure with (fixed since), `seeds/TARGET/` the seed corpus that
//! `tools/fuzz` starts from. The `pdf` target parses through this crate's `pdf-worker`.

use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for kind in ["regressions", "seeds"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = format!("{kind}/{target}/{}", e.file_name().to_string_lossy());
            out.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn run(target: &str, f: impl Fn(&[u8])) {
    let all = inputs(target);
    assert!(!all.is_empty(), "no seeds or regressions for {target}");
    for (name, data) in all {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&data)));
        assert!(r.is_ok(), "{name} fails the {target} target again");
    }
}

#[test]
fn markup_inputs() {
    run("markup", indexer_fuzz::markup);
}

#[test]
fn query_inputs() {
    run("query", indexer_fuzz::query);
}

#[test]
fn server_inputs() {
    run("server", indexer_fuzz::server);
}

#[test]
fn mcp_inputs() {
    run("mcp", indexer_fuzz::mcp);
}

#[test]
fn store_inputs() {
    run("store", indexer_fuzz::store);
}

#[test]
fn pdf_inputs() {
    let worker = Path::new(env!("CARGO_BIN_EXE_pdf-worker"));
    run("pdf", |d| indexer_fuzz::pdf_with(worker, d));
}

#[test]
fn every_target_has_inputs() {
    for (name, _) in indexer_fuzz::TARGETS {
        assert!(!inputs(name).is_empty(), "{name}");
    }
}

/// The query seeds reach every selector (the fourth byte) and the pages rule (a question that
/// names a page of the document its second line filters to), so fuzzing starts from every
/// path of a search.
#[test]
fn query_seeds_reach_every_selector_and_named_pages() {
    let seeds: Vec<Vec<u8>> = inputs("query")
        .into_iter()
        .filter(|(name, _)| name.starts_with("seeds/"))
        .map(|(_, d)| d)
        .collect();
    let reached: std::collections::HashSet<_> = seeds
        .iter()
        .filter(|d| d.len() > 4 && d[3] & 0x80 == 0)
        .map(|d| indexer_fuzz::selector_of(d[3]))
        .collect();
    for kind in indexer_engine::SelectorKind::ALL {
        assert!(reached.contains(&kind), "no query seed selects {kind}");
    }
    let named = seeds
        .iter()
        .filter(|d| d.len() > 4)
        .filter(|d| {
            let text = String::from_utf8_lossy(&d[4..]).to_string();
            let mut lines = text.lines();
            let (q, doc) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
            !doc.is_empty() && !indexer_engine::rewrite::pages_named_in(q, doc).is_empty()
        })
        .count();
    assert!(named >= 5, "{named} query seeds name a page");
    assert!(
        seeds.iter().any(|d| d.len() > 4 && d[3] & 0x80 != 0),
        "no seed gives a selector with options"
    );
}

/// The MCP seeds reach every tool, the resource read and a raw line (the first byte), and a
/// search seed gives every search argument, so fuzzing starts from each path of the server.
#[test]
fn mcp_seeds_reach_every_tool_and_argument() {
    let seeds: Vec<Vec<u8>> = inputs("mcp")
        .into_iter()
        .filter(|(name, _)| name.starts_with("seeds/"))
        .map(|(_, d)| d)
        .collect();
    let reached: std::collections::HashSet<u8> = seeds
        .iter()
        .filter_map(|d| d.first())
        .map(|b| b % 6)
        .collect();
    assert_eq!(reached.len(), 6, "{reached:?}");
    let args: std::collections::HashSet<String> = seeds
        .iter()
        .filter(|d| d.first() == Some(&0))
        .filter_map(|d| serde_json::from_slice::<serde_json::Value>(&d[1..]).ok())
        .filter_map(|v| v.as_object().map(|m| m.keys().cloned().collect::<Vec<_>>()))
        .flatten()
        .collect();
    for key in [
        "query", "budget", "selector", "docs", "kinds", "pages", "rewrite", "ranking", "unit",
    ] {
        assert!(args.contains(key), "no mcp seed gives {key}");
    }
}
