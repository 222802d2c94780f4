//! `milvus://HOST:PORT/COLLECTION[?crops=DIR]`: where the index is.

use crate::{Error, Result};
use std::path::PathBuf;

/// The default port of Milvus's gRPC API.
pub const DEFAULT_PORT: u16 = 19530;

/// A collection on a Milvus server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MilvusUrl {
    pub host: String,
    pub port: u16,
    pub collection: String,
    /// The folder of crop images, when the URL names one (`?crops=DIR`): it overrides the
    /// folder kept with the collection.
    pub crops: Option<PathBuf>,
}

impl MilvusUrl {
    /// Whether `s` is meant as a Milvus URL (it may still be a malformed one).
    pub fn is_milvus(s: &str) -> bool {
        s.starts_with("milvus://")
    }

    /// The gRPC endpoint the client connects to.
    pub fn endpoint(&self) -> String {
        format!("http://{}:{}", self.host, self.port)
    }

    /// The collection of file rows beside the notes.
    pub fn files_collection(&self) -> String {
        format!("{}_files", self.collection)
    }
}

impl std::fmt::Display for MilvusUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "milvus://{}:{}/{}",
            self.host, self.port, self.collection
        )?;
        if let Some(c) = &self.crops {
            write!(f, "?crops={}", c.display())?;
        }
        Ok(())
    }
}

impl std::str::FromStr for MilvusUrl {
    type Err = Error;
    fn from_str(s: &str) -> Result<MilvusUrl> {
        let bad = |why: &str| {
            Error::Url(format!(
                "{s:?} is not a Milvus index: {why} (expected milvus://HOST:PORT/COLLECTION)"
            ))
        };
        let rest = s
            .strip_prefix("milvus://")
            .ok_or_else(|| bad("it does not start with milvus://"))?;
        let (rest, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        let (authority, collection) = rest
            .split_once('/')
            .ok_or_else(|| bad("no collection after the host"))?;
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (
                h,
                p.parse::<u16>()
                    .map_err(|_| bad(&format!("port {p:?} is not a number")))?,
            ),
            None => (authority, DEFAULT_PORT),
        };
        if host.is_empty() {
            return Err(bad("no host"));
        }
        let collection = collection.trim_end_matches('/');
        // Milvus's rule for names: a letter or underscore, then letters, digits, underscores.
        let valid = collection
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && collection
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && collection.len() <= 200;
        if !valid {
            return Err(bad(&format!(
                "collection name {collection:?} must be a letter or _ then letters, digits or _"
            )));
        }
        let mut crops = None;
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("crops", v)) if !v.is_empty() => crops = Some(PathBuf::from(v)),
                _ => return Err(bad(&format!("unknown parameter {pair:?} (only crops=DIR)"))),
            }
        }
        Ok(MilvusUrl {
            host: host.to_string(),
            port,
            collection: collection.to_string(),
            crops,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_port_collection_and_crops() {
        let u: MilvusUrl = "milvus://127.0.0.1:19531/docs?crops=/srv/crops"
            .parse()
            .unwrap();
        assert_eq!(u.host, "127.0.0.1");
        assert_eq!(u.port, 19531);
        assert_eq!(u.collection, "docs");
        assert_eq!(u.crops, Some(PathBuf::from("/srv/crops")));
        assert_eq!(
            u.to_string(),
            "milvus://127.0.0.1:19531/docs?crops=/srv/crops"
        );
        assert_eq!(u.endpoint(), "http://127.0.0.1:19531");
        let d: MilvusUrl = "milvus://db/notes_v2".parse().unwrap();
        assert_eq!((d.port, d.collection.as_str()), (DEFAULT_PORT, "notes_v2"));
    }

    #[test]
    fn refuses_what_milvus_would_refuse_with_the_reason() {
        for (s, why) in [
            ("milvus://h:1", "no collection"),
            ("milvus://h:x/c", "port \"x\""),
            ("milvus://h:1/9c", "collection name"),
            ("milvus://h:1/a-b", "collection name"),
            ("milvus://:1/c", "no host"),
            ("milvus://h:1/c?x=1", "unknown parameter"),
            ("http://h:1/c", "does not start"),
        ] {
            let e = s.parse::<MilvusUrl>().unwrap_err().to_string();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
