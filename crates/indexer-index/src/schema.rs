//! The tantivy schema, read from `index_schema/schema-v2.toml` at build time.

use serde::Deserialize;
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions,
};

const SCHEMA_TOML: &str = include_str!("../../../index_schema/schema-v2.toml");

/// The on-disk format version this build reads and writes. It is the `format_version` of the
/// schema file; the manifest and the layout of the files it names are part of the same
/// version (see `index_schema/README.md`).
pub const FORMAT_VERSION: u32 = 2;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SchemaFile {
    pub format_version: u32,
    pub field: Vec<FieldSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FieldSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: FieldType,
    #[serde(default)]
    pub indexed: bool,
    #[serde(default)]
    pub stored: bool,
    #[serde(default)]
    pub fast: bool,
    #[serde(default)]
    pub tokenizer: Option<String>,
    #[serde(default)]
    pub record: Option<Record>,
    #[serde(default)]
    pub boost: Option<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FieldType {
    Text,
    String,
    U64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Record {
    Basic,
    Freq,
    Position,
}

/// The tantivy schema and the fields the crate reads and writes by name.
#[derive(Debug, Clone)]
pub(crate) struct Fields {
    pub schema: Schema,
    pub id: Field,
    pub doc: Field,
    pub kind: Field,
    pub page: Field,
    pub ordinal: Field,
    pub text: Field,
    pub caption: Field,
    pub summary: Field,
    pub keywords: Field,
    pub section: Field,
    /// The fields BM25 searches, with their boosts.
    pub searched: Vec<(Field, f32)>,
}

pub(crate) fn parse(toml_text: &str) -> Result<SchemaFile, String> {
    let file: SchemaFile = toml::from_str(toml_text).map_err(|e| e.to_string())?;
    for f in &file.field {
        if f.ty == FieldType::Text && f.fast {
            return Err(format!("text field {:?} cannot be fast", f.name));
        }
        if f.ty != FieldType::Text && (f.tokenizer.is_some() || f.boost.is_some()) {
            return Err(format!(
                "field {:?}: only text fields take a tokenizer or a boost",
                f.name
            ));
        }
    }
    Ok(file)
}

impl Fields {
    pub(crate) fn load() -> Fields {
        let file = parse(SCHEMA_TOML).expect("index_schema/schema-v2.toml is valid");
        assert_eq!(
            file.format_version, FORMAT_VERSION,
            "index_schema/schema-v2.toml names another format version than the crate"
        );
        Fields::build(&file).expect("index_schema/schema-v2.toml has every field the crate uses")
    }

    pub(crate) fn build(file: &SchemaFile) -> Result<Fields, String> {
        let mut builder = Schema::builder();
        let mut searched_names = Vec::new();
        for f in &file.field {
            match f.ty {
                FieldType::Text => {
                    let record = match f.record.unwrap_or(Record::Freq) {
                        Record::Basic => IndexRecordOption::Basic,
                        Record::Freq => IndexRecordOption::WithFreqs,
                        Record::Position => IndexRecordOption::WithFreqsAndPositions,
                    };
                    let indexing = TextFieldIndexing::default()
                        .set_tokenizer(f.tokenizer.as_deref().unwrap_or("default"))
                        .set_index_option(record);
                    let mut opts = TextOptions::default().set_indexing_options(indexing);
                    if f.stored {
                        opts = opts.set_stored();
                    }
                    builder.add_text_field(&f.name, opts);
                    if let Some(b) = f.boost {
                        searched_names.push((f.name.clone(), b));
                    }
                }
                FieldType::String => {
                    let mut opts = TextOptions::default();
                    if f.indexed {
                        opts = opts.set_indexing_options(
                            TextFieldIndexing::default()
                                .set_tokenizer("raw")
                                .set_index_option(IndexRecordOption::Basic)
                                .set_fieldnorms(false),
                        );
                    }
                    if f.stored {
                        opts = opts.set_stored();
                    }
                    if f.fast {
                        opts = opts.set_fast("raw");
                    }
                    builder.add_text_field(&f.name, opts);
                }
                FieldType::U64 => {
                    let mut opts = NumericOptions::default();
                    if f.indexed {
                        opts = opts.set_indexed();
                    }
                    if f.stored {
                        opts = opts.set_stored();
                    }
                    if f.fast {
                        opts = opts.set_fast();
                    }
                    builder.add_u64_field(&f.name, opts);
                }
            }
        }
        let schema = builder.build();
        let get = |name: &str| {
            schema
                .get_field(name)
                .map_err(|_| format!("schema lacks field {name:?}"))
        };
        let searched = searched_names
            .iter()
            .map(|(n, b)| Ok((get(n)?, *b)))
            .collect::<Result<Vec<_>, String>>()?;
        if searched.is_empty() {
            return Err("no field has a boost: BM25 would search nothing".into());
        }
        Ok(Fields {
            id: get("id")?,
            doc: get("doc")?,
            kind: get("kind")?,
            page: get("page")?,
            ordinal: get("ordinal")?,
            text: get("text")?,
            caption: get("caption")?,
            summary: get("summary")?,
            keywords: get("keywords")?,
            section: get("section")?,
            searched,
            schema,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_schema_loads_with_boosted_text_fields() {
        let f = Fields::load();
        let names: Vec<&str> = f
            .searched
            .iter()
            .map(|(field, _)| f.schema.get_field_name(*field))
            .collect();
        assert_eq!(names, ["text", "caption", "summary", "keywords", "section"]);
        assert!(f.schema.get_field_entry(f.doc).is_fast());
        assert!(f.schema.get_field_entry(f.page).is_fast());
        assert!(f.schema.get_field_entry(f.ordinal).is_fast());
    }

    #[test]
    fn schema_errors_are_caught() {
        let bad = "format_version = 2\n[[field]]\nname = \"x\"\ntype = \"u64\"\nboost = 2.0\n";
        assert!(parse(bad).unwrap_err().contains("only text fields"));
        let missing =
            "format_version = 2\n[[field]]\nname = \"text\"\ntype = \"text\"\nboost = 1.0\n";
        let file = parse(missing).unwrap();
        assert!(Fields::build(&file).unwrap_err().contains("\"id\""));
    }
}
