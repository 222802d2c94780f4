//! The router in process over a real index (Markdown files and one hand-made paged document
//! with a crop), with the real encoder.

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode, header};
use indexer_embed::{Encoder, OnnxEncoder};
use indexer_engine::{Engine, IngestConfig};
use indexer_notes::{Note, NoteKind, ParsedDocument};
use indexer_server::{ServerConfig, router};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use tower::ServiceExt;

struct Fixture {
    _dir: tempfile::TempDir,
    docs: PathBuf,
    engine: Arc<Engine>,
}

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot-a-real-image-but-served-as-is";

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let rt = indexer_runtime::Runtime::discover_from(None, &root, Path::new(""))
            .expect("the runtime is missing: run tools/setup");
        let encoder = Arc::new(
            OnnxEncoder::from_runtime(&rt, indexer_runtime::DEFAULT_MODEL)
                .expect("the encoder cannot be loaded: run tools/setup"),
        );
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("docs");
        std::fs::create_dir_all(docs.join("guide")).unwrap();
        std::fs::write(
            docs.join("guide/mosaic.md"),
            "# Mosaic plots\n\nA mosaic plot shows the joint distribution of two categorical \
             variables: the area of each tile is proportional to the count of its cell.\n\n\
             ## Reading <tiles>\n\nWide columns are frequent categories & tall tiles are \
             frequent values within a column.\n",
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
        let summary = indexer_engine::ingest(
            std::slice::from_ref(&docs),
            &cfg,
            encoder.as_ref(),
            &mut |_| {},
        )
        .expect("ingest of the Markdown files");
        assert_eq!(summary.added.len(), 2, "{summary:?}");

        // A paged document with a figure crop, as a PDF ingest would write it.
        let doc = "paper.pdf".to_string();
        let text = "Figure 2: recall of the CDS selector against the candidate count.";
        let note = Note {
            image: Some("fig2.png".into()),
            page: Some(3),
            caption: Some("Figure 2: recall of the CDS selector".into()),
            ..serde_json::from_value::<Note>(serde_json::json!({
                "id": indexer_notes::note_id(&doc, NoteKind::Figure, 0),
                "doc": doc, "page": 3, "kind": "figure", "text": text,
            }))
            .unwrap()
        };
        let vectors = encoder.embed_documents(&[text]).unwrap().data.clone();
        let mut w =
            indexer_index::Writer::open_or_create(&index, encoder.model_id(), encoder.dim())
                .unwrap();
        w.upsert(
            ParsedDocument {
                doc: doc.clone(),
                hash: indexer_notes::content_hash(b"paper"),
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
        let engine = Arc::new(Engine::with_encoder(&index, encoder).unwrap());
        let crops = engine.view().crop_dir();
        std::fs::create_dir_all(&crops).unwrap();
        std::fs::write(crops.join("fig2.png"), PNG).unwrap();
        std::fs::write(dir.path().join("outside.png"), PNG).unwrap();
        Fixture {
            _dir: dir,
            docs,
            engine,
        }
    })
}

fn cfg() -> ServerConfig {
    ServerConfig {
        docs_root: Some(fixture().docs.clone()),
        cors_origins: vec!["http://docs.example:8000".into()],
        ..ServerConfig::default()
    }
}

async fn call(req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let app = router(fixture().engine.clone(), cfg());
    let r = app.oneshot(req).await.unwrap();
    let status = r.status();
    let headers = r.headers().clone();
    let body = to_bytes(r.into_body(), 1 << 24).await.unwrap().to_vec();
    (status, headers, body)
}

async fn get(uri: &str) -> (StatusCode, Value) {
    let (s, _, b) = call(Request::get(uri).body(Body::empty()).unwrap()).await;
    (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
}

async fn post(body: String) -> (StatusCode, Value) {
    let req = Request::post("/search")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap();
    let (s, _, b) = call(req).await;
    (s, serde_json::from_slice(&b).unwrap())
}

fn assert_error(v: &Value, code: &str) {
    assert_eq!(v["code"], code, "{v}");
    for f in ["message", "type", "link"] {
        assert!(v[f].as_str().is_some_and(|s| !s.is_empty()), "{f} in {v}");
    }
}

#[tokio::test]
async fn health_stats_documents() {
    let (s, v) = get("/health").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["status"], "ok");
    assert_eq!(
        v["notes"].as_u64().unwrap() as usize,
        fixture().engine.view().len().unwrap()
    );
    let (s, v) = get("/stats").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["stats"]["documents"], 3);
    let (s, v) = get("/documents").await;
    assert_eq!(s, StatusCode::OK);
    let docs: Vec<&str> = v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc"].as_str().unwrap())
        .collect();
    assert_eq!(docs, ["guide/mosaic.md", "hnsw.md", "paper.pdf"]);
}

#[tokio::test]
async fn search_get_marks_snippets_and_links() {
    let (s, v) = get("/search?q=mosaic%20plot%20tiles&budget=3&selector=cosine").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["selector"], "cosine");
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 3);
    let top = &hits[0];
    assert_eq!(top["note"]["doc"], "guide/mosaic.md");
    let html = top["snippet_html"].as_str().unwrap();
    assert!(html.contains("<mark>"), "{html}");
    assert!(!html.contains("<tiles>"), "snippet must be escaped: {html}");
    assert!(top.get("image_path").is_none());
    // A Markdown note opens at its section.
    assert_eq!(
        top["file_url"],
        "/documents/guide%2Fmosaic.md/file#mosaic-plots"
    );
    assert_eq!(top["url"], top["file_url"]);
    assert_eq!(top["section"], serde_json::json!(["Mosaic plots"]));
}

#[tokio::test]
async fn a_selector_takes_options_in_get_and_post() {
    // mmr:lambda=1 is pure relevance: the options reach the selector from either form.
    let (s, g) = get("/search?q=recall%20selector&budget=4&selector=mmr:lambda=1").await;
    assert_eq!(s, StatusCode::OK, "{g}");
    assert_eq!(g["selector"], "mmr:lambda=1");
    let (s, p) =
        post(r#"{"q": "recall selector", "budget": 4, "selector": "mmr:lambda=1"}"#.into()).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["hits"], g["hits"]);
    let (_, cosine) = get("/search?q=recall%20selector&budget=4&selector=cosine").await;
    let ids = |v: &Value| -> Vec<Value> {
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["note"]["id"].clone())
            .collect()
    };
    assert_eq!(
        ids(&g),
        ids(&cosine),
        "MMR with lambda 1 is the cosine order"
    );
}

#[tokio::test]
async fn search_as_you_type_groups_and_lean_fields() {
    // "mosa" is no word of the index: as typed it finds nothing by BM25; as a prefix it finds
    // the mosaic note, marked.
    let (s, v) = get("/search?q=mosa&matching=exact&selector=fused").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["bm25_rank"].is_null()),
        "{v}"
    );
    let (s, v) = get("/search?q=mosa&matching=typing&fields=doc,snippet_html,url").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let top = &v["hits"][0];
    assert_eq!(top["doc"], "guide/mosaic.md", "{v}");
    assert!(
        top["snippet_html"]
            .as_str()
            .unwrap()
            .contains("<mark>mosaic</mark>"),
        "{v}"
    );
    // Only the fields asked for.
    let mut keys: Vec<&str> = top
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, ["doc", "snippet_html", "url"]);
    // A typo.
    let (_, v) = get("/search?q=mosaik&matching=typing&fields=doc").await;
    assert_eq!(v["hits"][0]["doc"], "guide/mosaic.md", "{v}");
    // Grouped by document: each document once, its best notes under it, in the same order as
    // a body asks for it.
    let (s, g) = get("/search?q=mosaic%20tiles&group=document&budget=2&fields=doc,page").await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let (_, p) = post(
        serde_json::json!({"q": "mosaic tiles", "group": "document", "budget": 2, "fields": ["doc", "page"]})
            .to_string(),
    )
    .await;
    assert_eq!(g["groups"], p["groups"]);
    assert_eq!(g["group"], "document");
    let groups = g["groups"].as_array().unwrap();
    assert!(!groups.is_empty() && groups.len() <= 2, "{g}");
    assert_eq!(groups[0]["doc"], "guide/mosaic.md");
    assert_eq!(groups[0]["url"], "/documents/guide%2Fmosaic.md/file");
    let mut docs: Vec<&str> = groups.iter().map(|g| g["doc"].as_str().unwrap()).collect();
    docs.dedup();
    assert_eq!(docs.len(), groups.len(), "{g}");
    for grp in groups {
        let hits = grp["hits"].as_array().unwrap();
        assert!(
            (1..=indexer_engine::NOTES_PER_PAGE).contains(&hits.len()),
            "{g}"
        );
        assert!(hits.iter().all(|h| h["doc"] == grp["doc"]), "{g}");
    }
    // By page: the figure's page of the PDF is its own group.
    let (_, g) = get("/search?q=recall%20selector&group=page&fields=page").await;
    let pdf = g["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["doc"] == "paper.pdf")
        .unwrap_or_else(|| panic!("{g}"));
    assert_eq!(pdf["page"], 3);
    assert_eq!(pdf["url"], "/documents/paper.pdf/file#page=3");
    // Bad names.
    for (uri, code) in [
        ("/search?q=x&fields=doc,body", "unknown_field"),
        ("/search?q=x&group=chapter", "unknown_group"),
        ("/search?q=x&matching=fuzzy", "unknown_matching"),
    ] {
        let (s, v) = get(uri).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{uri}");
        assert_error(&v, code);
    }
}

#[tokio::test]
async fn a_site_url_makes_links_into_the_published_pages() {
    let cfg = ServerConfig {
        site_url: Some("https://docs.example.org/manual/".into()),
        ..cfg()
    };
    let app = router(fixture().engine.clone(), cfg);
    let r = app
        .oneshot(
            Request::get("/search?q=mosaic%20plot&fields=doc,url")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let v: Value =
        serde_json::from_slice(&to_bytes(r.into_body(), 1 << 20).await.unwrap()).unwrap();
    let urls: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["url"].as_str().unwrap())
        .collect();
    assert!(
        urls.contains(&"https://docs.example.org/manual/guide/mosaic.md#mosaic-plots"),
        "{urls:?}"
    );
}

#[tokio::test]
async fn search_filters_and_crop_url() {
    let (s, v) = get("/search?q=recall%20selector&kind=figure&pages=2-4&doc=paper.pdf").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{v}");
    assert_eq!(hits[0]["crop_url"], "/notes/paper.pdf%23f0/image");
    assert_eq!(hits[0]["file_url"], "/documents/paper.pdf/file#page=3");
    // The page shows the caption on its own line; the snippet goes on after it.
    assert_eq!(
        hits[0]["snippet_html"], "against the candidate count.",
        "{v}"
    );
    let (s, v) = get("/search?q=recall%20selector&pages=4-5").await;
    assert_eq!(s, StatusCode::OK);
    assert!(v["hits"].as_array().unwrap().is_empty(), "{v}");
}

#[tokio::test]
async fn search_post_same_fields() {
    let (s, v) = post(
        serde_json::json!({"q": "nearest neighbour graph", "budget": 2, "doc": ["hnsw.md"], "kind": ["text"]})
            .to_string(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let hits = v["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["note"]["doc"] == "hnsw.md"));
    assert_eq!(v["budget"], 2);
    // A page range as numbers, one document as a string, kinds comma-separated.
    let (s, v) = post(
        serde_json::json!({"query": "recall selector", "pages": [2, 4], "doc": "paper.pdf", "kind": "figure,table"})
            .to_string(),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["hits"][0]["note"]["id"], "paper.pdf#f0", "{v}");
}

#[tokio::test]
async fn rewrites_are_shown_and_can_be_switched_off() {
    // A page the question names is put first, and the answer says so.
    let (s, v) = get("/search?q=what%20does%20page%203%20show&doc=paper.pdf").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        v["rewrite"]["named_pages"],
        serde_json::json!([{"doc": "paper.pdf", "page": 3, "phrase": "page 3"}]),
        "{v}"
    );
    assert_eq!(v["rewrite"]["reasons"][0]["rule"], "pages", "{v}");
    assert_eq!(v["hits"][0]["named_page"], true, "{v}");
    // Instructions about the answer are left out of the search, and the answer says what
    // was searched; grouped searches say it too.
    let q = "Which selector has the best recall? Answer in percent.";
    for uri in [
        format!("/search?q={}&rewrite=all", encode(q)),
        format!("/search?q={}&group=page&rewrite=instructions", encode(q)),
    ] {
        let (s, v) = get(&uri).await;
        assert_eq!(s, StatusCode::OK, "{v}");
        assert_eq!(v["query"], q);
        assert_eq!(
            v["rewrite"]["searched"], "Which selector has the best recall?",
            "{uri}: {v}"
        );
        assert_eq!(v["rewrite"]["dropped"], "Answer in percent.", "{uri}: {v}");
        assert_eq!(
            v["rewrite"]["reasons"][0]["rule"], "instructions",
            "{uri}: {v}"
        );
    }
    // rewrite=false (GET) and "rewrite": false (POST) search the query as typed.
    let (s, v) = get("/search?q=what%20does%20page%203%20show&doc=paper.pdf&rewrite=false").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.get("rewrite").is_none(), "{v}");
    let (s, v) = post(serde_json::json!({"q": q, "rewrite": false}).to_string()).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.get("rewrite").is_none(), "{v}");
    // By default the instructions are searched too: nothing else would change.
    let (s, v) = get(&format!("/search?q={}", encode(q))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.get("rewrite").is_none(), "{v}");
    // An ordinary question is searched as typed.
    let (s, v) =
        get("/search?q=What%20should%20the%20cover%20letter%20include%3F&doc=paper.pdf").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.get("rewrite").is_none(), "{v}");
    // One rule switched off alone: the instructions are kept, nothing else would change.
    let (s, v) = get(&format!("/search?q={}&rewrite=pages,terms", encode(q))).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert!(v.get("rewrite").is_none(), "{v}");
    let (s, v) = get("/search?q=x&rewrite=maybe").await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error(&v, "bad_rewrite");
}

/// The query string form of `s` (spaces as %20, reserved characters escaped).
fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The body with one value per line and every number with a fraction (scores, cosines, timings)
/// as `F`, so a test can pin the exact JSON the server sends, keys in order.
fn shape(body: &[u8]) -> String {
    let text = std::str::from_utf8(body).unwrap();
    let (mut out, mut number) = (String::new(), String::new());
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        if in_string {
            out.push(c);
            (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
            continue;
        }
        if c.is_ascii_digit()
            || c == '-'
            || (matches!(c, '+' | '.' | 'e' | 'E') && !number.is_empty())
        {
            number.push(c);
            continue;
        }
        if !number.is_empty() {
            let fraction = number.contains(['.', 'e', 'E']);
            out.push_str(if fraction { "F" } else { &number });
            number.clear();
        }
        in_string = c == '"';
        out.push(c);
        if c == ',' {
            out.push('\n');
        }
    }
    out
}

#[tokio::test]
async fn search_and_note_bodies_keep_their_shape() {
    let (s, _, b) = call(
        Request::get("/search?q=recall%20selector&kind=figure&doc=paper.pdf")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        shape(&b),
        r#"{"query":"recall selector",
"selector":"fused-cap",
"ranking":"fused",
"budget":10,
"generation":2,
"model":"sentence-transformers/all-MiniLM-L6-v2@int8",
"candidates":1,
"hits":[{"rank":1,
"score":F,
"cosine":F,
"bm25_rank":1,
"vector_rank":1,
"doc":"paper.pdf",
"page":3,
"kind":"figure",
"caption":"Figure 2: recall of the CDS selector",
"section":[],
"url":"/documents/paper.pdf/file#page=3",
"snippet":{"text":"against the candidate count.",
"highlights":[]},
"note":{"id":"paper.pdf#f0",
"doc":"paper.pdf",
"page":3,
"bbox":[],
"kind":"figure",
"text":"Figure 2: recall of the CDS selector against the candidate count.",
"caption":"Figure 2: recall of the CDS selector",
"context":null,
"summary":"",
"keywords":[],
"section":[],
"image":"fig2.png",
"links":[]},
"snippet_html":"against the candidate count.",
"crop_url":"/notes/paper.pdf%23f0/image",
"note_url":"/notes/paper.pdf%23f0",
"file_url":"/documents/paper.pdf/file#page=3"}],
"diagnostics":null,
"timings":{"embed_ms":F,
"candidates_ms":F,
"select_ms":F,
"total_ms":F}}"#
    );
    let (s, _, b) = call(
        Request::get("/notes/paper.pdf%23f0")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        shape(&b),
        r#"{"id":"paper.pdf#f0",
"doc":"paper.pdf",
"page":3,
"bbox":[],
"kind":"figure",
"text":"Figure 2: recall of the CDS selector against the candidate count.",
"caption":"Figure 2: recall of the CDS selector",
"context":null,
"summary":"",
"keywords":[],
"section":[],
"image":"fig2.png",
"links":[],
"crop_url":"/notes/paper.pdf%23f0/image"}"#
    );
}

#[tokio::test]
async fn search_errors_are_400_with_codes() {
    let long = "a".repeat(1001);
    for (uri, code) in [
        ("/search".to_string(), "empty_query"),
        ("/search?q=%20".into(), "empty_query"),
        (format!("/search?q={long}"), "query_too_long"),
        ("/search?q=x&budget=51".into(), "limit_exceeded"),
        ("/search?q=x&budget=0".into(), "bad_number"),
        ("/search?q=x&budget=ten".into(), "bad_number"),
        ("/search?q=x&candidates=1001".into(), "limit_exceeded"),
        ("/search?q=x&selector=magic".into(), "unknown_selector"),
        (
            "/search?q=x&selector=fused-cap:colour=red".into(),
            "bad_selector_option",
        ),
        (
            "/search?q=x&selector=fused-cap:cap=0".into(),
            "bad_selector_option",
        ),
        ("/search?q=x&kind=poem".into(), "unknown_kind"),
        ("/search?q=x&pages=9-3".into(), "bad_pages"),
        ("/search?q=x&doc=nope.md".into(), "unknown_document"),
        ("/search?q=x&colour=red".into(), "bad_query_string"),
    ] {
        let (s, v) = get(&uri).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{uri}: {v}");
        assert_error(&v, code);
        assert_eq!(v["type"], "invalid_request_error");
    }
    let (s, v) = post("{not json".into()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_error(&v, "bad_json");
    // A body's numbers are checked as numbers, with the same codes as the query string's.
    for (body, code) in [
        (r#"{"q": "x", "budget": 0}"#, "bad_number"),
        (r#"{"q": "x", "candidates": 1001}"#, "limit_exceeded"),
        (r#"{"q": "x", "pages": [4, 2]}"#, "bad_pages"),
        (r#"{"q": "x", "pages": {"from": 2}}"#, "bad_pages"),
        (r#"{"q": "x", "budget": "3"}"#, "bad_json"),
        (r#"{"q": "x", "colour": "red"}"#, "bad_json"),
    ] {
        let (s, v) = post(body.into()).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}: {v}");
        assert_error(&v, code);
    }
    let (s, v) = post(format!("{{\"q\": \"{}\"}}", "x".repeat(70 * 1024))).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{v}");
    assert_error(&v, "body_too_large");
}

#[tokio::test]
async fn notes_and_images() {
    let (s, v) = get("/notes/paper.pdf%23f0").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["page"], 3);
    assert_eq!(v["crop_url"], "/notes/paper.pdf%23f0/image");
    let (s, v) = get("/notes/guide%2Fmosaic.md%23t0").await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["doc"], "guide/mosaic.md");
    // A raw slash works too.
    let (s, _) = get("/notes/guide/mosaic.md%23t0").await;
    assert_eq!(s, StatusCode::OK);

    let (s, h, b) = call(
        Request::get("/notes/paper.pdf%23f0/image")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(h[header::CONTENT_TYPE], "image/png");
    assert_eq!(b, PNG);

    for (uri, code) in [
        ("/notes/nope%23t0", "note_not_found"),
        ("/notes/nope%23t0/image", "note_not_found"),
        ("/notes/guide%2Fmosaic.md%23t0/image", "image_not_found"),
        ("/notes/..%2Foutside.png/image", "note_not_found"),
        ("/notes/%2Fetc%2Fpasswd/image", "note_not_found"),
        ("/nowhere", "route_not_found"),
    ] {
        let (s, v) = get(uri).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}: {v}");
        assert_error(&v, code);
    }
}

#[tokio::test]
async fn document_files_only_of_the_index() {
    let (s, _, b) = call(
        Request::get("/documents/guide%2Fmosaic.md/file")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert!(String::from_utf8(b).unwrap().starts_with("# Mosaic plots"));
    std::fs::write(fixture().docs.join("secret.md"), "not indexed").unwrap();
    for uri in [
        "/documents/secret.md/file",
        "/documents/..%2Findex%2Fcurrent/file",
        "/documents/paper.pdf/file", // in the index, but not on disk
    ] {
        let (s, v) = get(uri).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{uri}: {v}");
        assert_error(&v, "document_not_found");
    }
}

#[tokio::test]
async fn cors_only_for_configured_origins() {
    let req = |origin: &str| {
        Request::get("/search?q=mosaic")
            .header(header::ORIGIN, origin)
            .body(Body::empty())
            .unwrap()
    };
    let (s, h, _) = call(req("http://docs.example:8000")).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        h[header::ACCESS_CONTROL_ALLOW_ORIGIN],
        "http://docs.example:8000"
    );
    let (_, h, _) = call(req("http://evil.example")).await;
    assert!(h.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
    let pre = Request::options("/search")
        .header(header::ORIGIN, "http://docs.example:8000")
        .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
        .header(header::ACCESS_CONTROL_REQUEST_HEADERS, "content-type")
        .body(Body::empty())
        .unwrap();
    let (s, h, _) = call(pre).await;
    assert!(s.is_success(), "{s}");
    assert!(
        h[header::ACCESS_CONTROL_ALLOW_METHODS]
            .to_str()
            .unwrap()
            .contains("POST")
    );
    // No origins configured: no CORS headers at all.
    let app = router(fixture().engine.clone(), ServerConfig::default());
    let r = app.oneshot(req("http://docs.example:8000")).await.unwrap();
    assert!(
        r.headers()
            .get(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            .is_none()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_beyond_the_limit_wait_their_turn() {
    let cfg = ServerConfig {
        max_concurrent_searches: 1,
        ..ServerConfig::default()
    };
    let app = router(fixture().engine.clone(), cfg);
    let calls = (0..6).map(|i| {
        let app = app.clone();
        tokio::spawn(async move {
            let uri = format!("/search?q=mosaic%20plot%20{i}");
            let r = app
                .oneshot(Request::get(uri).body(Body::empty()).unwrap())
                .await
                .unwrap();
            r.status()
        })
    });
    for c in calls {
        assert_eq!(c.await.unwrap(), StatusCode::OK);
    }
}

#[tokio::test]
async fn timeout_is_503() {
    let cfg = ServerConfig {
        timeout: std::time::Duration::from_nanos(1),
        ..ServerConfig::default()
    };
    let app = router(fixture().engine.clone(), cfg);
    let r = app
        .oneshot(
            Request::get("/search?q=mosaic%20plot")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let v: Value =
        serde_json::from_slice(&to_bytes(r.into_body(), 1 << 20).await.unwrap()).unwrap();
    assert_error(&v, "timeout");
}

#[tokio::test]
async fn page_and_widget() {
    let (s, h, b) = call(Request::get("/").body(Body::empty()).unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        h[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = String::from_utf8(b).unwrap();
    assert!(page.contains("function indexerMount") && page.contains(".ix-box"));
    assert!(!page.contains("/*JS*/") && !page.contains("/*CSS*/"));
    let (s, h, b) = call(Request::get("/widget.js").body(Body::empty()).unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        h[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    let js = String::from_utf8(b).unwrap();
    assert!(js.contains("indexerWidget(INDEXER_CSS)") && js.contains("data"));
}

/// A real server on loopback with short limits; returns its address and a handle that stops
/// it when dropped.
async fn serve_with(cfg: ServerConfig) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(indexer_server::serve_on(
        listener,
        fixture().engine.clone(),
        cfg,
        async {
            let _ = stopped.await;
        },
    ));
    (addr, stop)
}

/// Reads until the peer closes or `limit` passes; returns what came and whether it closed.
async fn read_until_closed(
    s: &mut tokio::net::TcpStream,
    limit: std::time::Duration,
) -> (String, bool) {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), false),
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test]
async fn slow_clients_are_cut_off() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;
    let (addr, _stop) = serve_with(ServerConfig {
        header_timeout: Duration::from_millis(300),
        timeout: Duration::from_millis(700),
        ..ServerConfig::default()
    })
    .await;
    // Headers that never end: the connection is closed once the header time is up.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let (_, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(
        closed,
        "a client that never finishes its headers keeps its connection"
    );
    // A connection that sends nothing is closed too.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (_, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(closed, "an idle connection stays open");
    // A body that stalls: the request's time limit answers 503.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(
        b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"q\": ",
    )
    .await
    .unwrap();
    let (answer, _) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"code\":\"timeout\""), "{answer}");
    // A client that keeps to the limits is served on the same server.
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (answer, closed) = read_until_closed(&mut s, Duration::from_secs(5)).await;
    assert!(closed && answer.starts_with("HTTP/1.1 200"), "{answer}");
}

#[tokio::test]
async fn a_client_over_its_rate_gets_429_with_retry_after() {
    use std::time::Duration;
    use tokio::io::AsyncWriteExt;
    let (addr, _stop) = serve_with(ServerConfig {
        rate_limit: Some(2),
        ..ServerConfig::default()
    })
    .await;
    let ask = || async move {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        read_until_closed(&mut s, Duration::from_secs(5)).await.0
    };
    assert!(ask().await.starts_with("HTTP/1.1 200"));
    assert!(ask().await.starts_with("HTTP/1.1 200"));
    let refused = ask().await;
    assert!(refused.starts_with("HTTP/1.1 429"), "{refused}");
    let lower = refused.to_ascii_lowercase();
    assert!(lower.contains("retry-after: 1\r\n"), "{refused}");
    assert!(refused.contains("\"code\":\"rate_limited\""), "{refused}");
    assert!(
        refused.contains("\"type\":\"rate_limit_error\""),
        "{refused}"
    );
    // Half a second refills one request.
    tokio::time::sleep(Duration::from_millis(550)).await;
    assert!(ask().await.starts_with("HTTP/1.1 200"));
}
