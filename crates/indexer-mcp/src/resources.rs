//! The crop images of figure and table notes as resources: `indexer://crop/{note_id}`, the id
//! percent-encoded as a URI template expands it. A crop is read only from the index's crop
//! folder, whatever a note's stored image path says ([`IndexView::image_path`]).

use crate::protocol::{RpcError, codes};
use crate::shapes::location;
use crate::uri::{CROP_PREFIX, crop_uri, note_of_crop_uri};
use indexer_engine::{Engine, IndexView, Note};
use serde_json::{Value, json};

/// Resources a page of `resources/list`.
const PAGE: usize = 100;

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
        "description": format!("{} of {}", n.kind, location(n)),
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
    let id = note_of_crop_uri(uri).ok_or_else(|| {
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
}
