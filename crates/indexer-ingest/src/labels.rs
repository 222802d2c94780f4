//! Figure and table labels, shared by caption detection (PDF figures) and the resolution of
//! references in running text ("see Table 3").

/// The number of a figure label: arabic with dots (`15.1`, `3`, `A.2`) or roman (`II`),
/// lower-cased, without trailing punctuation.
pub(crate) fn label_number(word: &str) -> Option<String> {
    let w = word.trim_end_matches(['.', ':', ',', ';', ')', '(']);
    if w.is_empty() {
        return None;
    }
    let arabic = w.chars().next()?.is_ascii_digit()
        && w.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-');
    // Appendix and supplement numbers: `A.2`, `A1`, `S3`.
    let tail = w.get(1..).unwrap_or("");
    let tail = tail.strip_prefix('.').unwrap_or(tail);
    let appendix = w.as_bytes()[0].is_ascii_uppercase()
        && tail.starts_with(|c: char| c.is_ascii_digit())
        && tail.chars().all(|c| c.is_ascii_digit() || c == '.');
    let roman = w.len() <= 6 && w.chars().all(|c| "IVXLC".contains(c));
    (arabic || appendix || roman).then(|| w.to_ascii_lowercase())
}
