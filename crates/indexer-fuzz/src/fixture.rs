//! The index the targets search: three Markdown documents ingested once per process with the
//! real encoder, and the router of `indexer serve` over it.

use indexer_engine::{Engine, IngestConfig, Runtime};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub index: PathBuf,
    pub engine: Arc<Engine>,
    pub router: axum::Router,
    pub rt: tokio::runtime::Runtime,
}

const DOCS: [(&str, &str); 3] = [
    (
        "guide/mosaic.md",
        "# Mosaic plots\n\nA mosaic plot shows the joint distribution of two categorical \
         variables: the area of each tile is proportional to the count of its cell.\n\n\
         ## Shading\n\nResiduals of an independence model shade the tiles: blue for more \
         than expected, red for fewer.\n\n![A mosaic plot](mosaic.png)\n",
    ),
    (
        "hnsw.md",
        "# Graph search\n\nHierarchical navigable small world graphs answer approximate \
         nearest neighbour queries in logarithmic time.\n\n| ef | recall |\n|----|--------|\n\
         | 16 | 0.91 |\n| 64 | 0.99 |\n",
    ),
    (
        "site/index.html",
        "<html><head><title>Selectors</title></head><body><h1 id=\"cds\">Constrained \
         dominant sets</h1><p>Replicator dynamics find a dense subgraph around the \
         query.</p><section id=\"mmr\"><h2>MMR</h2><p>Maximal marginal relevance trades \
         relevance for novelty.</p></section></body></html>",
    ),
];

fn runtime() -> Runtime {
    Runtime::discover()
        .or_else(|_| {
            let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
            Runtime::discover_from(None, &root, Path::new(""))
        })
        .expect("the runtime is missing: run tools/setup (or set INDEXER_RUNTIME)")
}

pub(crate) fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let rt = runtime();
        let encoder = Arc::new(
            indexer_engine::load_encoder(&rt, indexer_engine::DEFAULT_MODEL, 1)
                .expect("the encoder cannot be loaded: run tools/setup"),
        );
        let dir = tempfile::tempdir().expect("a temporary folder");
        let docs = dir.path().join("docs");
        for (name, text) in DOCS {
            let p = docs.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let index = dir.path().join("index");
        let cfg = IngestConfig::new(&index, &docs, std::process::Command::new("false"));
        indexer_engine::ingest(
            std::slice::from_ref(&docs),
            &cfg,
            encoder.as_ref(),
            &mut |_| {},
        )
        .expect("ingest of the fixture documents");
        let engine = Arc::new(Engine::with_encoder(&index, encoder).expect("open the index"));
        let router =
            indexer_server::router(engine.clone(), indexer_server::ServerConfig::default());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        Fixture {
            _dir: dir,
            index,
            engine,
            router,
            rt,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The targets search something: all three documents are in, and a question finds its note.
    #[test]
    fn the_fixture_index_answers() {
        let f = fixture();
        let view = f.engine.view();
        assert_eq!(view.documents().unwrap().len(), 3);
        let r = f
            .engine
            .search(&indexer_engine::SearchRequest::new("mosaic plot tiles"))
            .unwrap();
        assert_eq!(r.hits[0].note.doc, "guide/mosaic.md");
    }
}
