//! The words BM25 indexes, as the searched fields analyse them (`en_stem`: split on
//! non-alphanumerics, long tokens dropped, lower case, English stems). For a BM25 engine
//! outside tantivy (the Milvus backend), so that it indexes and searches the same terms.

use std::sync::OnceLock;
use tantivy::tokenizer::{TextAnalyzer, TokenStream, TokenizerManager};

/// The searched fields' tokenizer (`index_schema/`): every text field with a boost uses it.
const SEARCHED_TOKENIZER: &str = "en_stem";

fn analyzer() -> TextAnalyzer {
    static ANALYZER: OnceLock<TextAnalyzer> = OnceLock::new();
    ANALYZER
        .get_or_init(|| {
            TokenizerManager::default()
                .get(SEARCHED_TOKENIZER)
                .expect("tantivy registers en_stem")
        })
        .clone()
}

/// The terms of `text` in order, as a BM25 field of the index holds them.
pub fn analyze(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// The terms of each of `texts`, as [`analyze`] gives them, with one analyser for all (making
/// one costs more than analysing a short text).
pub fn analyze_many<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<Vec<String>> {
    let mut a = analyzer();
    texts
        .into_iter()
        .map(|text| {
            let mut stream = a.token_stream(text);
            let mut out = Vec::new();
            while stream.advance() {
                out.push(stream.token().text.clone());
            }
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_lowercases_like_the_searched_fields() {
        assert_eq!(
            analyze("Shading the Mosaic plots' tiles, 2015"),
            ["shade", "the", "mosaic", "plot", "tile", "2015"]
        );
        assert!(analyze("  ,;  ").is_empty());
        assert_eq!(
            analyze_many(["Shading tiles", "", "plots"]),
            [vec!["shade", "tile"], vec![], vec!["plot"]]
        );
    }
}
