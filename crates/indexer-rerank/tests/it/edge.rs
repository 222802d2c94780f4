use indexer_rerank::{
    Candidates, CdsOptions, CdsSelector, Error, Selector, SelectorKind, selector,
};

fn all(
    c: &Candidates<'_>,
    b: usize,
) -> Vec<(
    SelectorKind,
    indexer_rerank::Result<indexer_rerank::Selection>,
)> {
    SelectorKind::ALL
        .into_iter()
        .map(|k| (k, selector(k).select(c, b)))
        .collect()
}

#[test]
fn names_round_trip() {
    for k in SelectorKind::ALL {
        assert_eq!(k.to_string().parse::<SelectorKind>().unwrap(), k);
        assert_eq!(selector(k).name(), k.as_str());
    }
    assert!(matches!(
        "bm25".parse::<SelectorKind>(),
        Err(Error::UnknownSelector(_))
    ));
}

#[test]
fn no_candidates() {
    let q = [1.0f32, 0.0];
    let c = Candidates::new(&q, &[], 2);
    for (k, r) in all(&c, 10) {
        let s = r.unwrap_or_else(|e| panic!("{k}: {e}"));
        assert!(s.indices.is_empty(), "{k}");
        if let Some(d) = s.diagnostics {
            assert_eq!(
                (d.x_query, d.objective, d.support_size),
                (1.0, 0.0, 0),
                "{k}"
            );
        }
    }
}

#[test]
fn fewer_notes_than_budget() {
    let data = indexer_rerank::synth::clustered(4, 8, 2, 0.5, 1);
    let c = Candidates::new(&data.query, &data.notes, 8);
    for (k, r) in all(&c, 10) {
        let s = r.unwrap();
        assert!(s.indices.len() <= 4, "{k}");
        assert_eq!(s.indices.len(), s.scores.len());
        if matches!(
            k,
            SelectorKind::Cosine | SelectorKind::Mmr | SelectorKind::Ppr | SelectorKind::Random
        ) {
            assert_eq!(s.indices.len(), 4, "{k}");
        }
    }
    let fill = CdsOptions::builder().fill(true).build().unwrap();
    let s = CdsSelector::exact(fill).unwrap().select(&c, 10).unwrap();
    assert_eq!(s.indices.len(), 4);
}

#[test]
fn duplicate_notes() {
    // Notes 0 and 1 are the same vector, the most relevant one; note 2 is another direction.
    let q = [1.0f32, 0.0, 0.0];
    let a = [0.8f32, 0.6, 0.0];
    let notes: Vec<f32> = [a, a, [0.6, 0.0, 0.8]].concat();
    let c = Candidates::new(&q, &notes, 3);
    let cos = selector(SelectorKind::Cosine).select(&c, 2).unwrap();
    assert_eq!(cos.indices, vec![0, 1]);
    assert_eq!(
        selector(SelectorKind::Mmr).select(&c, 2).unwrap().indices,
        vec![0, 2]
    );
    assert_eq!(
        selector(SelectorKind::Dpp).select(&c, 3).unwrap().indices,
        vec![0, 2]
    );
    let exact = selector(SelectorKind::CdsExact).select(&c, 3).unwrap();
    let d = exact.diagnostics.unwrap();
    assert!(d.converged, "{d:?}");
    if exact.indices.contains(&0) && exact.indices.contains(&1) {
        let w: Vec<f64> = exact.scores.clone();
        assert!((w[0] - w[1]).abs() < 1e-9 || exact.indices.len() > 2);
    }
}

#[test]
fn notes_orthogonal_to_the_query() {
    let q = [1.0f32, 0.0, 0.0];
    let notes = [0.0f32, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.6, 0.8];
    let c = Candidates::new(&q, &notes, 3);
    let exact = selector(SelectorKind::CdsExact).select(&c, 2).unwrap();
    assert!(exact.indices.is_empty());
    let d = exact.diagnostics.unwrap();
    assert_eq!(d.x_query, 1.0);
    assert!(d.kkt_residual < 1e-12);
    let paper = selector(SelectorKind::CdsPaper).select(&c, 2).unwrap();
    assert!(paper.diagnostics.unwrap().x_query > 0.5);
    // Everything else ranks with all relevances 0: ties to the lower index.
    assert_eq!(
        selector(SelectorKind::Cosine)
            .select(&c, 2)
            .unwrap()
            .indices,
        vec![0, 1]
    );
    assert_eq!(
        selector(SelectorKind::Ppr).select(&c, 2).unwrap().indices,
        vec![0, 1]
    );
}

#[test]
fn zero_vectors_are_accepted() {
    let q = [1.0f32, 0.0];
    let notes = [0.0f32, 0.0, 1.0, 0.0, 0.6, 0.8];
    let c = Candidates::new(&q, &notes, 2);
    for (k, r) in all(&c, 3) {
        let s = r.unwrap_or_else(|e| panic!("{k}: {e}"));
        if k == SelectorKind::Dpp {
            assert!(!s.indices.contains(&0), "DPP picked the zero vector");
        }
        if let Some(d) = s.diagnostics {
            assert!(d.objective.is_finite());
        }
    }
    let zero_query = [0.0f32, 0.0];
    let c = Candidates::new(&zero_query, &notes, 2);
    assert!(
        selector(SelectorKind::CdsExact)
            .select(&c, 3)
            .unwrap()
            .indices
            .is_empty()
    );
}

#[test]
fn bad_input_is_an_error() {
    let q = [1.0f32, 0.0];
    let nan = [f32::NAN, 0.0];
    let c = Candidates::new(&q, &nan, 2);
    for (k, r) in all(&c, 3) {
        assert!(matches!(r, Err(Error::NonFinite { .. })), "{k}: {r:?}");
    }
    let c = Candidates::new(&nan, &q, 2);
    assert!(matches!(
        selector(SelectorKind::CdsPaper).select(&c, 1),
        Err(Error::NonFinite { .. })
    ));
    let long = [3.0f32, 4.0];
    assert!(matches!(
        Candidates::new(&q, &long, 2).validate(),
        Err(Error::NotUnit { .. })
    ));
    assert!(matches!(
        Candidates::new(&q, &[1.0, 0.0, 1.0], 2).validate(),
        Err(Error::NotesShape { .. })
    ));
    assert!(matches!(
        Candidates::new(&q, &q, 3).validate(),
        Err(Error::QueryDim { .. })
    ));
    assert!(matches!(
        Candidates::new(&[], &[], 0).validate(),
        Err(Error::ZeroDim)
    ));
    let links = [(0, 5)];
    let c = Candidates {
        links: &links,
        ..Candidates::new(&q, &q, 2)
    };
    assert!(matches!(c.validate(), Err(Error::LinkOutOfRange { .. })));
    assert!(CdsOptions::builder().beta(0.0).build().is_err());
    assert!(CdsOptions::builder().eps(-1.0).build().is_err());
    assert!(
        CdsOptions::builder()
            .prior(indexer_rerank::Prior::QuerySoftmax { t: 0.0 })
            .build()
            .is_err()
    );
}
