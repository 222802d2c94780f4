//! Evaluation metrics, each a plain function over plain data so tests can check them against
//! values computed by hand.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A page of a document: (document id, 1-based page).
pub type PageRef = (String, u32);

/// Gold evidence pages of one question, per document.
pub type GoldPages = BTreeMap<String, Vec<u32>>;

fn gold_set(gold: &GoldPages) -> BTreeSet<(&str, u32)> {
    gold.iter()
        .flat_map(|(d, ps)| ps.iter().map(move |p| (d.as_str(), *p)))
        .collect()
}

/// Gold page recall of a selection: the fraction of gold evidence pages that at least one
/// selected note lies on. `None` when the question has no gold pages (unanswerable).
pub fn page_recall(selected: &[PageRef], gold: &GoldPages) -> Option<f64> {
    let gold = gold_set(gold);
    if gold.is_empty() {
        return None;
    }
    let got: BTreeSet<(&str, u32)> = selected.iter().map(|(d, p)| (d.as_str(), *p)).collect();
    let found = gold.iter().filter(|g| got.contains(*g)).count();
    Some(found as f64 / gold.len() as f64)
}

/// Whether at least one selected note lies on a gold page. `None` for unanswerable questions.
pub fn hit(selected: &[PageRef], gold: &GoldPages) -> Option<bool> {
    page_recall(selected, gold).map(|r| r > 0.0)
}

/// Mean pairwise cosine of the selected notes (unit vectors, row-major `n x dim`); 0 when fewer
/// than two notes are selected.
pub fn redundancy(vectors: &[f32], dim: usize) -> f64 {
    let n = vectors.len().checked_div(dim).unwrap_or(0);
    if n < 2 {
        return 0.0;
    }
    let mut sum = 0.0f64;
    for i in 0..n {
        for j in (i + 1)..n {
            let a = &vectors[i * dim..(i + 1) * dim];
            let b = &vectors[j * dim..(j + 1) * dim];
            sum += a
                .iter()
                .zip(b)
                .map(|(x, y)| (*x as f64) * (*y as f64))
                .sum::<f64>();
        }
    }
    sum / (n * (n - 1) / 2) as f64
}

/// Ranks pages by the best score of a note on them (higher first). Ties are broken by the order
/// in which the pages first appear in `scored`, which callers give in rank order, so the ranking
/// is deterministic.
pub fn rank_pages(scored: &[(PageRef, f64)]) -> Vec<PageRef> {
    let mut best: HashMap<&PageRef, (f64, usize)> = HashMap::new();
    for (i, (page, s)) in scored.iter().enumerate() {
        let e = best.entry(page).or_insert((*s, i));
        if *s > e.0 {
            e.0 = *s;
        }
    }
    let mut pages: Vec<(&PageRef, (f64, usize))> = best.into_iter().collect();
    pages.sort_by(|a, b| b.1.0.total_cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
    pages.into_iter().map(|(p, _)| p.clone()).collect()
}

/// Page Recall@k as MMDocIR defines it: the gold pages found among the top `k` ranked pages,
/// over all gold pages of the question. `None` for questions without gold pages.
pub fn page_recall_at(ranked: &[PageRef], gold: &GoldPages, k: usize) -> Option<f64> {
    let top: Vec<PageRef> = ranked.iter().take(k).cloned().collect();
    page_recall(&top, gold)
}

/// nDCG@k with linear gains (the trec_eval definition BEIR reports): DCG = sum over ranks
/// i = 1..k of rel_i / log2(i + 1), normalised by the DCG of the ideal ordering of the judged
/// documents. Returns 0 when the query has no relevant document.
pub fn ndcg_at(ranked: &[&str], qrels: &HashMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| qrels.get(*d).copied().unwrap_or(0) as f64 / ((i + 2) as f64).log2())
        .sum();
    let mut ideal: Vec<u32> = qrels.values().copied().filter(|r| *r > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, r)| *r as f64 / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

/// Recall@k: relevant documents (score > 0) in the top `k`, over all relevant documents.
pub fn recall_at(ranked: &[&str], qrels: &HashMap<String, u32>, k: usize) -> f64 {
    let relevant = qrels.values().filter(|r| **r > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| qrels.get(**d).is_some_and(|r| *r > 0))
        .count();
    found as f64 / relevant as f64
}

/// Running mean.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Mean {
    pub sum: f64,
    pub n: usize,
}

impl Mean {
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.n += 1;
    }
    pub fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gold(pairs: &[(&str, &[u32])]) -> GoldPages {
        pairs
            .iter()
            .map(|(d, p)| (d.to_string(), p.to_vec()))
            .collect()
    }
    fn pages(pairs: &[(&str, u32)]) -> Vec<PageRef> {
        pairs.iter().map(|(d, p)| (d.to_string(), *p)).collect()
    }

    #[test]
    fn page_recall_and_hit_by_hand() {
        let g = gold(&[("a.pdf", &[2, 5]), ("b.pdf", &[1])]);
        // Two notes on page 2 of a.pdf count once; b.pdf page 2 is not gold: 1 of 3 gold pages.
        let sel = pages(&[("a.pdf", 2), ("a.pdf", 2), ("b.pdf", 2)]);
        assert_eq!(page_recall(&sel, &g), Some(1.0 / 3.0));
        assert_eq!(hit(&sel, &g), Some(true));
        // The page number alone is not enough: page 5 of b.pdf is not page 5 of a.pdf.
        assert_eq!(page_recall(&pages(&[("b.pdf", 5)]), &g), Some(0.0));
        assert_eq!(hit(&pages(&[("b.pdf", 5)]), &g), Some(false));
        let all = pages(&[("a.pdf", 5), ("b.pdf", 1), ("a.pdf", 2)]);
        assert_eq!(page_recall(&all, &g), Some(1.0));
        assert_eq!(page_recall(&all, &GoldPages::new()), None);
        assert_eq!(hit(&all, &gold(&[("a.pdf", &[])])), None);
    }

    #[test]
    fn redundancy_by_hand() {
        // Unit vectors e1, e1, (e1+e2)/sqrt2: cosines 1, 1/sqrt2, 1/sqrt2; mean = (1 + sqrt2)/3.
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let v = [1.0, 0.0, 1.0, 0.0, s, s];
        let want = (1.0 + 2.0 * s as f64) / 3.0;
        assert!((redundancy(&v, 2) - want).abs() < 1e-6);
        assert_eq!(redundancy(&[1.0, 0.0], 2), 0.0);
        assert_eq!(redundancy(&[], 2), 0.0);
    }

    #[test]
    fn page_ranking_and_mmdocir_recall_by_hand() {
        // Note scores: page 3 best 0.9, page 1 best 0.8 (its 0.2 note is ignored), page 7 0.5.
        let scored = vec![
            (("d".to_string(), 1), 0.2),
            (("d".to_string(), 3), 0.9),
            (("d".to_string(), 1), 0.8),
            (("d".to_string(), 7), 0.5),
            (("d".to_string(), 9), 0.5),
        ];
        let ranked = rank_pages(&scored);
        // Page 7 and 9 tie at 0.5: page 7 appeared first.
        assert_eq!(ranked, pages(&[("d", 3), ("d", 1), ("d", 7), ("d", 9)]));
        let g = gold(&[("d", &[1, 9])]);
        assert_eq!(page_recall_at(&ranked, &g, 1), Some(0.0));
        assert_eq!(page_recall_at(&ranked, &g, 2), Some(0.5));
        assert_eq!(page_recall_at(&ranked, &g, 3), Some(0.5));
        assert_eq!(page_recall_at(&ranked, &g, 5), Some(1.0));
    }

    #[test]
    fn ndcg_of_a_fixed_ranking_by_hand() {
        // Judged: d1 rel 2, d2 rel 1, d3 rel 0. Ranking: x, d2, d1.
        // DCG = 0/log2(2) + 1/log2(3) + 2/log2(4) = 0.63093 + 1 = 1.63093
        // IDCG = 2/log2(2) + 1/log2(3) = 2.63093; nDCG = 0.61991
        let q: HashMap<String, u32> = [("d1", 2), ("d2", 1), ("d3", 0)]
            .iter()
            .map(|(d, r)| (d.to_string(), *r))
            .collect();
        let ranked = ["x", "d2", "d1"];
        let got = ndcg_at(&ranked, &q, 10);
        assert!((got - 1.630930 / 2.630930).abs() < 1e-5, "{got}");
        // Cut at 2: DCG = 0.63093; IDCG@2 = 2.63093.
        assert!((ndcg_at(&ranked, &q, 2) - 0.630930 / 2.630930).abs() < 1e-5);
        assert!((ndcg_at(&["d1", "d2"], &q, 10) - 1.0).abs() < 1e-12);
        assert_eq!(ndcg_at(&ranked, &HashMap::new(), 10), 0.0);
        assert_eq!(recall_at(&ranked, &q, 2), 0.5);
        assert_eq!(recall_at(&ranked, &q, 3), 1.0);
    }

    #[test]
    fn mean() {
        let mut m = Mean::default();
        assert_eq!(m.value(), None);
        m.add(1.0);
        m.add(2.0);
        assert_eq!(m.value(), Some(1.5));
    }
}
