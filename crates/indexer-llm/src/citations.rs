//! The evidence numbers an answer cites: `[2]`, `[1][3]`, `[1, 3]`, `[2-4]`, `[Evidence 2]`.

use serde::Serialize;

/// The largest range a citation may span (`[1-5]`); a wider one is read as its two ends.
const MAX_RANGE: usize = 20;

/// The numbers cited by an answer, in order of first citation, each once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Citations {
    /// Numbers that name evidence that was sent.
    pub cited: Vec<usize>,
    /// Numbers that name no evidence (0, or above the evidence sent): flagged to the user.
    pub unknown: Vec<usize>,
}

/// The citations of `answer`, checked against `evidence` numbered 1 to `evidence`.
pub fn parse_citations(answer: &str, evidence: usize) -> Citations {
    let mut out = Citations::default();
    let mut add = |n: usize| {
        let list = if (1..=evidence).contains(&n) {
            &mut out.cited
        } else {
            &mut out.unknown
        };
        if !list.contains(&n) {
            list.push(n);
        }
    };
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else { break };
        let inner = &after[..close];
        if let Some(numbers) = citation_numbers(inner) {
            for n in numbers {
                add(n);
            }
            rest = &after[close + 1..];
        } else {
            rest = after;
        }
    }
    out
}

/// The numbers of a bracket's content, if it is a citation: numbers separated by commas,
/// semicolons, spaces or `and`, with ranges `a-b`, optionally after a word like `Evidence`.
fn citation_numbers(inner: &str) -> Option<Vec<usize>> {
    let lower = inner.trim().to_ascii_lowercase();
    let body = ["evidence", "source", "note", "ref"]
        .iter()
        .find_map(|w| lower.strip_prefix(w))
        .map(|r| r.trim_start_matches(['s', '.', ':', ' ', '#']))
        .unwrap_or(&lower);
    if body.is_empty() || body.len() > 40 {
        return None;
    }
    let mut numbers = Vec::new();
    for item in body
        .split([',', ';', ' '])
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "and")
    {
        let item = item.trim_start_matches('#');
        if let Some((a, b)) = item.split_once(['-', '–']) {
            let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
            if a <= b && b - a <= MAX_RANGE {
                numbers.extend(a..=b);
            } else {
                numbers.extend([a, b]);
            }
        } else {
            numbers.push(item.parse().ok()?);
        }
    }
    (!numbers.is_empty()).then_some(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn forms_of_citation() {
        let c = parse_citations(
            "A [2]. B [1][3]. C [1, 4]. D [5-6]. E [Evidence 7]. F [sources 2; 8]. G [9 and 1].",
            10,
        );
        assert_eq!(c.cited, vec![2, 1, 3, 4, 5, 6, 7, 8, 9]);
        assert!(c.unknown.is_empty());
    }

    #[test]
    fn numbers_that_name_no_evidence_are_flagged() {
        let c = parse_citations("x [0] y [3] z [12] w [12] v [2-4]", 3);
        assert_eq!(c.cited, vec![3, 2]);
        assert_eq!(c.unknown, vec![0, 12, 4]);
    }

    #[test]
    fn brackets_that_are_not_citations_are_ignored() {
        let c = parse_citations(
            "see [the table] and a[i] and [x1] and [1.5] and [] [ ] [2",
            5,
        );
        assert_eq!(c, Citations::default());
        // A bracket that is not a citation does not hide one inside it.
        assert_eq!(parse_citations("[note [2]]", 5).cited, vec![2]);
        // A wide range is read as its two ends, not a hundred citations.
        assert_eq!(parse_citations("[1-100]", 5).unknown, vec![100]);
    }

    /// Reference: the numbers of every `[n]` in order, each once.
    fn reference(text: &str) -> Vec<usize> {
        let mut out = Vec::new();
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'[' {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                if j > i + 1 && j < bytes.len() && bytes[j] == b']' {
                    let n: usize = text[i + 1..j].parse().unwrap();
                    if !out.contains(&n) {
                        out.push(n);
                    }
                    i = j;
                }
            }
            i += 1;
        }
        out
    }

    proptest! {
        #[test]
        fn single_number_citations_match_a_reference(
            words in proptest::collection::vec(
                prop_oneof![
                    "[a-z]{1,8}".prop_map(|s| s),
                    (0usize..30).prop_map(|n| format!("[{n}]")),
                    Just("[".to_string()),
                    Just("]".to_string()),
                ],
                0..40,
            ),
            evidence in 0usize..25,
        ) {
            let text = words.join(" ");
            let c = parse_citations(&text, evidence);
            let all = reference(&text);
            let cited: Vec<usize> = all.iter().copied().filter(|n| (1..=evidence).contains(n)).collect();
            let unknown: Vec<usize> = all.iter().copied().filter(|n| !(1..=evidence).contains(n)).collect();
            prop_assert_eq!(c.cited, cited);
            prop_assert_eq!(c.unknown, unknown);
        }
    }
}
