//! `GET` and `POST /search`: a validated search run in its turn of the search queue, answered
//! as an evidence set or as groups.

use crate::error::ApiError;
use crate::request::{ApiSearch, SearchQuery, SearchQueryGet, search_body};
use crate::response::{self, SearchAnswer};
use crate::state::{Shared, blocking, search_turn};
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, State};

/// `GET /search`: the query string, converted into the typed request a body is.
pub(crate) async fn search_get(
    State(st): State<Shared>,
    q: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Json<SearchAnswer>, ApiError> {
    let Query(pairs) = q.map_err(|e| ApiError::bad_request("bad_query_string", e.body_text()))?;
    let req = SearchQuery::try_from(SearchQueryGet::from_pairs(pairs)?)?.validate(&st.cfg)?;
    run_search(&st, req).await
}

/// `POST /search`: a JSON body.
pub(crate) async fn search_post(
    State(st): State<Shared>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<SearchAnswer>, ApiError> {
    let req = search_body(&st.cfg, body)?;
    run_search(&st, req).await
}

/// Runs a validated search in its turn, once its documents are known to the index.
async fn run_search(st: &Shared, search: ApiSearch) -> Result<Json<SearchAnswer>, ApiError> {
    let _turn = search_turn(st).await?;
    blocking(st, move |st| {
        let ApiSearch { req, group, fields } = search;
        let links = st.cfg.links();
        Ok(Json(match group {
            None => SearchAnswer::Notes(Box::new(response::Search::new(
                st.engine.search(&req)?,
                &st.engine,
                &links,
                fields,
            ))),
            Some(by) => SearchAnswer::Groups(Box::new(response::Grouped::new(
                st.engine.search_grouped(&req, by)?,
                by,
                &st.engine,
                &links,
                fields,
            ))),
        }))
    })
    .await
}
