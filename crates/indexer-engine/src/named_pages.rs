//! The ranking stage of named pages: the pages a question names of a known document (found by
//! the rewrite stage's `pages` rule) have their notes ordered first in the pool, whatever their
//! words share with the question; the other candidates keep their first-stage scores.
//!
//! A page number ("page 12", "page two") may be the one printed on the page
//! (`Note::page_label`: a report whose cover and contents come first, a paper that starts at
//! page 6981 of its proceedings) or the page's place in the file (slides have no printed
//! numbers). The page that shows the number comes first ([`Tier::Named`]); the page at that
//! place in the file, if another, next ([`Tier::Placed`]). An ordinal ("the second page"), the
//! cover and the last page are places in the file; a roman numeral only the page that shows it.

use crate::Result;
use crate::pool::{Pool, PoolEntry, Tier};
use crate::question::{NamedPage, SearchedQuestion};
use crate::reader::Reader;
use crate::rewrite::PageRef;
use crate::rewrite::pages::roman_value;
use indexer_index::Filter;
use std::collections::{BTreeMap, HashMap};

/// Each page's tier in a document whose pages (those with notes; the last of them is the
/// last page) show the printed numbers `labels`.
fn page_tiers(refs: &[PageRef], labels: &BTreeMap<u32, Option<&str>>) -> HashMap<u32, Tier> {
    let mut tiers: HashMap<u32, Tier> = HashMap::new();
    let mut give = |page: u32, t: Tier| {
        let e = tiers.entry(page).or_default();
        *e = (*e).max(t);
    };
    for r in refs {
        match *r {
            PageRef::Last => {
                if let Some((&p, _)) = labels.last_key_value() {
                    give(p, Tier::Named);
                }
            }
            PageRef::Place(n) => {
                if labels.contains_key(&n) {
                    give(n, Tier::Named);
                }
            }
            PageRef::Roman(a, b) => {
                for (&p, label) in labels {
                    if label
                        .and_then(roman_value)
                        .is_some_and(|v| (a..=b).contains(&v))
                    {
                        give(p, Tier::Named);
                    }
                }
            }
            PageRef::Numbers(a, b) => {
                // Only the numbers the document can show or hold: a range past its end names
                // its pages up to the end, and one wholly past it names none.
                let last = labels.keys().next_back().copied().unwrap_or(0);
                let shown: HashMap<&str, Vec<u32>> =
                    labels.iter().fold(HashMap::new(), |mut m, (p, l)| {
                        if let Some(l) = l {
                            m.entry(*l).or_default().push(*p);
                        }
                        m
                    });
                let shown_max = shown
                    .keys()
                    .filter_map(|l| l.parse::<u32>().ok())
                    .max()
                    .unwrap_or(0);
                for n in a..=b.min(last.max(shown_max)) {
                    let text = n.to_string();
                    let showing = shown.get(text.as_str());
                    let placed = labels.contains_key(&n);
                    match showing {
                        None => {
                            if placed {
                                give(n, Tier::Named);
                            }
                        }
                        Some(pages) => {
                            for &p in pages {
                                give(p, Tier::Named);
                            }
                            if placed {
                                give(n, Tier::Placed);
                            }
                        }
                    }
                }
            }
        }
    }
    tiers
}

/// Puts the notes of the pages `question` names first in `pool` ([`Pool::put_first`]): the
/// notes of those pages that were not candidates join it. Returns the pages put first (those
/// with a note the filter lets through), named before placed, each with the words that name
/// it; none when the question names no page of a known document.
pub(crate) fn put_named_pages_first(
    reader: &dyn Reader,
    pool: &mut Pool,
    question: &SearchedQuestion<'_>,
    filter: &Filter,
) -> Result<Vec<NamedPage>> {
    let Some(references) = &question.pages else {
        return Ok(Vec::new());
    };
    if pool.fused().len() != pool.len() {
        return Ok(Vec::new());
    }
    let refs: Vec<PageRef> = references.refs.iter().map(|(r, _)| *r).collect();
    let notes = reader.document_notes(&references.doc)?;
    let mut labels: BTreeMap<u32, Option<&str>> = BTreeMap::new();
    for (n, _) in &notes {
        if let Some(p) = n.page {
            let l = labels.entry(p).or_insert(None);
            if l.is_none() {
                *l = n.page_label.as_deref();
            }
        }
    }
    let tiers = page_tiers(&refs, &labels);
    if tiers.is_empty() {
        return Ok(Vec::new());
    }
    let candidates: HashMap<&str, usize> = pool
        .entries()
        .iter()
        .enumerate()
        .map(|(i, e)| (e.note.id.as_str(), i))
        .collect();
    let mut by_note: HashMap<String, Tier> = HashMap::new();
    let mut joining: Vec<(PoolEntry, Vec<f32>)> = Vec::new();
    let mut pages: BTreeMap<u32, Tier> = BTreeMap::new();
    for (note, v) in &notes {
        let Some((page, tier)) = note.page.and_then(|p| Some((p, *tiers.get(&p)?))) else {
            continue;
        };
        if !filter.matches(note) {
            continue;
        }
        pages.insert(page, tier);
        by_note.insert(note.id.clone(), tier);
        if !candidates.contains_key(note.id.as_str()) {
            joining.push((
                PoolEntry {
                    cosine: indexer_index::dot(v, &question.vector),
                    note: note.clone(),
                    bm25_rank: None,
                    bm25_score: None,
                    vector_rank: None,
                },
                v.clone(),
            ));
        }
    }
    // Notes that join are ordered among themselves by their cosine, after the candidates of
    // their page (their fused score is 0).
    joining.sort_by(|a, b| b.0.cosine.total_cmp(&a.0.cosine));
    pool.put_first(&by_note, joining);
    let mut named: Vec<(u32, Tier)> = pages.into_iter().collect();
    named.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(named
        .into_iter()
        .map(|(page, tier)| {
            // The first phrase that gives the page its tier on its own.
            let phrase = references
                .refs
                .iter()
                .find(|(r, _)| page_tiers(&[*r], &labels).get(&page) == Some(&tier))
                .or(references.refs.first())
                .map(|(_, span)| question.typed[span.clone()].to_string())
                .unwrap_or_default();
            NamedPage {
                doc: references.doc.clone(),
                page,
                phrase,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use PageRef::{Last, Numbers, Place, Roman};

    fn labels(pairs: &[(u32, Option<&'static str>)]) -> BTreeMap<u32, Option<&'static str>> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn the_page_showing_the_number_comes_before_the_place_in_the_file() {
        // A cover, then pages numbered from 1: "page 2" is the third page of the file.
        let l = labels(&[(1, None), (2, Some("1")), (3, Some("2")), (4, Some("3"))]);
        let t = page_tiers(&[Numbers(2, 2)], &l);
        assert_eq!(t, HashMap::from([(3, Tier::Named), (2, Tier::Placed)]));
        // Slides show no numbers: the place in the file.
        let l = labels(&[(1, None), (2, None), (3, None)]);
        assert_eq!(
            page_tiers(&[Numbers(2, 3), Last], &l),
            HashMap::from([(2, Tier::Named), (3, Tier::Named)])
        );
        // A number no page shows and beyond the last page names nothing; a range past the
        // end names the pages up to it.
        assert!(page_tiers(&[Numbers(7, 7)], &l).is_empty());
        assert!(page_tiers(&[Numbers(400, 640)], &l).is_empty());
        assert_eq!(
            page_tiers(&[Numbers(2, 1_000_000)], &l),
            HashMap::from([(2, Tier::Named), (3, Tier::Named)])
        );
        // An ordinal is a place in the file, whatever the pages show.
        let l = labels(&[(1, None), (2, Some("1")), (3, Some("2"))]);
        assert_eq!(
            page_tiers(&[Place(2), Place(9)], &l),
            HashMap::from([(2, Tier::Named)])
        );
        // A roman numeral names the pages that show it, and no place in the file.
        let l = labels(&[(1, None), (2, Some("i")), (3, Some("ii")), (4, Some("1"))]);
        assert_eq!(
            page_tiers(&[Roman(2, 2), Roman(4, 4)], &l),
            HashMap::from([(3, Tier::Named)])
        );
        // A page both shown and placed keeps the higher tier.
        let l = labels(&[(1, Some("1")), (2, Some("2"))]);
        assert_eq!(
            page_tiers(&[Numbers(1, 2)], &l),
            HashMap::from([(1, Tier::Named), (2, Tier::Named)])
        );
        // A paper that starts at page 6981 of its proceedings.
        let l = labels(&[(1, Some("6981")), (2, Some("6982"))]);
        assert_eq!(
            page_tiers(&[Numbers(6982, 6982)], &l),
            HashMap::from([(2, Tier::Named)])
        );
    }
}
