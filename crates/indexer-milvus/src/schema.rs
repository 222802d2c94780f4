//! The two collections' schemas and the properties that say who made them.

use milvus::v2 as sdk;
use milvus::v2::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// The layout of the collections below and what their fields hold (2: the searched text is
/// stemmed terms). A collection made with another is refused.
pub const SCHEMA_VERSION: u32 = 2;

// Fields of the notes collection.
pub(crate) const ID: &str = "id";
pub(crate) const DOC: &str = "doc";
pub(crate) const PAGE: &str = "page";
pub(crate) const KIND: &str = "kind";
pub(crate) const SEARCH: &str = "search";
pub(crate) const SPARSE: &str = "sparse";
pub(crate) const DENSE: &str = "dense";
pub(crate) const NOTE: &str = "note";
// Fields of the files collection (`DOC` is its primary key). Milvus wants a vector field in
// every collection: `PLACEHOLDER` is one of two zeros.
pub(crate) const HASH: &str = "hash";
pub(crate) const INFO: &str = "info";
pub(crate) const PLACEHOLDER: &str = "placeholder";

/// The longest text a VarChar field holds (Milvus's limit).
pub(crate) const MAX_TEXT: u32 = 65_535;
pub(crate) const MAX_ID: u32 = 4_096;

const P_SCHEMA: &str = "indexer.schema";
const P_MODEL: &str = "indexer.model";
const P_DIM: &str = "indexer.dim";
const P_CROPS: &str = "indexer.crops";

/// Who made a collection, from its properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Info {
    pub schema: u32,
    pub model: String,
    pub dim: usize,
    /// The crop folder every server of the collection reads (a shared folder).
    pub crops: PathBuf,
}

impl Info {
    pub(crate) fn properties(&self) -> HashMap<String, String> {
        HashMap::from([
            (P_SCHEMA.to_string(), self.schema.to_string()),
            (P_MODEL.to_string(), self.model.clone()),
            (P_DIM.to_string(), self.dim.to_string()),
            (P_CROPS.to_string(), self.crops.display().to_string()),
        ])
    }

    /// `None` when the collection was not made by indexer (no properties of ours).
    pub(crate) fn from_properties(p: &HashMap<String, String>) -> Option<Info> {
        Some(Info {
            schema: p.get(P_SCHEMA)?.parse().ok()?,
            model: p.get(P_MODEL)?.clone(),
            dim: p.get(P_DIM)?.parse().ok()?,
            crops: PathBuf::from(p.get(P_CROPS)?),
        })
    }
}

fn varchar(name: &str, max: u32) -> sdk::FieldSchema {
    sdk::FieldSchema::new()
        .name(name)
        .data_type(sdk::DataType::VarChar)
        .max_length(max)
}

pub(crate) fn notes_schema(dim: usize) -> sdk::CollectionSchema {
    sdk::CollectionSchema::new()
        .enable_dynamic_field(false)
        .add_field(varchar(ID, MAX_ID).primary_key(true))
        .add_field(varchar(DOC, MAX_ID))
        .add_field(
            sdk::FieldSchema::new()
                .name(PAGE)
                .data_type(sdk::DataType::Int64),
        )
        .add_field(varchar(KIND, 32))
        .add_field(varchar(SEARCH, MAX_TEXT).enable_analyzer(true))
        .add_field(
            sdk::FieldSchema::new()
                .name(SPARSE)
                .data_type(sdk::DataType::SparseFloatVector),
        )
        .add_field(
            sdk::FieldSchema::new()
                .name(DENSE)
                .data_type(sdk::DataType::FloatVector)
                .dimension(dim as u32),
        )
        .add_field(varchar(NOTE, MAX_TEXT))
        .add_function(
            Function::new()
                .name("bm25")
                .function_type(FunctionType::Bm25)
                .input_fields([SEARCH])
                .output_fields([SPARSE]),
        )
}

pub(crate) fn notes_indexes() -> Vec<IndexParam> {
    vec![
        // Vectors are unit length: inner product is the cosine.
        IndexParam::new()
            .field_name(DENSE)
            .index_type(IndexType::Hnsw)
            .metric_type(MetricType::Ip),
        IndexParam::new()
            .field_name(SPARSE)
            .index_type(IndexType::SparseInvertedIndex)
            .metric_type(MetricType::Bm25),
    ]
}

pub(crate) fn files_schema() -> sdk::CollectionSchema {
    sdk::CollectionSchema::new()
        .enable_dynamic_field(false)
        .add_field(varchar(DOC, MAX_ID).primary_key(true))
        .add_field(varchar(HASH, 256))
        .add_field(varchar(INFO, MAX_TEXT))
        .add_field(
            sdk::FieldSchema::new()
                .name(PLACEHOLDER)
                .data_type(sdk::DataType::FloatVector)
                .dimension(2),
        )
}

pub(crate) fn files_indexes() -> Vec<IndexParam> {
    vec![
        IndexParam::new()
            .field_name(PLACEHOLDER)
            .index_type(IndexType::Flat)
            .metric_type(MetricType::L2),
    ]
}
