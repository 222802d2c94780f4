//! `docs/http-api.md` against the code: every route of the router, every parameter of a
//! search and every error code the server gives are in it, and every code it lists is one the
//! code gives, so the reference cannot drift from the server.

use std::collections::BTreeSet;

fn read(rel: &str) -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    std::fs::read_to_string(format!("{root}{rel}")).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The first string literal after each `needle` in `src`, when it comes before the call's
/// first `)`: the code of `bad_request("code", ..)`, `ApiError::new(status, "code", ..)`.
fn codes_after(src: &str, needle: &str, out: &mut BTreeSet<String>) {
    for (at, _) in src.match_indices(needle) {
        let rest = &src[at + needle.len()..];
        let (Some(q), close) = (rest.find('"'), rest.find(')').unwrap_or(usize::MAX)) else {
            continue;
        };
        if q > close {
            continue;
        }
        let lit = &rest[q + 1..];
        let code = &lit[..lit.find('"').unwrap()];
        if !code.is_empty() && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            out.insert(code.to_string());
        }
    }
}

/// The backquoted words of a Markdown text.
fn quoted(md: &str) -> BTreeSet<String> {
    md.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_route_parameter_and_error_code_is_in_the_reference() {
    let doc = read("docs/http-api.md");
    let words = quoted(&doc);

    // Routes: `.route("/path", get(..).post(..))` in the router.
    let app = read("crates/indexer-server/src/app.rs");
    let mut routes = 0;
    for line in app
        .lines()
        .filter(|l| l.trim_start().starts_with(".route(\""))
    {
        let path = line.split('"').nth(1).unwrap().replace("{*", "{");
        for method in ["get", "post"] {
            if line.contains(&format!("{method}(")) {
                let want = format!("{} {path}", method.to_uppercase());
                assert!(words.contains(&want), "docs/http-api.md has no `{want}`");
                routes += 1;
            }
        }
    }
    assert!(routes >= 9, "only {routes} routes read from app.rs");

    // Parameters: the keys a query string may have.
    let request = read("crates/indexer-server/src/request.rs");
    let from_pairs = &request[request.find("fn from_pairs").expect("from_pairs")..];
    let body = &from_pairs[..from_pairs.find("_ =>").unwrap()];
    let mut params = 0;
    for key in body.split('"').skip(1).step_by(2) {
        assert!(
            words.contains(key),
            "docs/http-api.md does not list the parameter `{key}`"
        );
        params += 1;
    }
    assert!(
        params >= 14,
        "only {params} parameters read from request.rs"
    );

    // Error codes: those the server's code gives, those of the engine's selectors and of the
    // model server's errors.
    let errors = &doc[doc.find("## Errors").expect("an Errors section")..];
    let listed = quoted(errors);
    let mut given = BTreeSet::new();
    for f in [
        "app.rs",
        "ask.rs",
        "error.rs",
        "index.rs",
        "rate.rs",
        "request.rs",
        "search.rs",
        "state.rs",
    ] {
        let src = read(&format!("crates/indexer-server/src/{f}"));
        for needle in ["bad_request(", "not_found(", "ApiError::new("] {
            codes_after(&src, needle, &mut given);
        }
    }
    let engine = read("crates/indexer-engine/src/search.rs");
    codes_after(&engine, "Error::UnknownSelector(_) => (", &mut given);
    let llm = read("crates/indexer-llm/src/error.rs");
    for line in llm.lines().filter(|l| l.contains("=> \"llm_")) {
        given.insert(line.split('"').nth(1).unwrap().to_string());
    }
    given.remove("bad_request_"); // not a code: a prefix some messages share
    assert!(
        given.len() >= 25,
        "only {} codes read: {given:?}",
        given.len()
    );
    for code in &given {
        assert!(
            listed.contains(code),
            "the server gives `{code}`, which docs/http-api.md's Errors do not list"
        );
    }
    // And every code listed is one some source gives, as a string.
    let mut all_src = String::new();
    for dir in [
        "crates/indexer-server/src",
        "crates/indexer-engine/src",
        "crates/indexer-llm/src",
        "crates/indexer-rerank/src",
    ] {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
        let mut stack = vec![std::path::PathBuf::from(format!("{root}{dir}"))];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    all_src.push_str(&std::fs::read_to_string(&p).unwrap());
                }
            }
        }
    }
    for code in listed
        .iter()
        .filter(|c| c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') && c.contains('_'))
    {
        assert!(
            all_src.contains(&format!("\"{code}\"")),
            "docs/http-api.md lists `{code}`, which no code gives"
        );
    }
}
