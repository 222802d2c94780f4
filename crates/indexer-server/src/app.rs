//! The application: the router over the handlers, the middleware (time limit, rate limit,
//! CORS, body limit) and the answers of the routes that do not exist.

use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::rate::RateLimiter;
use crate::state::AppState;
use crate::{ask, index, page, search};
use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use indexer_engine::Engine;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower_http::cors::{AllowOrigin, CorsLayer};

/// The whole application: API, page, widget, limits and CORS.
pub fn router(engine: Arc<Engine>, cfg: ServerConfig) -> Router {
    let timeout = cfg.timeout;
    let ask_timeout = cfg.llm.as_ref().map_or(timeout, |l| l.config().timeout);
    let max_body = cfg.max_body;
    let cors = cors_layer(&cfg.cors_origins);
    let limiter = cfg.rate_limit.map(|n| Arc::new(RateLimiter::new(n)));
    let state = Arc::new(AppState::new(engine, cfg));
    let mut app = Router::new()
        .route("/", get(page::index))
        .route("/widget.js", get(page::widget))
        .route("/health", get(index::health))
        .route("/search", get(search::search_get).post(search::search_post))
        .route("/ask", post(ask::ask))
        .route("/notes/{*id}", get(index::note_or_image))
        .route("/documents", get(index::documents))
        .route("/documents/{*doc}", get(index::document_file))
        .route("/stats", get(index::stats))
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
