//! `cds-hybrid` against its definition (a dense M built here from the README's formulas, not
//! from the crate's code), a brute-force enumeration of the KKT points on tiny instances, the
//! structure terms one by one, the fill rules, and the hybrid baselines.

use indexer_rerank::{
    Candidates, CdsHybrid, CdsHybridOptions, CdsOptions, Fill, FusedCap, HybridOptions, NoteInfo,
    Selector, SelectorSpec, hybrid_relevance,
};
use proptest::prelude::*;

use crate::reference::{Inst, instances, kkt, mul, quad};

/// The k of the first stage's reciprocal rank fusion that the candidates carry (the engine's
/// `indexer_index::RRF_K`).
const FIRST_STAGE_K: usize = 60;

/// The structured instance: the candidates' structure drawn from a seed.
#[derive(Debug, Clone)]
struct Hyb {
    inst: Inst,
    info: Vec<NoteInfo>,
}

impl Hyb {
    fn cands(&self) -> Candidates<'_> {
        Candidates {
            info: &self.info,
            rrf_k: Some(FIRST_STAGE_K),
            ..self.inst.cands()
        }
    }
}

fn hybrids(max_n: usize) -> impl Strategy<Value = Hyb> {
    (instances(max_n), any::<u64>()).prop_map(|(inst, seed)| {
        let mut rng = indexer_rerank::SplitMix64::new(seed);
        let n = inst.n();
        let info = (0..n)
            .map(|_| NoteInfo {
                doc: rng.below(2) as u32,
                page: if rng.below(5) == 0 {
                    None
                } else {
                    Some(1 + rng.below(3) as u32)
                },
                visual: rng.below(3) == 0,
                bm25_rank: (rng.below(4) != 0).then(|| 1 + rng.below(n as u64 + 5) as u32),
                vector_rank: (rng.below(4) != 0).then(|| 1 + rng.below(n as u64 + 5) as u32),
            })
            .collect();
        Hyb { inst, info }
    })
}

fn options() -> impl Strategy<Value = CdsHybridOptions> {
    (
        prop::sample::select(vec![0.03, 0.1, 0.3, 1.0, 3.0]),
        0.0f64..=1.0,
        prop::sample::select(vec![0.0, 0.5, 1.0, 2.0, 4.0]),
        prop::sample::select(vec![0.0, 0.5, 1.0, 2.0]),
        prop::sample::select(vec![Some(1.0), Some(10.0), Some(60.0), None]),
    )
        .prop_map(|(beta, page, link, adjacent, k)| CdsHybridOptions {
            cds: CdsOptions {
                beta,
                ..CdsOptions::default()
            },
            hybrid: HybridOptions {
                rrf_k: k,
                page,
                link,
                adjacent,
            },
            fill: Fill::Rank,
            cap: 0,
            stop: 0.0,
        })
}

fn same_page(a: &NoteInfo, b: &NoteInfo) -> bool {
    a.doc == b.doc && a.page.is_some() && a.page == b.page
}

/// M of the definition, (N + 1) x (N + 1), vertex 0 the query:
/// A_0i = s_i; W_ij = beta m_ij ((1 - rho)(1 - z_i . z_j) + rho [different pages]), i != j;
/// M = A - alpha I on the notes.
fn dense_m(h: &Hyb, o: &CdsHybridOptions, alpha: f64) -> Vec<Vec<f64>> {
    let n = h.inst.n();
    let s = hybrid_relevance(&h.cands(), o.hybrid.rrf_k);
    let rho = o.hybrid.page;
    let linked = |i: usize, j: usize| {
        h.inst
            .links
            .iter()
            .any(|&(a, b)| (a, b) == (i, j) || (a, b) == (j, i))
    };
    let mut m = vec![vec![0.0; n + 1]; n + 1];
    for i in 0..n {
        m[0][i + 1] = s[i];
        m[i + 1][0] = s[i];
        for j in 0..n {
            m[i + 1][j + 1] = if i == j {
                -alpha
            } else {
                let page = if same_page(&h.info[i], &h.info[j]) {
                    0.0
                } else {
                    1.0
                };
                let d = (1.0 - rho) * (1.0 - h.inst.sim(i, j)) + rho * page;
                let mult = if !linked(i, j) {
                    1.0
                } else if h.info[i].visual != h.info[j].visual {
                    o.hybrid.link
                } else if !h.info[i].visual {
                    o.hybrid.adjacent
                } else {
                    1.0
                };
                o.cds.beta * mult * d.max(0.0)
            };
        }
    }
    m
}

/// Solves the small dense system `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let k = b.len();
    for c in 0..k {
        let p = (c..k).max_by(|x, y| a[*x][c].abs().total_cmp(&a[*y][c].abs()))?;
        if a[p][c].abs() < 1e-13 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        let pivot = a[c].clone();
        for r in c + 1..k {
            let f = a[r][c] / pivot[c];
            for (v, p) in a[r].iter_mut().zip(&pivot).skip(c) {
                *v -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; k];
    for r in (0..k).rev() {
        let v: f64 = (r + 1..k).map(|q| a[r][q] * x[q]).sum();
        x[r] = (b[r] - v) / a[r][r];
    }
    Some(x)
}

/// Every KKT point of max x'Mx on the simplex, by enumerating supports: on support S,
/// (Mx)_S = lambda 1, 1'x = 1, x_S > 0, and (Mx)_i <= lambda outside S.
fn kkt_points(m: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let v = m.len();
    let mut out = Vec::new();
    for mask in 1u32..(1 << v) {
        let sup: Vec<usize> = (0..v).filter(|i| mask >> i & 1 == 1).collect();
        let k = sup.len();
        let mut a = vec![vec![0.0; k + 1]; k + 1];
        let mut b = vec![0.0; k + 1];
        for (r, &i) in sup.iter().enumerate() {
            for (c, &j) in sup.iter().enumerate() {
                a[r][c] = m[i][j];
            }
            a[r][k] = -1.0;
            a[k][r] = 1.0;
        }
        b[k] = 1.0;
        let Some(sol) = solve(a, b) else { continue };
        if sol[..k].iter().any(|x| *x <= 1e-12) {
            continue;
        }
        let mut x = vec![0.0; v];
        for (r, &i) in sup.iter().enumerate() {
            x[i] = sol[r];
        }
        if kkt(m, &x) < 1e-9 {
            out.push(x);
        }
    }
    out
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 200,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// x is on the simplex, the query vertex is in the support, the KKT conditions hold
    /// against the dense M of the definition, and alpha exceeds lambda_max(W).
    #[test]
    fn equilibrium_is_a_kkt_point_of_the_definition(h in hybrids(30), o in options()) {
        let sol = CdsHybrid { options: o }.equilibrium(&h.cands()).unwrap();
        let x = &sol.x;
        let d = &sol.diagnostics;
        prop_assert_eq!(x.len(), h.inst.n() + 1);
        prop_assert!(x.iter().all(|v| *v >= 0.0));
        prop_assert!((x.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        prop_assert!(x[0] > 0.0, "query vertex left the support: {:?}", x);
        let m = dense_m(&h, &o, d.alpha);
        prop_assert!(kkt(&m, x) < 1e-6, "KKT {} (solver says {})", kkt(&m, x), d.kkt_residual);
        // alpha = lambda_max(W) + eps: W - (alpha - eps / 2) I has no positive direction
        // along a few power-iteration steps from the all-ones start.
        let n = h.inst.n();
        let w: Vec<Vec<f64>> = (1..=n).map(|i| (1..=n).map(|j| if i == j { 0.0 } else { m[i][j] }).collect()).collect();
        let mut v = vec![1.0; n];
        for _ in 0..200 {
            let u = mul(&w, &v);
            let norm = u.iter().map(|a| a * a).sum::<f64>().sqrt();
            if norm == 0.0 { break; }
            v = u.iter().map(|a| a / norm).collect();
        }
        let rayleigh = quad(&w, &v) / v.iter().map(|a| a * a).sum::<f64>();
        prop_assert!(rayleigh <= d.lambda_max + 1e-6);
        prop_assert!(d.alpha > d.lambda_max);
    }

    /// On tiny instances the solver's equilibrium is the best KKT point of the program.
    #[test]
    fn agrees_with_brute_force(h in hybrids(6), o in options()) {
        let sol = CdsHybrid { options: o }.equilibrium(&h.cands()).unwrap();
        let m = dense_m(&h, &o, sol.diagnostics.alpha);
        let points = kkt_points(&m);
        prop_assert!(!points.is_empty());
        let best = points.iter().map(|p| quad(&m, p)).fold(f64::NEG_INFINITY, f64::max);
        let got = quad(&m, &sol.x);
        prop_assert!(got >= best - 1e-7, "objective {} < best KKT point {}", got, best);
        prop_assert!(points.iter().any(|p| p.iter().zip(&sol.x).all(|(a, b)| (a - b).abs() < 1e-5)));
    }

    /// `stop`: the evidence set is the notes whose equilibrium weight is at least `stop` times
    /// the largest (computed here from the equilibrium), at most B of them, none filled in.
    #[test]
    fn stop_sizes_the_set_by_the_weights(h in hybrids(25), o in options(), b in 1usize..12,
                                         stop in 0.05f64..1.0) {
        let c = h.cands();
        let x = CdsHybrid { options: o }.equilibrium(&c).unwrap().x;
        let w = &x[1..];
        let top = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let thr = o.cds.support_threshold;
        let kept: Vec<usize> = (0..w.len()).filter(|&i| w[i] > thr && w[i] >= stop * top).collect();
        let sel = CdsHybrid { options: CdsHybridOptions { stop, ..o } }.select(&c, b).unwrap();
        prop_assert_eq!(sel.indices.len(), kept.len().min(b));
        for i in &sel.indices {
            prop_assert!(kept.contains(i), "{} is below the stop", i);
        }
        prop_assert_eq!(sel.diagnostics.unwrap().filled, 0);
    }

    /// Every fill rule returns distinct notes, at most B; `rank` and `peel` return B when
    /// there are B candidates; `none` returns the dominant set alone.
    #[test]
    fn fill_rules(h in hybrids(25), o in options(), b in 1usize..12) {
        let n = h.inst.n();
        for (fill, cap) in [Fill::None, Fill::Rank, Fill::RankPage, Fill::Peel]
            .into_iter()
            .flat_map(|f| [(f, 0), (f, 1)])
        {
            let sel = CdsHybrid { options: CdsHybridOptions { fill, cap, ..o } }
                .select(&h.cands(), b)
                .unwrap();
            let mut seen = sel.indices.clone();
            seen.sort_unstable();
            seen.dedup();
            prop_assert_eq!(seen.len(), sel.indices.len());
            prop_assert!(sel.indices.len() <= b.min(n));
            let d = sel.diagnostics.unwrap();
            match fill {
                Fill::None => prop_assert_eq!(sel.indices.len(), d.support_size.min(b)),
                Fill::Rank | Fill::RankPage => prop_assert_eq!(sel.indices.len(), b.min(n)),
                Fill::Peel => {}
            }
            prop_assert_eq!(d.filled, sel.indices.len() - d.support_size.min(b));
        }
    }

    /// fused-cap: the first notes cover distinct pages while there are pages left, and a cap
    /// at least N is the fused order.
    #[test]
    fn fused_cap_covers_pages_first(h in hybrids(25), b in 1usize..12) {
        let c = h.cands();
        let sel = FusedCap::default().select(&c, b).unwrap();
        let key = |i: usize| (h.info[i].doc, h.info[i].page.map_or(-(i as i64) - 1, i64::from));
        let mut pages: Vec<_> = (0..h.inst.n()).map(key).collect();
        pages.sort_unstable();
        pages.dedup();
        let first: Vec<_> = sel.indices.iter().take(pages.len()).map(|i| key(*i)).collect();
        let mut distinct = first.clone();
        distinct.sort_unstable();
        distinct.dedup();
        prop_assert_eq!(distinct.len(), first.len());
        let all = FusedCap { cap: 1000, ..FusedCap::default() }.select(&c, b).unwrap();
        let s = hybrid_relevance(&c, FusedCap::default().rrf_k);
        prop_assert!(all.indices.windows(2).all(|w| s[w[0]] >= s[w[1]]));
    }
}

/// Orthogonal unit vectors e_0..e_{n-1} in dimension n + 1, and the query e_n mixed in.
fn orthogonal(n: usize) -> (Vec<f32>, Vec<f32>) {
    let dim = n + 1;
    let mut notes = vec![0f32; n * dim];
    for i in 0..n {
        notes[i * dim + i] = 1.0;
    }
    let mut q = vec![0f32; dim];
    q[n] = 1.0;
    (q, notes)
}

fn info(page: u32, visual: bool, rank: u32) -> NoteInfo {
    NoteInfo {
        doc: 0,
        page: Some(page),
        visual,
        bm25_rank: Some(rank),
        vector_rank: Some(rank),
    }
}

fn weights(o: CdsHybridOptions, c: &Candidates<'_>) -> Vec<f64> {
    CdsHybrid { options: o }.equilibrium(c).unwrap().x[1..].to_vec()
}

fn opts(page: f64, link: f64, adjacent: f64) -> CdsHybridOptions {
    CdsHybridOptions {
        cds: CdsOptions {
            beta: 1.0,
            ..CdsOptions::default()
        },
        hybrid: HybridOptions {
            rrf_k: None,
            page,
            link,
            adjacent,
        },
        fill: Fill::None,
        cap: 0,
        stop: 0.0,
    }
}

/// Two notes on one page and one on another page, a little less relevant: the page term moves
/// weight from the second note of the shared page to the other page.
#[test]
fn same_page_is_redundant() {
    let (q, notes) = orthogonal(3);
    let inf = [info(1, false, 1), info(1, false, 2), info(2, false, 3)];
    let c = Candidates {
        info: &inf,
        rrf_k: Some(FIRST_STAGE_K),
        ..Candidates::new(&q, &notes, 4)
    };
    let flat = weights(opts(0.0, 1.0, 1.0), &c);
    assert!(flat[1] > flat[2], "{flat:?}");
    let paged = weights(opts(0.8, 1.0, 1.0), &c);
    assert!(paged[2] > paged[1], "{paged:?}");
}

/// A figure linked to one of two equally relevant text notes: with link > 1 the linked text
/// gains weight over the unlinked one; with link = 1 they tie.
#[test]
fn caption_link_is_complementary() {
    let (q, notes) = orthogonal(3);
    let inf = [info(1, true, 1), info(2, false, 2), info(3, false, 2)];
    let links = [(0, 1)];
    let c = Candidates {
        info: &inf,
        links: &links,
        rrf_k: Some(FIRST_STAGE_K),
        ..Candidates::new(&q, &notes, 4)
    };
    let plain = weights(opts(0.0, 1.0, 1.0), &c);
    assert!((plain[1] - plain[2]).abs() < 1e-9, "{plain:?}");
    let linked = weights(opts(0.0, 2.0, 1.0), &c);
    assert!(linked[1] > linked[2] + 1e-6, "{linked:?}");
}

/// Adjacent text chunks: a multiplier below 1 makes a linked chunk weigh less than an
/// unlinked one of the same relevance.
#[test]
fn adjacent_chunks_weight() {
    let (q, notes) = orthogonal(3);
    let inf = [info(1, false, 1), info(2, false, 2), info(3, false, 2)];
    let links = [(0, 1), (1, 0)];
    let c = Candidates {
        info: &inf,
        links: &links,
        rrf_k: Some(FIRST_STAGE_K),
        ..Candidates::new(&q, &notes, 4)
    };
    let w = weights(opts(0.0, 1.0, 0.2), &c);
    assert!(w[1] < w[2] - 1e-6, "{w:?}");
    let w = weights(opts(0.0, 1.0, 2.0), &c);
    assert!(w[1] > w[2] + 1e-6, "{w:?}");
}

/// The hybrid relevance is reciprocal rank fusion divided by its maximum: in (0, 1], and in
/// the fused order.
#[test]
fn hybrid_relevance_is_normalised_rrf() {
    let (q, notes) = orthogonal(3);
    let inf = [
        NoteInfo {
            bm25_rank: Some(1),
            vector_rank: Some(2),
            ..NoteInfo::default()
        },
        NoteInfo {
            bm25_rank: None,
            vector_rank: Some(1),
            ..NoteInfo::default()
        },
        NoteInfo {
            bm25_rank: Some(2),
            vector_rank: None,
            ..NoteInfo::default()
        },
    ];
    let c = Candidates {
        info: &inf,
        rrf_k: Some(FIRST_STAGE_K),
        ..Candidates::new(&q, &notes, 4)
    };
    let s = hybrid_relevance(&c, Some(60.0));
    let f = [1.0 / 61.0 + 1.0 / 62.0, 1.0 / 61.0, 1.0 / 62.0];
    for i in 0..3 {
        assert!((s[i] - f[i] / f[0]).abs() < 1e-12);
    }
    // Without fused scores, the default fuses the ranks the same way.
    assert_eq!(hybrid_relevance(&c, None), s);
    // With the first stage's fused scores (which may hold more than the note's own ranks,
    // its page's), the default takes them; an explicit k fuses the ranks again.
    let fused = [0.01, 0.04, 0.02];
    let c = Candidates { fused: &fused, ..c };
    assert_eq!(hybrid_relevance(&c, None), vec![0.25, 1.0, 0.5]);
    assert_eq!(hybrid_relevance(&c, Some(60.0)), s);
}

#[test]
fn specs_parse_and_print_back() {
    for text in [
        "cds-hybrid",
        "cds-hybrid:beta=0.3:page=0.5:fill=peel",
        "cds-hybrid:cap=1",
        "fused-cap:cap=2",
        "mmr-hybrid:lambda=0.7:page=0.5",
        "dpp-hybrid:theta=3:k=10",
        "mmr:lambda=0.3",
    ] {
        let spec: SelectorSpec = text.parse().unwrap();
        assert_eq!(spec.to_string(), text);
    }
    for bad in [
        "cds-hybrid:gamma=1",
        "cds-hybrid:beta",
        "cds-hybrid:page=2",
        "cds-hybrid:fill=some",
        "fused-cap:cap=0",
        "cosine:lambda=1",
        "nope",
    ] {
        assert!(bad.parse::<SelectorSpec>().is_err(), "{bad}");
    }
}
