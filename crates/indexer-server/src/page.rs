//! The search page at `/` and the embeddable `/widget.js`, built from the files in `assets/`.

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::OnceLock;

const PAGE: &str = include_str!("../assets/page.html");
const CSS: &str = include_str!("../assets/search.css");
const JS: &str = include_str!("../assets/search.js");

pub(crate) async fn index() -> Html<&'static str> {
    static BUILT: OnceLock<String> = OnceLock::new();
    Html(BUILT.get_or_init(|| PAGE.replace("/*CSS*/", CSS).replace("/*JS*/", JS)))
}

pub(crate) async fn widget() -> Response {
    static BUILT: OnceLock<String> = OnceLock::new();
    let body = BUILT.get_or_init(|| {
        let css = serde_json::to_string(CSS).expect("a string serializes");
        format!(
            "(function(){{\nconst INDEXER_CSS = {css};\n{JS}\nindexerWidget(INDEXER_CSS);\n}})();\n"
        )
    });
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        body.as_str(),
    )
        .into_response()
}
