//! The MCP server in process, message by message, over a real index (two Markdown files and a
//! hand-made paged document with a crop) and the real encoder. The `mcp` Python client drives
//! the binary in `tests/test_client.py` (from tools/test).

use indexer_engine::{
    Encoder, Engine, IngestConfig, Llm, LlmConfig, Note, NoteKind, ParsedDocument,
};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::{Arc, OnceLock};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot-a-real-image-but-served-as-is";

struct Fixture {
    _dir: tempfile::TempDir,
    engine: Engine,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let rt = indexer_engine::Runtime::discover_from(None, &root, Path::new(""))
            .expect("the runtime is missing: run tools/setup");
        let encoder = Arc::new(
            indexer_engine::load_encoder(&rt, indexer_engine::DEFAULT_MODEL, 1)
                .expect("the encoder cannot be loaded: run tools/setup"),
        );
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(docs.join("guide")).unwrap();
        std::fs::write(
            docs.join("guide/mosaic.md"),
            "# Mosaic plots\n\nA mosaic plot shows the joint distribution of two categorical \
             variables: the area of each tile is proportional to the count of its cell.\n",
        )
        .unwrap();
        std::fs::write(
            docs.join("hnsw.md"),
            "# Graph search\n\nHierarchical navigable small world graphs answer approximate \
             nearest neighbour queries in logarithmic time.\n",
        )
        .unwrap();
        let index = dir.path().join("index");
        let cfg = IngestConfig::new(&index, &docs, std::process::Command::new("false"));
        indexer_engine::ingest(
            std::slice::from_ref(&docs),
            &cfg,
            encoder.as_ref(),
            &mut |_| {},
        )
        .expect("ingest of the Markdown files");

        // A paged document with a figure crop, as a PDF ingest writes it.
        let text = "Figure 2: recall of the CDS selector against the candidate count.";
        let mut note = Note::new("paper.pdf#f0", "paper.pdf", NoteKind::Figure, text);
        note.page = Some(3);
        note.image = Some("fig2.png".into());
        note.caption = Some("Figure 2: recall of the CDS selector".into());
        let vectors = encoder.embed_documents(&[text]).unwrap().data.clone();
        let mut w =
            indexer_index::Writer::open_or_create(&index, encoder.model_id(), encoder.dim())
                .unwrap();
        w.upsert(
            ParsedDocument {
                doc: "paper.pdf".into(),
                hash: "paper".into(),
                title: Some("Paper".into()),
                pages: 5,
                pages_without_text: vec![],
                ocr_pages: vec![],
                unreadable_pages: vec![],
                notes: vec![note],
                warnings: vec![],
            },
            vectors,
        )
        .unwrap();
        w.commit().unwrap();
        drop(w);
        let engine = Engine::with_encoder(&index, encoder).unwrap();
        let crops = engine.view().crop_dir();
        std::fs::create_dir_all(&crops).unwrap();
        std::fs::write(crops.join("fig2.png"), PNG).unwrap();
        Fixture { _dir: dir, engine }
    })
}

/// The lines the server writes for these input lines, as JSON.
fn session_with(llm: Option<&Llm>, lines: &[Value]) -> Vec<Value> {
    let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
    raw_session(llm, &input)
}

fn raw_session(llm: Option<&Llm>, input: &str) -> Vec<Value> {
    let mut out = Vec::new();
    indexer_mcp::run(&fixture().engine, llm, input.as_bytes(), &mut out).unwrap();
    String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
}

/// The result of one request after `initialize` at the newest revision.
fn call(method: &str, params: Value) -> Value {
    let out = session_with(
        None,
        &[
            initialize("2025-11-25"),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        ],
    );
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(out[1]["id"], 1);
    out[1].clone()
}

fn tool(name: &str, arguments: Value) -> Value {
    let r = call("tools/call", json!({"name": name, "arguments": arguments}));
    r["result"].clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap()
}

#[test]
fn initialize_negotiates_the_revision() {
    let out = session_with(
        None,
        &[
            json!({"jsonrpc": "2.0", "id": "probe", "method": "server/discover", "params": {}}),
            initialize("2025-06-18"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        ],
    );
    // A client that probes for the stateless revision is told to use the handshake.
    assert_eq!(out[0]["id"], "probe");
    assert_eq!(out[0]["error"]["code"], -32601);
    let r = &out[1]["result"];
    assert_eq!(r["protocolVersion"], "2025-06-18");
    assert_eq!(r["serverInfo"]["name"], "indexer");
    assert!(r["capabilities"]["tools"].is_object());
    assert!(r["capabilities"]["resources"].is_object());
    assert!(r["instructions"].as_str().unwrap().contains("3 documents"));
    assert_eq!(out[2]["result"], json!({}));
    // A revision this server does not know gets its newest.
    let out = session_with(None, &[initialize("2099-01-01")]);
    assert_eq!(
        out[0]["result"]["protocolVersion"],
        indexer_mcp::PROTOCOL_VERSIONS[0]
    );
}

#[test]
fn tools_are_listed_with_schemas() {
    let r = call("tools/list", json!({}));
    let tools = r["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["search", "ask", "show", "list_documents"]);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert_eq!(t["outputSchema"]["type"], "object", "{t}");
        assert_eq!(t["annotations"]["readOnlyHint"], true);
    }
    let search = &tools[0]["inputSchema"]["properties"];
    for arg in [
        "query", "budget", "selector", "docs", "kinds", "pages", "unit",
    ] {
        assert!(search[arg].is_object(), "{arg}");
    }
    assert!(
        search["selector"]["examples"]
            .as_array()
            .unwrap()
            .contains(&json!("cds"))
    );
    assert!(
        search["selector"].get("enum").is_none(),
        "options would break an enum"
    );
}

#[test]
fn search_answers_text_structure_and_crop_links() {
    let r = tool(
        "search",
        json!({"query": "recall of the CDS selector", "budget": 2}),
    );
    assert_eq!(r["isError"], false);
    let hits = r["structuredContent"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    let fig = &hits[0];
    assert_eq!(fig["note_id"], "paper.pdf#f0");
    assert_eq!(fig["page"], 3);
    assert_eq!(fig["kind"], "figure");
    assert_eq!(fig["image_uri"], "indexer://crop/paper.pdf%23f0");
    assert!(hits[1].get("image_uri").is_none());
    assert!(text(&r).contains("[1] paper.pdf p.3 (figure) - note paper.pdf#f0"));
    assert!(text(&r).contains("Image: indexer://crop/paper.pdf%23f0"));
    let link = &r["content"][1];
    assert_eq!(link["type"], "resource_link");
    assert_eq!(link["uri"], "indexer://crop/paper.pdf%23f0");

    // Filters and selectors are the engine's.
    let r = tool(
        "search",
        json!({"query": "tiles", "docs": ["mosaic.md"], "kinds": "text", "selector": "cds:cap=2"}),
    );
    let hits = r["structuredContent"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(
        hits.iter().all(|h| h["doc"] == "guide/mosaic.md"),
        "{hits:?}"
    );
    let r = tool("search", json!({"query": "recall", "pages": [3, 3]}));
    let hits = r["structuredContent"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0]["page"], 3);

    // Pages and documents.
    let r = tool(
        "search",
        json!({"query": "nearest neighbour graphs", "unit": "document", "budget": 2}),
    );
    let groups = r["structuredContent"]["pages"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["doc"], "hnsw.md");
    assert!(!groups[0]["hits"].as_array().unwrap().is_empty());
    assert!(text(&r).starts_with("The best documents for"));

    // A query that names a document by its title searches that document alone, and says so.
    let r = tool("search", json!({"query": "graph search", "budget": 3}));
    let s = &r["structuredContent"];
    assert_eq!(s["routing"]["by"], "named", "{s}");
    assert_eq!(s["routing"]["documents"][0]["doc"], "hnsw.md", "{s}");
    let hits = s["hits"].as_array().unwrap();
    assert!(
        !hits.is_empty() && hits.iter().all(|h| h["doc"] == "hnsw.md"),
        "{hits:?}"
    );
}

#[test]
fn search_says_what_it_rewrote_and_rewrite_false_searches_as_typed() {
    let q = "What does page 3 of paper.pdf show? Answer in percent.";
    let r = tool(
        "search",
        json!({"query": q, "docs": ["paper.pdf"], "rewrite": "all"}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let mut rewrite = r["structuredContent"]["rewrite"].clone();
    let reasons = rewrite.as_object_mut().unwrap().remove("reasons").unwrap();
    assert_eq!(reasons[0]["rule"], "instructions", "{r}");
    assert_eq!(reasons[1]["rule"], "pages", "{r}");
    assert!(text(&r).contains("Rewritten (pages): "), "{}", text(&r));
    assert_eq!(
        rewrite,
        json!({
            "searched": "What does page 3 of paper.pdf show?",
            "dropped": "Answer in percent.",
            "named_pages": [{"doc": "paper.pdf", "page": 3, "phrase": "page 3"}],
        }),
        "{r}"
    );
    assert!(
        text(&r).contains("Searched as \"What does page 3 of paper.pdf show?\" (left out: \"Answer in percent.\")."),
        "{}",
        text(&r)
    );
    assert!(
        text(&r).contains("Pages the query names, put first: paper.pdf p.3 (\"page 3\")."),
        "{}",
        text(&r)
    );
    let r = tool(
        "search",
        json!({"query": q, "docs": ["paper.pdf"], "rewrite": false}),
    );
    assert_eq!(r["isError"], false, "{r}");
    assert!(r["structuredContent"].get("rewrite").is_none(), "{r}");
    assert!(!text(&r).contains("Searched as"), "{}", text(&r));
    // Words added to the search are said as well, when nothing was left out.
    let r = tool(
        "search",
        json!({"query": "What was the FY2019 net revenue?", "docs": ["paper.pdf"]}),
    );
    assert_eq!(r["isError"], false, "{r}");
    let rewrite = &r["structuredContent"]["rewrite"];
    let added = "2019";
    assert_eq!(rewrite["related"], json!(["2019"]), "{r}");
    assert!(rewrite.get("dropped").is_none(), "{r}");
    assert!(
        text(&r).contains(&format!(
            "Searched as \"What was the FY2019 net revenue? {added}\" (added: \"{added}\")."
        )),
        "{}",
        text(&r)
    );
    // By default, and with the rules named one by one, the instructions stay in the search.
    for rewrite in [json!(true), json!(["pages", "terms"]), json!("pages")] {
        let r = tool(
            "search",
            json!({"query": q, "docs": ["paper.pdf"], "rewrite": rewrite}),
        );
        assert_eq!(r["isError"], false, "{r}");
        let rw = &r["structuredContent"]["rewrite"];
        assert!(
            rw.get("dropped").is_none() && rw["named_pages"][0]["page"] == 3,
            "{r}"
        );
    }
    for bad in [json!("no"), json!(["pages", "spelling"]), json!(3)] {
        let r = tool("search", json!({"query": "tiles", "rewrite": bad}));
        assert_eq!(r["isError"], true);
        assert!(text(&r).starts_with("error bad_rewrite"), "{}", text(&r));
    }
}

#[test]
fn tool_failures_carry_the_apis_code_and_hint() {
    let cases = [
        (
            json!({"query": "x", "docs": ["mosiac.md"]}),
            "unknown_document",
        ),
        (json!({"query": "  "}), "empty_query"),
        (json!({}), "empty_query"),
        (json!({"query": "x", "pages": "9-3"}), "bad_pages"),
        (json!({"query": "x", "pages": {"from": 3}}), "bad_pages"),
        (json!({"query": "x", "budget": 0}), "bad_number"),
        (json!({"query": "x", "budget": "many"}), "bad_number"),
        (
            json!({"query": "x", "selector": "best"}),
            "unknown_selector",
        ),
        (
            json!({"query": "x", "selector": "cds:colour=red"}),
            "bad_selector_option",
        ),
        (json!({"query": "x", "kinds": ["chart"]}), "unknown_kind"),
        (json!({"query": "x", "unit": "chapter"}), "unknown_unit"),
        (json!({"query": "x", "limit": 3}), "bad_json"),
        (json!({"query": 3}), "bad_json"),
    ];
    for (args, code) in cases {
        let r = tool("search", args.clone());
        assert_eq!(r["isError"], true, "{args}: {r}");
        assert_eq!(r["structuredContent"]["error"]["code"], code, "{args}: {r}");
        assert!(
            text(&r).starts_with(&format!("error {code}: ")),
            "{args}: {r}"
        );
    }
    let r = tool("search", json!({"query": "x", "docs": ["mosiac.md"]}));
    assert_eq!(
        r["structuredContent"]["error"]["hint"],
        "did you mean guide/mosaic.md?"
    );
    assert!(text(&r).ends_with("hint: did you mean guide/mosaic.md?"));

    // An unknown tool is the protocol's error, not a tool's.
    let r = call(
        "tools/call",
        json!({"name": "delete_everything", "arguments": {}}),
    );
    assert_eq!(r["error"]["code"], -32602);
}

#[test]
fn show_and_list_documents() {
    let r = tool("show", json!({"note_id": "paper.pdf#f0"}));
    assert_eq!(r["isError"], false);
    let n = &r["structuredContent"];
    assert_eq!(n["doc"], "paper.pdf");
    assert_eq!(n["caption"], "Figure 2: recall of the CDS selector");
    assert_eq!(n["image_uri"], "indexer://crop/paper.pdf%23f0");
    assert!(text(&r).starts_with("Note paper.pdf#f0: paper.pdf p.3 (figure)"));
    let r = tool("show", json!({"note_id": "paper.pdf#f9"}));
    assert_eq!(r["isError"], true);
    assert_eq!(r["structuredContent"]["error"]["code"], "note_not_found");
    assert_eq!(r["structuredContent"]["error"]["type"], "not_found_error");

    let r = tool("list_documents", json!({}));
    let docs: Vec<&str> = r["structuredContent"]["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc"].as_str().unwrap())
        .collect();
    assert_eq!(docs, ["guide/mosaic.md", "hnsw.md", "paper.pdf"]);
    assert!(text(&r).contains("- paper.pdf \"Paper\" (5 pages, 1 notes)"));
}

#[test]
fn ask_needs_a_model_server_and_says_which_failure() {
    let r = tool("ask", json!({"query": "What does a mosaic plot show?"}));
    assert_eq!(r["isError"], true);
    assert_eq!(r["structuredContent"]["error"]["code"], "ask_disabled");
    assert!(text(&r).contains("hint: set the model server"), "{r}");
    // A model server that is not there (the discard port, closed).
    let llm = Llm::new(LlmConfig::new("http://127.0.0.1:9/v1")).unwrap();
    let out = session_with(
        Some(&llm),
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "ask", "arguments": {"query": "What does a mosaic plot show?"}}})],
    );
    let r = &out[0]["result"];
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"]["error"]["code"], "llm_unreachable",
        "{r}"
    );
    assert_eq!(r["structuredContent"]["error"]["type"], "upstream_error");
}

#[test]
fn crops_are_resources_read_from_the_crop_folder_only() {
    let r = call("resources/templates/list", json!({}));
    assert_eq!(
        r["result"]["resourceTemplates"][0]["uriTemplate"],
        "indexer://crop/{note_id}"
    );
    let r = call("resources/list", json!({}));
    let res = r["result"]["resources"].as_array().unwrap();
    assert_eq!(res.len(), 1);
    assert_eq!(res[0]["uri"], "indexer://crop/paper.pdf%23f0");
    assert_eq!(res[0]["mimeType"], "image/png");
    assert!(r["result"].get("nextCursor").is_none());

    let r = call(
        "resources/read",
        json!({"uri": "indexer://crop/paper.pdf%23f0"}),
    );
    let c = &r["result"]["contents"][0];
    assert_eq!(c["mimeType"], "image/png");
    assert_eq!(
        c["blob"],
        "iVBORw0KGgpub3QtYS1yZWFsLWltYWdlLWJ1dC1zZXJ2ZWQtYXMtaXM="
    );

    for (uri, code) in [
        ("indexer://crop/paper.pdf%23f9", "note_not_found"),
        ("indexer://crop/guide%2Fmosaic.md%23t0", "image_not_found"),
        ("indexer://crop/%zz", "route_not_found"),
        ("file:///etc/passwd", "route_not_found"),
    ] {
        let r = call("resources/read", json!({"uri": uri}));
        assert_eq!(r["error"]["code"], -32602, "{uri}: {r}");
        assert_eq!(r["error"]["data"]["code"], code, "{uri}: {r}");
        assert_eq!(r["error"]["data"]["uri"], uri);
    }
}

#[test]
fn malformed_messages_are_json_rpc_errors() {
    let out = raw_session(
        None,
        "not json\n\
         {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}\n\
         {\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}\n\
         {\"jsonrpc\":\"2.0\",\"id\":3}\n\
         {\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}\n\
         {\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":[1]}\n\
         {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n\
         [{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]\n\
         \n\
         42\n",
    );
    let codes: Vec<(Value, Value)> = out
        .iter()
        .map(|m| {
            if let Some(a) = m.as_array() {
                (json!("batch"), json!(a.len()))
            } else {
                (m["id"].clone(), m["error"]["code"].clone())
            }
        })
        .collect();
    assert_eq!(
        codes,
        [
            (Value::Null, json!(-32700)),
            (json!(1), json!(-32601)),
            (json!(2), json!(-32600)),
            (json!(3), json!(-32600)),
            (Value::Null, json!(-32600)),
            (json!(4), json!(-32602)),
            // The response (id 5) is dropped; the batch has one answer.
            (json!("batch"), json!(1)),
            (Value::Null, json!(-32600)),
        ]
    );
}

#[test]
fn older_revisions_get_no_structured_output() {
    let out = session_with(
        None,
        &[
            initialize("2024-11-05"),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "search", "arguments": {"query": "recall of the CDS selector"}}}),
        ],
    );
    assert_eq!(out[0]["result"]["protocolVersion"], "2024-11-05");
    assert!(out[1]["result"]["tools"][0].get("outputSchema").is_none());
    let r = &out[2]["result"];
    assert!(r.get("structuredContent").is_none());
    assert_eq!(
        r["content"].as_array().unwrap().len(),
        1,
        "no resource links: {r}"
    );
}
