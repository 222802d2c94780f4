//! The crop images of figure and table notes as resources: `indexer://crop/{note_id}`, the id
//! percent-encoded as a URI template expands it. A crop is read only from the index's crop
//! folder, whatever a note's stored image path says ([`IndexView::image_path`]).

use crate::{RpcError, codes};
use indexer_engine::{Engine, IndexView, Note};
use serde_json::{Value, json};

const CROP_PREFIX: &str = "indexer://crop/";
/// Resources a page of `resources/list`.
const PAGE: usize = 100;

/// The URI of a note's crop.
pub fn crop_uri(note_id: &str) -> String {
    format!("{CROP_PREFIX}{}", percent_encode(note_id))
}

pub fn templates() -> Value {
    json!([{
        "uriTemplate": format!("{CROP_PREFIX}{{note_id}}"),
        "name": "crop",
        "title": "Figure or table crop",
        "description": "The PNG crop of a figure or table note of a PDF, by note id (as search and show name it)",
        "mimeType": "image/png",
    }])
}

/// The crops of the index, a page at a time (the cursor is the number of crops already sent).
pub fn list(engine: &Engine, params: &Value) -> Result<Value, RpcError> {
    refresh(engine)?;
    let start = match params.get("cursor") {
        None | Some(Value::Null) => 0,
        Some(Value::String(c)) => c
            .parse::<usize>()
            .map_err(|_| RpcError::new(codes::INVALID_PARAMS, format!("bad cursor {c:?}")))?,
        Some(_) => {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                "the cursor is a string",
            ));
        }
    };
    let view = engine.view();
    let notes = view.notes().map_err(internal)?;
    let mut crops = notes
        .iter()
        .filter(|n| n.image.is_some() && view.image_path(n).is_some())
        .skip(start);
    let resources: Vec<Value> = crops.by_ref().take(PAGE).map(resource).collect();
    let mut out = json!({"resources": resources});
    if crops.next().is_some() {
        out["nextCursor"] = json!((start + PAGE).to_string());
    }
    Ok(out)
}

fn resource(n: &Note) -> Value {
    let mut r = json!({
        "uri": crop_uri(&n.id),
        "name": n.id,
        "description": format!("{} of {}", n.kind, crate::shapes::location(n)),
        "mimeType": "image/png",
    });
    if let Some(c) = &n.caption {
        r["title"] = json!(c.split_whitespace().collect::<Vec<_>>().join(" "));
    }
    r
}

/// A crop as a base64 blob.
pub fn read(engine: &Engine, params: &Value) -> Result<Value, RpcError> {
    let Some(uri) = params.get("uri").and_then(Value::as_str) else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "resources/read needs a uri",
        ));
    };
    refresh(engine)?;
    let not_found = |code: &str, message: String| {
        RpcError::new(codes::INVALID_PARAMS, message).with_data(json!({"uri": uri, "code": code}))
    };
    let id = uri
        .strip_prefix(CROP_PREFIX)
        .and_then(percent_decode)
        .ok_or_else(|| {
            not_found(
                "route_not_found",
                format!("no resource {uri:?} (crops are {CROP_PREFIX}{{note_id}})"),
            )
        })?;
    let view = engine.view();
    let note = view
        .note(&id)
        .map_err(internal)?
        .ok_or_else(|| not_found("note_not_found", format!("no note {id:?} in the index")))?;
    let path = crop_file(&view, &note)
        .ok_or_else(|| not_found("image_not_found", format!("note {id:?} has no crop image")))?;
    let bytes = std::fs::read(&path).map_err(|e| {
        RpcError::new(
            codes::INTERNAL_ERROR,
            format!("cannot read the crop of {id:?}: {e}"),
        )
    })?;
    Ok(json!({"contents": [{
        "uri": uri,
        "mimeType": "image/png",
        "blob": base64(&bytes),
    }]}))
}

fn crop_file(view: &IndexView, note: &Note) -> Option<std::path::PathBuf> {
    view.image_path(note)
}

fn refresh(engine: &Engine) -> Result<(), RpcError> {
    engine.refresh().map(|_| ()).map_err(internal)
}

fn internal(e: indexer_engine::Error) -> RpcError {
    RpcError::new(codes::INTERNAL_ERROR, e.to_string())
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

/// Standard base64 with padding (RFC 4648).
pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc_4648() {
        // The test vectors of RFC 4648, section 10.
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x00]), "//4A");
    }

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
