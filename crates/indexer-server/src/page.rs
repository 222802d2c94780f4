//! The search page at `/` and the embeddable `/widget.js`, built from the files in `assets/`.

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use std::sync::OnceLock;

const PAGE: &str = include_str!("../assets/page.html");
const CSS: &str = include_str!("../assets/search.css");
const JS: &str = include_str!("../assets/search.js");

/// The search parameters the page and the widget send beside `q`: results grouped by
/// document (five, each with its best notes), as-you-type matching, snippets of two lines,
/// and only the fields they show. Written into the script, and used by the benchmark that
/// measures what they cost.
pub const PAGE_SEARCH_PARAMS: &str = "group=document&budget=5&matching=typing&snippet_chars=180&fields=doc,page,kind,caption,section,url,snippet_html,crop_url";

/// The script with the page's search parameters in it.
fn script() -> String {
    JS.replace("/*PARAMS*/", PAGE_SEARCH_PARAMS)
}

pub(crate) async fn index() -> Html<&'static str> {
    static BUILT: OnceLock<String> = OnceLock::new();
    Html(BUILT.get_or_init(|| PAGE.replace("/*CSS*/", CSS).replace("/*JS*/", &script())))
}

pub(crate) async fn widget() -> Response {
    static BUILT: OnceLock<String> = OnceLock::new();
    let body = BUILT.get_or_init(|| {
        let css = serde_json::to_string(CSS).expect("a string serializes");
        format!(
            "(function(){{\nconst INDEXER_CSS = {css};\n{}\nindexerWidget(INDEXER_CSS);\n}})();\n",
            script()
        )
    });
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        body.as_str(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_script_carries_the_page_parameters() {
        let js = super::script();
        assert!(!js.contains("/*PARAMS*/"));
        assert!(js.contains(super::PAGE_SEARCH_PARAMS));
    }
}
