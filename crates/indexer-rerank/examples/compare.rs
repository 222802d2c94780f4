//! The paper's dynamics against the exact equilibrium on clustered unit vectors: iterations,
//! KKT residual, x_q, support and top-10 overlap, as a Markdown table.
//!
//! `cargo run --release -p indexer-rerank --example compare`

use indexer_rerank::{Candidates, CdsOptions, CdsSelector, synth};

fn main() {
    println!(
        "| N | d | seed | paper steps | paper KKT | paper x_q | exact KKT | exact x_q | exact support | top-10 overlap | paper ms | exact ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (n, d) in [(100, 384), (300, 384), (1000, 768)] {
        for seed in 1..=3u64 {
            let data = synth::clustered(n, d, 10, 0.5, seed);
            let c = Candidates::new(&data.query, &data.notes, d);
            let (p, _) = CdsSelector::paper(CdsOptions::default())
                .unwrap()
                .solve(&c, 10)
                .unwrap();
            let (e, _) = CdsSelector::exact(CdsOptions::default())
                .unwrap()
                .solve(&c, 10)
                .unwrap();
            let overlap = p.indices.iter().filter(|i| e.indices.contains(i)).count();
            let (dp, de) = (p.diagnostics.unwrap(), e.diagnostics.unwrap());
            println!(
                "| {n} | {d} | {seed} | {} | {:.3} | {:.3} | {:.1e} | {:.3} | {} | {overlap} | {:.1} | {:.2} |",
                dp.iterations,
                dp.kkt_residual,
                dp.x_query,
                de.kkt_residual,
                de.x_query,
                de.support_size,
                dp.seconds * 1e3,
                de.seconds * 1e3
            );
        }
    }
}
