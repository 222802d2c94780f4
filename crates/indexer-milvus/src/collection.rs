//! A Milvus index: the notes collection and the files collection beside it.

// The client's own error type is large (176 bytes); results carry it only to `map_error`.
#![allow(clippy::result_large_err)]

use crate::filter::{Filter, literal, one_of};
use crate::rpc::{block, call, map_error, retry_seconds};
use crate::schema::{self, Info, SCHEMA_VERSION};
use crate::token;
use crate::{Error, MilvusUrl, Result};
use milvus::v2 as sdk;
use milvus::v2::prelude::*;
use serde_json::json;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Notes (their JSON and vector) read by one query: a reply must stay under gRPC's 4 MiB
/// message limit, and a long note's JSON with its vector takes up to about 16 KiB.
const NOTES_PER_READ: usize = 128;
/// The most rows one query returns (Milvus's default `maxQueryResultWindow`, its cap on a
/// query's offset plus limit).
const QUERY_WINDOW: usize = 16_384;

/// One note as stored: what is searched, its vector and the note itself (JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct NoteRow {
    pub id: String,
    pub doc: String,
    /// 1-based page, 0 for a note without one.
    pub page: u32,
    pub kind: String,
    /// The text BM25 indexes (the context line and the note's text).
    pub search: String,
    pub vector: Vec<f32>,
    /// The note, serialised by the caller.
    pub note: String,
}

/// One file's row: its hash and what the caller keeps of it (JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct FileRow {
    pub doc: String,
    pub hash: String,
    pub info: String,
}

/// A note found by a search or read back: its stored JSON and vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    /// BM25 score or inner product (cosine); 0 for notes read by id or filter.
    pub score: f32,
    pub note: String,
    pub vector: Vec<f32>,
}

/// An open Milvus index. Cheap to clone; every method blocks the calling thread only.
#[derive(Clone)]
pub struct Collection {
    url: MilvusUrl,
    info: Info,
    client: ClientV2,
    rt: Arc<tokio::runtime::Runtime>,
}

impl std::fmt::Debug for Collection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collection")
            .field("url", &self.url.to_string())
            .field("info", &self.info)
            .finish()
    }
}

impl Collection {
    fn connect(url: &MilvusUrl) -> Result<(ClientV2, Arc<tokio::runtime::Runtime>)> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("milvus")
            .enable_all()
            .build()
            .map_err(|e| Error::Milvus {
                endpoint: url.endpoint(),
                message: format!("cannot start the client's runtime: {e}"),
            })?;
        let retry = RetryConfig::new()
            .max_attempts(u32::MAX)
            .max_retry_timeout(Duration::from_secs(retry_seconds()))
            .initial_backoff(Duration::from_millis(100))
            .max_backoff(Duration::from_secs(5));
        let mut config = ConnectConfig::new()
            .uri(url.endpoint())
            .connect_timeout(Duration::from_secs(10))
            .retry(retry);
        // A server with authentication: `user:password` or an API key, from the environment
        // only (never a flag or the URL, so it is never printed or kept).
        if let Some(token) = token::token() {
            config = config.token(token);
        }
        let client = block(&rt, || {
            let config = config.clone();
            async move { ClientV2::new(&config).await }
        })
        .map_err(|e| map_error(url, e))?;
        Ok((client, Arc::new(rt)))
    }

    fn exists(
        client: &ClientV2,
        rt: &tokio::runtime::Runtime,
        name: &str,
    ) -> sdk::error::Result<bool> {
        let req = HasCollectionRequest::builder()
            .collection_name(name)
            .build()?;
        call(rt, client, req, |c, req| async move {
            Ok(c.has_collection(req).await?.exists())
        })
    }

    fn read_info(url: &MilvusUrl, client: &ClientV2, rt: &tokio::runtime::Runtime) -> Result<Info> {
        let req = DescribeCollectionRequest::builder()
            .collection_name(url.collection.as_str())
            .build()
            .map_err(|e| map_error(url, e))?;
        let desc = call(rt, client, req, |c, req| async move {
            c.describe_collection(req).await
        })
        .map_err(|e| map_error(url, e))?;
        let props = desc.description().get_properties();
        let info = Info::from_properties(props).ok_or_else(|| Error::Mismatch {
            collection: url.collection.clone(),
            what: "index",
            theirs: "by something else (it has no indexer properties)".into(),
            ours: format!("an indexer collection (schema {SCHEMA_VERSION})"),
        })?;
        if info.schema != SCHEMA_VERSION {
            return Err(Error::Mismatch {
                collection: url.collection.clone(),
                what: "version of indexer",
                theirs: format!("with indexer's schema {}", info.schema),
                ours: format!("schema {SCHEMA_VERSION}"),
            });
        }
        Ok(info)
    }

    /// Opens an existing index (a reader: `query`, `serve`).
    pub fn open(url: &MilvusUrl) -> Result<Collection> {
        let (client, rt) = Collection::connect(url)?;
        if !Collection::exists(&client, &rt, &url.collection).map_err(|e| map_error(url, e))? {
            return Err(Error::NoCollection {
                endpoint: format!("{}:{}", url.host, url.port),
                collection: url.collection.clone(),
            });
        }
        let mut info = Collection::read_info(url, &client, &rt)?;
        if let Some(c) = &url.crops {
            info.crops = c.clone();
        }
        let col = Collection {
            url: url.clone(),
            info,
            client,
            rt,
        };
        col.load()?;
        Ok(col)
    }

    /// Opens the index for writing, creating both collections when missing. An existing one
    /// must have been made with `model` and `dim`. `crops` is the crop folder a new index
    /// keeps (the URL's `crops=` wins over both).
    pub fn open_or_create(
        url: &MilvusUrl,
        model: &str,
        dim: usize,
        crops: PathBuf,
    ) -> Result<Collection> {
        let (client, rt) = Collection::connect(url)?;
        let me = |e| map_error(url, e);
        if !Collection::exists(&client, &rt, &url.collection).map_err(me)? {
            let info = Info {
                schema: SCHEMA_VERSION,
                model: model.to_string(),
                dim,
                crops: url.crops.clone().unwrap_or(crops),
            };
            let req = sdk::request::collection::CreateCollectionRequest::builder()
                .collection_name(url.collection.as_str())
                .schema(schema::notes_schema(dim))
                .index_params(schema::notes_indexes())
                .properties(info.properties())
                .consistency_level(sdk::ConsistencyLevel::Strong)
                .build()
                .map_err(me)?;
            Collection::create(&client, &rt, &url.collection, req).map_err(me)?;
        }
        let files = url.files_collection();
        if !Collection::exists(&client, &rt, &files).map_err(me)? {
            let req = sdk::request::collection::CreateCollectionRequest::builder()
                .collection_name(files.as_str())
                .schema(schema::files_schema())
                .index_params(schema::files_indexes())
                .consistency_level(sdk::ConsistencyLevel::Strong)
                .build()
                .map_err(me)?;
            Collection::create(&client, &rt, &files, req).map_err(me)?;
        }
        let mut info = Collection::read_info(url, &client, &rt)?;
        if info.model != model {
            return Err(Error::Mismatch {
                collection: url.collection.clone(),
                what: "encoder",
                theirs: format!("with the encoder {}", info.model),
                ours: model.to_string(),
            });
        }
        if info.dim != dim {
            return Err(Error::Mismatch {
                collection: url.collection.clone(),
                what: "encoder",
                theirs: format!("with {}-d vectors", info.dim),
                ours: format!("{dim}-d vectors"),
            });
        }
        if let Some(c) = &url.crops {
            info.crops = c.clone();
        }
        let col = Collection {
            url: url.clone(),
            info,
            client,
            rt,
        };
        col.load()?;
        Ok(col)
    }

    /// Creates collection `name`. Two writers that start on a new index both find it missing
    /// and both create it: the one that loses the race finds it made and goes on (what it
    /// was made with is checked after, as for any existing index).
    fn create(
        client: &ClientV2,
        rt: &tokio::runtime::Runtime,
        name: &str,
        req: sdk::request::collection::CreateCollectionRequest,
    ) -> sdk::error::Result<()> {
        match call(rt, client, req, |c, req| async move {
            c.create_collection(req).await
        }) {
            Ok(_) => Ok(()),
            Err(e) => match Collection::exists(client, rt, name) {
                Ok(true) => Ok(()),
                _ => Err(e),
            },
        }
    }

    fn load(&self) -> Result<()> {
        for name in [self.url.collection.clone(), self.url.files_collection()] {
            let req = sdk::request::collection::LoadCollectionRequest::builder()
                .collection_name(name.as_str())
                .build()
                .map_err(|e| self.err(e))?;
            self.call(req, |c, req| async move { c.load_collection(req).await })?;
        }
        Ok(())
    }

    fn err(&self, e: sdk::error::Error) -> Error {
        map_error(&self.url, e)
    }

    /// Sends `req` with `f` (a method of the client), retried as [`block`] says.
    fn call<R: Clone, T: Send + 'static, Fut>(
        &self,
        req: R,
        f: impl Fn(ClientV2, R) -> Fut,
    ) -> Result<T>
    where
        Fut: Future<Output = sdk::error::Result<T>> + Send + 'static,
    {
        call(&self.rt, &self.client, req, f).map_err(|e| self.err(e))
    }

    pub fn url(&self) -> &MilvusUrl {
        &self.url
    }

    pub fn info(&self) -> &Info {
        &self.info
    }

    /// Writes notes, replacing those with the same ids.
    pub fn upsert(&self, rows: &[NoteRow]) -> Result<()> {
        for part in rows.chunks(self.url.batch()) {
            let mut values = Vec::with_capacity(part.len());
            for r in part {
                for (what, text) in [("text", &r.search), ("note", &r.note)] {
                    if text.len() > schema::MAX_TEXT as usize {
                        return Err(Error::Data(format!(
                            "note {}: its {what} is {} bytes, more than the {} a Milvus field holds",
                            r.id,
                            text.len(),
                            schema::MAX_TEXT
                        )));
                    }
                }
                values.push(json!({
                    schema::ID: r.id, schema::DOC: r.doc, schema::PAGE: r.page,
                    schema::KIND: r.kind, schema::SEARCH: r.search,
                    schema::DENSE: r.vector, schema::NOTE: r.note,
                }));
            }
            self.upsert_rows(&self.url.collection, values)?;
        }
        Ok(())
    }

    /// Writes rows into `collection`, replacing those with the same primary keys.
    fn upsert_rows(&self, collection: &str, rows: Vec<serde_json::Value>) -> Result<()> {
        let insert = sdk::request::dml::InsertRequest::builder()
            .collection_name(collection)
            .rows(rows)
            .build()
            .map_err(|e| self.err(e))?;
        let req = sdk::request::dml::UpsertRequest::builder()
            .insert(insert)
            .build()
            .map_err(|e| self.err(e))?;
        self.call(req, |c, req| async move { c.upsert(req).await })?;
        Ok(())
    }

    /// Deletes the notes of `doc` whose ids are not in `keep` (all of them when it is empty).
    pub fn delete_notes(&self, doc: &str, keep: &[String]) -> Result<()> {
        let mut expr = format!("{} == {}", schema::DOC, literal(doc));
        if !keep.is_empty() {
            expr = format!("{expr} and not ({})", one_of(schema::ID, keep));
        }
        self.delete(&self.url.collection, expr)
    }

    fn delete(&self, collection: &str, expr: String) -> Result<()> {
        let req = sdk::request::dml::DeleteRequest::builder()
            .collection_name(collection)
            .filter(expr)
            .build()
            .map_err(|e| self.err(e))?;
        self.call(req, |c, req| async move { c.delete(req).await })?;
        Ok(())
    }

    /// Writes a file's row (after its notes: the row says the file is done).
    pub fn put_file(&self, row: &FileRow) -> Result<()> {
        let value = json!({
            schema::DOC: row.doc, schema::HASH: row.hash, schema::INFO: row.info,
            schema::PLACEHOLDER: [0.0f32, 0.0f32],
        });
        self.upsert_rows(&self.url.files_collection(), vec![value])
    }

    pub fn delete_file(&self, doc: &str) -> Result<()> {
        self.delete(
            &self.url.files_collection(),
            format!("{} == {}", schema::DOC, literal(doc)),
        )
    }

    /// Every file row. A query returns at most `QUERY_WINDOW` rows: when the rows of a hash
    /// prefix fill it, the prefix is split by the next hex digit.
    pub fn files(&self) -> Result<Vec<FileRow>> {
        let mut out = Vec::new();
        let mut prefixes = vec![String::new()];
        while let Some(p) = prefixes.pop() {
            let expr = if p.is_empty() {
                String::new()
            } else {
                format!("{} like {}", schema::HASH, literal(&format!("{p}%")))
            };
            let rows = self.query(
                &self.url.files_collection(),
                expr,
                &[schema::DOC, schema::HASH, schema::INFO],
            )?;
            if rows.len() >= QUERY_WINDOW && p.len() < 8 {
                prefixes.extend("0123456789abcdef".chars().map(|c| format!("{p}{c}")));
                continue;
            }
            for mut v in rows {
                let mut take = |k: &str| match v.remove(k) {
                    Some(serde_json::Value::String(s)) => Ok(s),
                    other => Err(Error::Data(format!("file row without {k}: {other:?}"))),
                };
                out.push(FileRow {
                    doc: take(schema::DOC)?,
                    hash: take(schema::HASH)?,
                    info: take(schema::INFO)?,
                });
            }
        }
        out.sort_by(|a, b| a.doc.cmp(&b.doc));
        out.dedup_by(|a, b| a.doc == b.doc);
        Ok(out)
    }

    /// The rows `expr` selects (all of them when it is empty), `fields` of each, at most
    /// `QUERY_WINDOW`: Milvus's cap on one query's offset plus limit.
    fn query(
        &self,
        collection: &str,
        expr: String,
        fields: &[&str],
    ) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
        let req = QueryRequest::builder()
            .collection_name(collection)
            .filter(expr)
            .output_fields(fields.iter().copied())
            .limit(QUERY_WINDOW as i64)
            .consistency_level(sdk::ConsistencyLevel::Strong)
            .build()
            .map_err(|e| self.err(e))?;
        self.call(req, |c, req| async move {
            let r = c.query(req).await?;
            let mut out = Vec::new();
            for row in r.results().rows()? {
                out.push(row.to_entity_row()?);
            }
            Ok(out)
        })
    }

    /// Notes that `filter` selects, with their JSON and vectors (score 0). Read a document at
    /// a time (the documents of the filter, else every file's): first the ids of its notes (a
    /// document whose notes fill a query's window in halves of its page range), then the
    /// notes by id, [`NOTES_PER_READ`] a query.
    pub fn notes(&self, filter: &Filter) -> Result<Vec<Hit>> {
        let docs = if filter.docs.is_empty() {
            self.files()?.into_iter().map(|f| f.doc).collect()
        } else {
            filter.docs.clone()
        };
        let mut out = Vec::new();
        for doc in docs {
            let mut ids = Vec::new();
            let mut ranges = vec![filter.pages.unwrap_or((0, u32::MAX))];
            while let Some((lo, hi)) = ranges.pop() {
                let f = Filter {
                    docs: vec![doc.clone()],
                    kinds: filter.kinds.clone(),
                    pages: None,
                };
                let expr = format!(
                    "{} and ({} >= {lo} and {} <= {hi})",
                    f.expression(),
                    schema::PAGE,
                    schema::PAGE
                );
                let rows = self.query(&self.url.collection, expr, &[schema::ID])?;
                if rows.len() >= QUERY_WINDOW && lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    ranges.push((lo, mid));
                    ranges.push((mid + 1, hi));
                    continue;
                }
                ids.extend(
                    rows.iter()
                        .filter_map(|r| r.get(schema::ID)?.as_str().map(str::to_string)),
                );
            }
            out.extend(self.get(&ids)?);
        }
        Ok(out)
    }

    /// Notes by id, in no particular order; ids that are not there are left out.
    pub fn get(&self, ids: &[String]) -> Result<Vec<Hit>> {
        let mut rows = Vec::new();
        for part in ids.chunks(NOTES_PER_READ) {
            rows.extend(self.query(
                &self.url.collection,
                one_of(schema::ID, part),
                &[schema::ID, schema::NOTE, schema::DENSE],
            )?);
        }
        rows.into_iter().map(|r| hit_of(&r, 0.0)).collect()
    }

    /// Live notes.
    pub fn count(&self) -> Result<u64> {
        let req = QueryRequest::builder()
            .collection_name(self.url.collection.as_str())
            .output_fields(["count(*)"])
            .consistency_level(sdk::ConsistencyLevel::Strong)
            .build()
            .map_err(|e| self.err(e))?;
        self.call(req, |c, req| async move {
            let r = c.query(req).await?;
            let n = r
                .results()
                .rows()?
                .next()
                .map(|row| row.get_i64("count(*)"))
                .transpose()?
                .unwrap_or(0);
            Ok(n.max(0) as u64)
        })
    }

    /// The `k` best notes for `text` (analysed by the caller as the searched text was) by
    /// Milvus's BM25, best first, scores positive.
    pub fn bm25(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        if text.trim().is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let hits = self.search(
            schema::SPARSE,
            SearchVectors::EmbeddedText(vec![text.to_string()]),
            k,
            filter,
        )?;
        // Milvus Lite reports BM25 negated (a distance); Milvus positive. BM25 is never
        // negative, and the order is the server's either way.
        Ok(hits
            .into_iter()
            .map(|mut h| {
                h.score = h.score.abs();
                h
            })
            .collect())
    }

    /// The `k` nearest notes to a unit vector, by inner product (the cosine), best first.
    pub fn nearest(&self, vector: &[f32], k: usize, filter: &Filter) -> Result<Vec<Hit>> {
        if vector.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        self.search(
            schema::DENSE,
            SearchVectors::Float(vec![vector.to_vec()]),
            k,
            filter,
        )
    }

    fn search(
        &self,
        field: &str,
        vectors: SearchVectors,
        k: usize,
        filter: &Filter,
    ) -> Result<Vec<Hit>> {
        let mut b = SearchRequest::builder()
            .collection_name(self.url.collection.as_str())
            .vector_field(field)
            .vectors(vectors)
            .output_fields([schema::ID, schema::NOTE, schema::DENSE])
            .limit(k as i64)
            .consistency_level(sdk::ConsistencyLevel::Strong);
        let expr = filter.expression();
        if !expr.is_empty() {
            b = b.filter(expr);
        }
        let req = b.build().map_err(|e| self.err(e))?;
        let rows = self.call(req, |c, req| async move {
            let r = c.search(req).await?;
            let mut out = Vec::new();
            for res in r.results() {
                for row in res.rows()? {
                    let score = row.get_f32("score").unwrap_or(0.0);
                    out.push((row.to_entity_row()?, score));
                }
            }
            Ok(out)
        })?;
        rows.iter().map(|(r, s)| hit_of(r, *s)).collect()
    }

    /// Makes what was written durable on the server.
    pub fn flush(&self) -> Result<()> {
        let req = FlushRequest::builder()
            .collection_names([self.url.collection.clone(), self.url.files_collection()])
            .build()
            .map_err(|e| self.err(e))?;
        self.call(req, |c, req| async move { c.flush(req).await })?;
        Ok(())
    }

    /// Drops both collections of `url` if they exist (tests, and starting over).
    pub fn drop(url: &MilvusUrl) -> Result<()> {
        let (client, rt) = Collection::connect(url)?;
        for name in [url.collection.clone(), url.files_collection()] {
            if Collection::exists(&client, &rt, &name).map_err(|e| map_error(url, e))? {
                let req = DropCollectionRequest::builder()
                    .collection_name(name.as_str())
                    .build()
                    .map_err(|e| map_error(url, e))?;
                call(&rt, &client, req, |c, req| async move {
                    c.drop_collection(req).await
                })
                .map_err(|e| map_error(url, e))?;
            }
        }
        Ok(())
    }
}

fn hit_of(row: &serde_json::Map<String, serde_json::Value>, score: f32) -> Result<Hit> {
    let s = |k: &str| {
        row.get(k)
            .and_then(|v| v.as_str())
            .map(str::to_string)
            .ok_or_else(|| Error::Data(format!("a note row without {k}")))
    };
    let vector = row
        .get(schema::DENSE)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_f64())
                .map(|x| x as f32)
                .collect()
        })
        .unwrap_or_default();
    Ok(Hit {
        id: s(schema::ID)?,
        score,
        note: s(schema::NOTE)?,
        vector,
    })
}
