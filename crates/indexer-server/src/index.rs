//! The routes that read the index without a search: `/health`, `/stats`, `/documents`, a
//! document's file, and a note and its image.

use crate::error::ApiError;
use crate::response;
use crate::state::{Shared, blocking};
use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use indexer_engine::safe_child;

/// A path that does not decode (a bad percent-escape, not UTF-8), in the error format (axum's
/// own answer is plain text; found by fuzzing the router).
fn bad_path(e: PathRejection) -> ApiError {
    ApiError::bad_request(
        "bad_path",
        format!("the path cannot be read: {}", e.body_text()),
    )
}

/// `GET /health`: the generation that answers, its model and its notes.
pub(crate) async fn health(State(st): State<Shared>) -> Result<Json<response::Health>, ApiError> {
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

/// `GET /stats`: the index's statistics and the files the last ingests could not read.
pub(crate) async fn stats(State(st): State<Shared>) -> Result<Json<response::Stats>, ApiError> {
    blocking(&st, |st| {
        let index = st.engine.view();
        Ok(Json(response::Stats {
            stats: index.stats()?,
            failures: index.failures()?,
        }))
    })
    .await
}

/// `GET /documents`: the documents of the index, with the links to their files.
pub(crate) async fn documents(
    State(st): State<Shared>,
) -> Result<Json<response::Documents>, ApiError> {
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
pub(crate) async fn document_file(
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
pub(crate) async fn note_or_image(
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
