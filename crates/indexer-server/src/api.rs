//! The router: JSON endpoints, limits, CORS and the refresh of index generations.

use crate::error::ApiError;
use crate::{Error, Result, page};
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use indexer_engine::{Engine, Filter, SearchRequest, SelectorKind, safe_child};
use indexer_notes::NoteKind;
use serde::Deserialize;
use serde_json::{Value, json};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// Limits and options of the server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Origins allowed to call the API from a browser (a docs site on another port or host).
    /// Empty: no CORS headers, only same-origin pages can read answers.
    pub cors_origins: Vec<String>,
    /// Longest query, in characters.
    pub max_query_len: usize,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Largest budget B a request may ask for.
    pub max_budget: usize,
    /// Largest number of candidates k a request may ask for.
    pub max_candidates: usize,
    /// Time a request may take before a 503.
    pub timeout: Duration,
    /// The folder the documents were ingested from (the ingest base), to serve the original
    /// files at `/documents/{doc}/file`. `None`: files are not served.
    pub docs_root: Option<PathBuf>,
    /// How often a request may check for a newer index generation.
    pub refresh_every: Duration,
    /// Searches computed at the same time; more wait their turn, within the request's time
    /// limit. One per core by default: more would only share the same cores, stretch every
    /// search and starve an `indexer ingest` running beside the server (in the load test on
    /// two cores, the ingest of a 7-page PDF beside 16 clients took 13.9 s without the queue
    /// and 5.1 s with it, and the clients got 6% more answers).
    pub max_concurrent_searches: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            cors_origins: Vec::new(),
            max_query_len: 1000,
            max_body: 64 * 1024,
            max_budget: 50,
            max_candidates: 1000,
            timeout: Duration::from_secs(10),
            docs_root: None,
            refresh_every: Duration::from_secs(1),
            max_concurrent_searches: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

struct AppState {
    engine: Arc<Engine>,
    cfg: ServerConfig,
    last_refresh: Mutex<Option<Instant>>,
    searches: tokio::sync::Semaphore,
}

type Shared = Arc<AppState>;

impl AppState {
    /// Picks up a newer complete generation, at most once per `refresh_every`. Blocking.
    fn maybe_refresh(&self) {
        {
            let mut last = self.last_refresh.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|t| t.elapsed() < self.cfg.refresh_every) {
                return;
            }
            *last = Some(Instant::now());
        }
        if let Err(e) = self.engine.refresh() {
            // Keep serving the generation we have; the next check retries.
            eprintln!("indexer serve: cannot refresh the index: {e}");
        }
    }
}

/// Runs blocking engine work off the async threads.
async fn blocking<T: Send + 'static>(
    st: &Shared,
    f: impl FnOnce(&AppState) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let st = st.clone();
    tokio::task::spawn_blocking(move || {
        st.maybe_refresh();
        f(&st)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the search task failed: {e}")))?
}

/// The whole application: API, page, widget, limits and CORS.
pub fn router(engine: Arc<Engine>, cfg: ServerConfig) -> Router {
    let timeout = cfg.timeout;
    let max_body = cfg.max_body;
    let cors = cors_layer(&cfg.cors_origins);
    let searches = tokio::sync::Semaphore::new(cfg.max_concurrent_searches.max(1));
    let state = Arc::new(AppState {
        engine,
        cfg,
        last_refresh: Mutex::new(None),
        searches,
    });
    let mut app = Router::new()
        .route("/", get(page::index))
        .route("/widget.js", get(page::widget))
        .route("/health", get(health))
        .route("/search", get(search_get).post(search_post))
        .route("/notes/{*id}", get(note_or_image))
        .route("/documents", get(documents))
        .route("/documents/{*doc}", get(document_file))
        .route("/stats", get(stats))
        .fallback(not_found)
        .with_state(state)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| time_limit(req, next, timeout),
        ));
    if let Some(cors) = cors {
        app = app.layer(cors);
    }
    app
}

fn cors_layer(origins: &[String]) -> Option<CorsLayer> {
    let values: Vec<HeaderValue> = origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
        .collect();
    if values.is_empty() {
        return None;
    }
    Some(
        CorsLayer::new()
            .allow_origin(AllowOrigin::list(values))
            .allow_methods([Method::GET, Method::POST])
            .allow_headers([header::CONTENT_TYPE])
            .max_age(Duration::from_secs(600)),
    )
}

async fn time_limit(req: Request, next: Next, limit: Duration) -> Response {
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) => r,
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the request took longer than {} ms", limit.as_millis()),
        )
        .into_response(),
    }
}

/// Serves on `addr` until Ctrl-C, then finishes the requests in flight.
pub async fn serve(engine: Arc<Engine>, cfg: ServerConfig, addr: SocketAddr) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| Error::Bind { addr, source })?;
    serve_on(listener, engine, cfg, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// Serves on a bound listener until `shutdown` completes (tests and embedders).
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    engine: Arc<Engine>,
    cfg: ServerConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let refresh = cfg.refresh_every;
    let bg = engine.clone();
    // New generations are picked up even when nobody queries, so /stats is current.
    let ticker = tokio::spawn(async move {
        let mut tick = tokio::time::interval(refresh);
        loop {
            tick.tick().await;
            let e = bg.clone();
            let _ = tokio::task::spawn_blocking(move || e.refresh()).await;
        }
    });
    let app = router(engine, cfg);
    let r = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await;
    ticker.abort();
    r.map_err(Error::Io)
}

async fn not_found() -> ApiError {
    ApiError::not_found("route_not_found", "no such endpoint")
}

async fn health(State(st): State<Shared>) -> Result<Json<Value>, ApiError> {
    blocking(&st, |st| {
        let index = st.engine.view();
        Ok(Json(json!({
            "status": "ok",
            "generation": index.generation(),
            "model": index.model_id(),
            "notes": index.len(),
        })))
    })
    .await
}

async fn stats(State(st): State<Shared>) -> Result<Json<Value>, ApiError> {
    blocking(&st, |st| {
        let index = st.engine.view();
        Ok(Json(json!({
            "stats": index.stats(),
            "failures": index.failures(),
        })))
    })
    .await
}

async fn documents(State(st): State<Shared>) -> Result<Json<Value>, ApiError> {
    blocking(&st, |st| {
        let served = st.cfg.docs_root.is_some();
        let docs: Vec<Value> = st
            .engine
            .view()
            .documents()
            .into_iter()
            .map(|d| {
                let mut v = serde_json::to_value(&d).unwrap_or(Value::Null);
                if served {
                    v["file_url"] = json!(format!("/documents/{}/file", encode(&d.doc)));
                }
                v
            })
            .collect();
        Ok(Json(json!({ "documents": docs })))
    })
    .await
}

/// `/documents/{doc}/file`: the original file of a document of the index, from `docs_root`.
async fn document_file(
    State(st): State<Shared>,
    Path(rest): Path<String>,
) -> Result<Response, ApiError> {
    let Some(doc) = rest.strip_suffix("/file").map(str::to_string) else {
        return Err(ApiError::not_found("route_not_found", "no such endpoint"));
    };
    blocking(&st, move |st| {
        let missing = || ApiError::not_found("document_not_found", format!("no document {doc:?}"));
        let root = st.cfg.docs_root.as_ref().ok_or_else(|| {
            ApiError::not_found(
                "files_not_served",
                "this server does not serve document files",
            )
        })?;
        if !st.engine.view().documents().iter().any(|d| d.doc == doc) {
            return Err(missing());
        }
        let path = safe_child(root, &doc).ok_or_else(missing)?;
        let bytes = std::fs::read(&path)
            .map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        let mime = match ext.as_str() {
            "pdf" => "application/pdf",
            "html" | "htm" => "text/plain; charset=utf-8",
            "md" | "markdown" | "txt" => "text/plain; charset=utf-8",
            _ => "application/octet-stream",
        };
        Ok(([(header::CONTENT_TYPE, mime)], bytes).into_response())
    })
    .await
}

/// `/notes/{id}` and `/notes/{id}/image`. Ids hold `/` and `#`: send them percent-encoded
/// (`#` must be); a raw `/` works too.
async fn note_or_image(
    State(st): State<Shared>,
    Path(rest): Path<String>,
) -> Result<Response, ApiError> {
    blocking(&st, move |st| {
        if let Some(id) = rest.strip_suffix("/image") {
            if let Some(path) = st.engine.image_path(id) {
                let bytes = std::fs::read(&path)
                    .map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
                return Ok(([(header::CONTENT_TYPE, "image/png")], bytes).into_response());
            }
            if st.engine.view().note(id).is_none() {
                return Err(ApiError::not_found(
                    "note_not_found",
                    format!("no note {id:?}"),
                ));
            }
            return Err(ApiError::not_found(
                "image_not_found",
                format!("note {id:?} has no image in the index"),
            ));
        }
        let note =
            st.engine.view().note(&rest).ok_or_else(|| {
                ApiError::not_found("note_not_found", format!("no note {rest:?}"))
            })?;
        let has_image = st.engine.image_path(&note.id).is_some();
        let mut v = serde_json::to_value(&note).map_err(|e| ApiError::internal(e.to_string()))?;
        if has_image {
            v["crop_url"] = json!(crop_url(&note.id));
        }
        Ok(Json(v).into_response())
    })
    .await
}

/// The fields of a search, from the query string or a JSON body.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchParams {
    #[serde(alias = "query")]
    q: Option<String>,
    budget: Option<String>,
    selector: Option<String>,
    candidates: Option<String>,
    /// One document id (query string) or several (JSON array).
    doc: Option<OneOrMany>,
    /// Kinds, comma-separated or a JSON array.
    kind: Option<OneOrMany>,
    /// `3-9` or `5`.
    pages: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// A JSON body: the same fields, numbers as numbers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchBody {
    #[serde(alias = "query")]
    q: Option<String>,
    budget: Option<usize>,
    selector: Option<String>,
    candidates: Option<usize>,
    doc: Option<OneOrMany>,
    kind: Option<OneOrMany>,
    pages: Option<Value>,
}

async fn search_get(
    State(st): State<Shared>,
    q: Result<Query<SearchParams>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(p) = q.map_err(|e| ApiError::bad_request("bad_query_string", e.body_text()))?;
    let req = build_request(&st.cfg, p)?;
    run_search(&st, req).await
}

async fn search_post(
    State(st): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = body.map_err(|e| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large",
                format!("the request body is larger than {} bytes", st.cfg.max_body),
            )
        } else {
            ApiError::bad_request("bad_body", e.body_text())
        }
    })?;
    let b: SearchBody = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request("bad_json", format!("the body is not a valid search: {e}"))
    })?;
    let pages = match b.pages {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Array(a)) if a.len() == 2 => Some(format!("{}-{}", a[0], a[1])),
        Some(other) => {
            return Err(ApiError::bad_request(
                "bad_pages",
                format!("pages must be \"3-9\", 5 or [3, 9], not {other}"),
            ));
        }
    };
    let p = SearchParams {
        q: b.q,
        budget: b.budget.map(|n| n.to_string()),
        selector: b.selector,
        candidates: b.candidates.map(|n| n.to_string()),
        doc: b.doc,
        kind: b.kind,
        pages,
    };
    let req = build_request(&st.cfg, p)?;
    run_search(&st, req).await
}

fn parse_count(
    name: &str,
    v: Option<String>,
    default: usize,
    max: usize,
) -> Result<usize, ApiError> {
    let Some(v) = v else { return Ok(default) };
    let n: usize = v.trim().parse().map_err(|_| {
        ApiError::bad_request(
            "bad_number",
            format!("{name} must be a positive integer, not {v:?}"),
        )
    })?;
    if n == 0 {
        return Err(ApiError::bad_request(
            "bad_number",
            format!("{name} must be at least 1"),
        ));
    }
    if n > max {
        return Err(ApiError::bad_request(
            "limit_exceeded",
            format!("{name} is {n}, more than the limit of {max}"),
        ));
    }
    Ok(n)
}

fn parse_pages(s: &str) -> Result<(u32, u32), ApiError> {
    let bad = || {
        ApiError::bad_request(
            "bad_pages",
            format!("pages must look like 3-9 or 5, not {s:?}"),
        )
    };
    let (a, b) = match s.split_once('-') {
        Some((a, b)) => (a, b),
        None => (s, s),
    };
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok((a, b))
}

fn build_request(cfg: &ServerConfig, p: SearchParams) -> Result<SearchRequest, ApiError> {
    let q = p.q.unwrap_or_default();
    let q = q.trim();
    if q.is_empty() {
        return Err(ApiError::bad_request("empty_query", "the query q is empty"));
    }
    let len = q.chars().count();
    if len > cfg.max_query_len {
        return Err(ApiError::bad_request(
            "query_too_long",
            format!(
                "the query has {len} characters, more than the limit of {}",
                cfg.max_query_len
            ),
        ));
    }
    let mut req = SearchRequest::new(q);
    req.budget = parse_count(
        "budget",
        p.budget,
        req.budget.min(cfg.max_budget),
        cfg.max_budget,
    )?;
    req.candidates = parse_count(
        "candidates",
        p.candidates,
        req.candidates.min(cfg.max_candidates),
        cfg.max_candidates,
    )?;
    if let Some(s) = p.selector.filter(|s| !s.trim().is_empty()) {
        req.selector = s.trim().parse::<SelectorKind>().map_err(|_| {
            let names: Vec<&str> = SelectorKind::ALL.iter().map(|k| k.as_str()).collect();
            ApiError::bad_request(
                "unknown_selector",
                format!("unknown selector {s:?} (one of {})", names.join(", ")),
            )
        })?;
    }
    let mut filter = Filter::default();
    if let Some(d) = p.doc {
        filter.docs = d.into_vec().into_iter().filter(|d| !d.is_empty()).collect();
    }
    if let Some(k) = p.kind {
        for part in k.into_vec().iter().flat_map(|s| s.split(',')) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let kind = part.parse::<NoteKind>().map_err(|_| {
                ApiError::bad_request(
                    "unknown_kind",
                    format!("unknown kind {part:?} (one of text, figure, table)"),
                )
            })?;
            filter.kinds.push(kind);
        }
    }
    if let Some(pg) = p.pages.filter(|s| !s.trim().is_empty()) {
        filter.pages = Some(parse_pages(&pg)?);
    }
    req.filter = filter;
    Ok(req)
}

async fn run_search(st: &Shared, req: SearchRequest) -> Result<Json<Value>, ApiError> {
    let _turn = st
        .searches
        .acquire()
        .await
        .map_err(|e| ApiError::internal(format!("the search queue is closed: {e}")))?;
    blocking(st, move |st| {
        let resp = st.engine.search(&req)?;
        let served = st.cfg.docs_root.is_some();
        let mut v = serde_json::to_value(&resp).map_err(|e| ApiError::internal(e.to_string()))?;
        if let Some(hits) = v.get_mut("hits").and_then(Value::as_array_mut) {
            for (h, hit) in hits.iter_mut().zip(&resp.hits) {
                let obj = h.as_object_mut().expect("a hit serializes to an object");
                // The server's own file paths are not the client's business.
                obj.remove("image_path");
                let crop = hit
                    .image_path
                    .as_ref()
                    .and_then(|_| st.engine.image_path(&hit.note.id))
                    .map(|_| crop_url(&hit.note.id));
                obj.insert("crop_url".into(), json!(crop));
                obj.insert(
                    "snippet_html".into(),
                    json!(snippet_html(&hit.snippet.text, &hit.snippet.highlights)),
                );
                obj.insert(
                    "note_url".into(),
                    json!(format!("/notes/{}", encode(&hit.note.id))),
                );
                let file = served.then(|| {
                    let base = format!("/documents/{}/file", encode(&hit.note.doc));
                    match hit.note.page {
                        Some(p) => format!("{base}#page={p}"),
                        None => base,
                    }
                });
                obj.insert("file_url".into(), json!(file));
            }
        }
        Ok(Json(v))
    })
    .await
}

fn crop_url(id: &str) -> String {
    format!("/notes/{}/image", encode(id))
}

/// Percent-encodes everything but unreserved characters, so an id is one path segment.
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn escape_into(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// The snippet HTML-escaped, with `<mark>` around the highlighted byte ranges.
pub(crate) fn snippet_html(text: &str, highlights: &[[usize; 2]]) -> String {
    let mut out = String::with_capacity(text.len() + 16 * highlights.len());
    let mut at = 0;
    for &[s, e] in highlights {
        if s < at || e > text.len() || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
            continue;
        }
        escape_into(&mut out, &text[at..s]);
        out.push_str("<mark>");
        escape_into(&mut out, &text[s..e]);
        out.push_str("</mark>");
        at = e;
    }
    escape_into(&mut out, &text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_html_escapes_and_marks() {
        let t = "a <b> & cds";
        assert_eq!(
            snippet_html(t, &[[8, 11]]),
            "a &lt;b&gt; &amp; <mark>cds</mark>"
        );
        assert_eq!(encode("a/b.md#t0"), "a%2Fb.md%23t0");
    }

    #[test]
    fn pages_parse() {
        assert_eq!(parse_pages("3-9").unwrap(), (3, 9));
        assert_eq!(parse_pages("5").unwrap(), (5, 5));
        assert!(parse_pages("9-3").is_err());
        assert!(parse_pages("x").is_err());
    }
}
