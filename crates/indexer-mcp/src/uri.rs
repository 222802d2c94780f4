//! The URIs of crop resources: `indexer://crop/{note_id}`, the id percent-encoded as a URI
//! template's simple expansion writes a value.

pub const CROP_PREFIX: &str = "indexer://crop/";

/// The URI of a note's crop.
pub fn crop_uri(note_id: &str) -> String {
    format!("{CROP_PREFIX}{}", percent_encode(note_id))
}

/// The note id a crop URI names; `None` for another URI or a malformed one.
pub fn note_of_crop_uri(uri: &str) -> Option<String> {
    uri.strip_prefix(CROP_PREFIX).and_then(percent_decode)
}

/// Every byte but the unreserved characters of RFC 3986 as `%XX`, as a URI template's simple
/// expansion writes a value.
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `%XX` sequences back into bytes; `None` for a malformed escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_ids_survive_the_uri() {
        for id in ["guide/a b.pdf#f3", "/abs/päth.pdf#b12", "x%y.md#t0"] {
            let uri = crop_uri(id);
            let encoded = &uri[CROP_PREFIX.len()..];
            assert!(!encoded.contains(['/', '#', ' ']), "{encoded}");
            assert_eq!(percent_decode(encoded).as_deref(), Some(id));
        }
        assert_eq!(
            crop_uri("guide/a.pdf#f3"),
            "indexer://crop/guide%2Fa.pdf%23f3"
        );
        for bad in ["%", "%4", "%zz", "%ff", ""] {
            assert_eq!(percent_decode(bad), None, "{bad:?}");
        }
    }
}
