//! `milvus://HOST:PORT/COLLECTION[?crops=DIR&batch=N]`: where the index is.

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
    /// Notes per upsert request, when the URL says (`?batch=N`): lower for a Milvus whose
    /// gRPC message limit is below the default, [`MilvusUrl::DEFAULT_BATCH`].
    pub batch: Option<usize>,
}

impl MilvusUrl {
    /// Notes per upsert request unless the URL says (Milvus caps a request's size; 256 notes of
    /// 256 tokens with their JSON and a 768-d vector stay well under its default limit).
    pub const DEFAULT_BATCH: usize = 256;

    /// Notes per upsert request.
    pub fn batch(&self) -> usize {
        self.batch.unwrap_or(MilvusUrl::DEFAULT_BATCH)
    }

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
        let mut sep = '?';
        if let Some(c) = &self.crops {
            write!(f, "{sep}crops={}", c.display())?;
            sep = '&';
        }
        if let Some(b) = self.batch {
            write!(f, "{sep}batch={b}")?;
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
        let (mut crops, mut batch) = (None, None);
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("crops", v)) if !v.is_empty() => crops = Some(PathBuf::from(v)),
                Some(("batch", v)) => match v.parse::<usize>() {
                    Ok(n) if n >= 1 => batch = Some(n),
                    _ => {
                        return Err(bad(&format!(
                            "batch={v:?} is not a number of notes above 0"
                        )));
                    }
                },
                _ => {
                    return Err(bad(&format!(
                        "unknown parameter {pair:?} (only crops=DIR and batch=N)"
                    )));
                }
            }
        }
        Ok(MilvusUrl {
            host: host.to_string(),
            port,
            collection: collection.to_string(),
            crops,
            batch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

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
        assert_eq!(u.batch(), MilvusUrl::DEFAULT_BATCH);
        let d: MilvusUrl = "milvus://db/notes_v2".parse().unwrap();
        assert_eq!((d.port, d.collection.as_str()), (DEFAULT_PORT, "notes_v2"));
        let b: MilvusUrl = "milvus://db/notes?batch=16&crops=/c".parse().unwrap();
        assert_eq!((b.batch(), b.crops.as_deref()), (16, Some(Path::new("/c"))));
        assert_eq!(b.to_string(), "milvus://db:19530/notes?crops=/c&batch=16");
        assert_eq!(b.to_string().parse::<MilvusUrl>().unwrap(), b);
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
            ("milvus://h:1/c?batch=0", "batch=\"0\""),
            ("milvus://h:1/c?batch=many", "batch=\"many\""),
            ("http://h:1/c", "does not start"),
        ] {
            let e = s.parse::<MilvusUrl>().unwrap_err().to_string();
            assert!(e.contains(why), "{s}: {e}");
        }
    }
}
