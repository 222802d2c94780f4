//! The application: configuration, shared state, the router with its handlers, the middleware
//! (time limit, CORS, body limit) and serving with the refresh of index generations.

use crate::error::ApiError;
use crate::rate::RateLimiter;
use crate::request::{ApiSearch, SearchQuery, SearchQueryGet};
use crate::response::{Links, SearchAnswer};
use crate::{page, response};
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use indexer_engine::{Engine, safe_child};
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
    /// The URL the documents are published at (a docs site; no trailing `/`): a hit's `url`
    /// is `{site_url}/{doc}#anchor` (`#page=N` for a PDF). `None`: hits open the file served
    /// here, or the note.
    pub site_url: Option<String>,
    /// Time a client has to send a request's headers (and, on a keep-alive connection, to
    /// start the next request) before the connection is closed.
    pub header_timeout: Duration,
    /// Requests a second per client address (a burst of as many, then that rate); over it a
    /// 429 with `Retry-After`. `None`: no limit.
    pub rate_limit: Option<u32>,
    /// How often a request may check for a newer index generation.
    pub refresh_every: Duration,
    /// Searches computed at the same time; more wait their turn, within the request's time
    /// limit. One per core by default: more would only share the same cores, stretch every
    /// search and starve an `indexer ingest` running beside the server (in the load test on
    /// two cores, the ingest of a 7-page PDF beside 16 clients took 13.9 s without the queue
    /// and 5.1 s with it, and the clients got 6% more answers).
    pub max_concurrent_searches: usize,
    /// The model server `POST /ask` sends evidence to; `None`: `/ask` answers 404
    /// `ask_disabled`. Its time limit is `/ask`'s (instead of `timeout`).
    pub llm: Option<Arc<indexer_engine::Llm>>,
}

impl ServerConfig {
    pub(crate) fn links(&self) -> Links {
        Links {
            files_served: self.docs_root.is_some(),
            site_url: self
                .site_url
                .as_ref()
                .map(|u| u.trim_end_matches('/').to_string()),
        }
    }
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
            site_url: None,
            header_timeout: Duration::from_secs(10),
            rate_limit: None,
            refresh_every: Duration::from_secs(1),
            max_concurrent_searches: std::thread::available_parallelism().map_or(1, |n| n.get()),
            llm: None,
        }
    }
}

pub(crate) struct AppState {
    pub(crate) engine: Arc<Engine>,
    pub(crate) cfg: ServerConfig,
    last_refresh: Mutex<Option<Instant>>,
    searches: tokio::sync::Semaphore,
}

pub(crate) type Shared = Arc<AppState>;

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
pub(crate) async fn blocking<T: Send + 'static>(
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
    let ask_timeout = cfg.llm.as_ref().map_or(timeout, |l| l.config().timeout);
    let max_body = cfg.max_body;
    let cors = cors_layer(&cfg.cors_origins);
    let limiter = cfg.rate_limit.map(|n| Arc::new(RateLimiter::new(n)));
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
        .route("/ask", post(crate::ask::ask))
        .route("/notes/{*id}", get(note_or_image))
        .route("/documents", get(documents))
        .route("/documents/{*doc}", get(document_file))
        .route("/stats", get(stats))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                // `/ask` waits for the model server to take the request; then the answer
                // streams under the model server's own limit.
                let limit = if req.uri().path() == "/ask" {
                    ask_timeout
                } else {
                    timeout
                };
                time_limit(req, next, limit)
            },
        ));
    if let Some(limiter) = limiter {
        app = app.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| rate_limit(req, next, limiter.clone()),
        ));
    }
    if let Some(cors) = cors {
        app = app.layer(cors);
    }
    app
}

/// Refuses a request over its client's rate with a 429 and `Retry-After` (whole seconds, at
/// least 1). A request without a client address (the router called in process) is not limited.
async fn rate_limit(req: Request, next: Next, limiter: Arc<RateLimiter>) -> Response {
    let client = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    if let Some(ip) = client
        && let Err(wait) = limiter.check(ip, Instant::now())
    {
        let mut r = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "too many requests from {ip}: try again in {} ms",
                wait.as_millis().max(1)
            ),
        )
        .into_response();
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        return r;
    }
    next.run(req).await
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

/// Answers 503 when a request takes longer than `limit`: when the timer fires, and also when
/// the answer came after the limit but before the timer (whose resolution is a millisecond),
/// so that the limit means the same at any length.
async fn time_limit(req: Request, next: Next, limit: Duration) -> Response {
    let t0 = Instant::now();
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(r) if t0.elapsed() <= limit => r,
        _ => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            format!("the request took longer than {} ms", limit.as_millis()),
        )
        .into_response(),
    }
}

/// A path that does not decode (a bad percent-escape, not UTF-8), in the error format (axum's
/// own answer is plain text; found by fuzzing the router).
fn bad_path(e: PathRejection) -> ApiError {
    ApiError::bad_request(
        "bad_path",
        format!("the path cannot be read: {}", e.body_text()),
    )
}

/// A route asked with a method it does not take, in the error format (axum's own answer is
/// plain text; found by fuzzing the router).
async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this endpoint does not take that method (GET and POST /search, POST /ask, GET for the rest)",
    )
}

async fn not_found() -> ApiError {
    ApiError::not_found("route_not_found", "no such endpoint")
}

async fn health(State(st): State<Shared>) -> Result<Json<response::Health>, ApiError> {
    blocking(&st, |st| {
        let index = st.engine.view();
        Ok(Json(response::Health {
            status: "ok",
            generation: index.generation(),
            model: index.model_id().to_string(),
            notes: index.len()?,
        }))
    })
    .await
}

async fn stats(State(st): State<Shared>) -> Result<Json<response::Stats>, ApiError> {
    blocking(&st, |st| {
        let index = st.engine.view();
        Ok(Json(response::Stats {
            stats: index.stats()?,
            failures: index.failures()?,
        }))
    })
    .await
}

async fn documents(State(st): State<Shared>) -> Result<Json<response::Documents>, ApiError> {
    blocking(&st, |st| {
        let links = st.cfg.links();
        let documents = st
            .engine
            .view()
            .documents()?
            .into_iter()
            .map(|d| response::Document::new(d, &links))
            .collect();
        Ok(Json(response::Documents { documents }))
    })
    .await
}

/// `/documents/{doc}/file`: the original file of a document of the index, from `docs_root`.
async fn document_file(
    State(st): State<Shared>,
    rest: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(rest) = rest.map_err(bad_path)?;
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
        if !st.engine.view().documents()?.iter().any(|d| d.doc == doc) {
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
    rest: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(rest) = rest.map_err(bad_path)?;
    blocking(&st, move |st| {
        if let Some(id) = rest.strip_suffix("/image") {
            if let Some(path) = st.engine.image_path(id) {
                let bytes = std::fs::read(&path)
                    .map_err(|e| ApiError::internal(format!("{}: {e}", path.display())))?;
                return Ok(([(header::CONTENT_TYPE, "image/png")], bytes).into_response());
            }
            if st.engine.view().note(id)?.is_none() {
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
            st.engine.view().note(&rest)?.ok_or_else(|| {
                ApiError::not_found("note_not_found", format!("no note {rest:?}"))
            })?;
        let crop_url = st
            .engine
            .image_path(&note.id)
            .map(|_| response::crop_url(&note.id));
        Ok(Json(response::NoteBody { note, crop_url }).into_response())
    })
    .await
}

/// `GET /search`: the query string, converted into the typed request a body is.
async fn search_get(
    State(st): State<Shared>,
    q: Result<Query<SearchQueryGet>, QueryRejection>,
) -> Result<Json<SearchAnswer>, ApiError> {
    let Query(p) = q.map_err(|e| ApiError::bad_request("bad_query_string", e.body_text()))?;
    let req = SearchQuery::try_from(p)?.validate(&st.cfg)?;
    run_search(&st, req).await
}

/// `POST /search`: a JSON body.
async fn search_post(
    State(st): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SearchAnswer>, ApiError> {
    let req = search_body(&st, body)?;
    run_search(&st, req).await
}

/// A search body (`POST /search`, `POST /ask`), validated.
pub(crate) fn search_body(
    st: &Shared,
    body: Result<Bytes, BytesRejection>,
) -> Result<ApiSearch, ApiError> {
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
    let q: SearchQuery = serde_json::from_slice(&body).map_err(|e| {
        ApiError::bad_request("bad_json", format!("the body is not a valid search: {e}"))
    })?;
    q.validate(&st.cfg)
}

/// Waits for a turn in the search queue (searches computed at the same time are limited).
pub(crate) async fn search_turn(st: &Shared) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    st.searches
        .acquire()
        .await
        .map_err(|e| ApiError::internal(format!("the search queue is closed: {e}")))
}

/// Runs a validated search in its turn, once its documents are known to the index.
async fn run_search(st: &Shared, search: ApiSearch) -> Result<Json<SearchAnswer>, ApiError> {
    let _turn = search_turn(st).await?;
    blocking(st, move |st| {
        let ApiSearch { req, group, fields } = search;
        let links = st.cfg.links();
        Ok(Json(match group {
            None => SearchAnswer::Notes(response::Search::new(
                st.engine.search(&req)?,
                &st.engine,
                &links,
                fields,
            )),
            Some(by) => SearchAnswer::Groups(response::Grouped::new(
                st.engine.search_grouped(&req, by)?,
                by,
                &st.engine,
                &links,
                fields,
            )),
        }))
    })
    .await
}
