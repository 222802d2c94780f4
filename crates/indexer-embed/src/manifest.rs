use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// The file name of a model manifest inside a model folder.
pub const MANIFEST_FILE: &str = "model.toml";

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The mean of the token vectors under the attention mask (sentence-transformers' default).
    Mean,
    /// The vector of the first token (`[CLS]`).
    Cls,
}

/// The manifest of a model folder (`model.toml`): which files to load and how to turn the
/// network's output into a text vector. Unknown keys are an error, so a typo cannot silently
/// change the embedding.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelManifest {
    /// The model id stored in the index; a query is never embedded with another id.
    pub id: String,
    /// The ONNX file, relative to the model folder.
    pub onnx: String,
    /// The `tokenizer.json` file, relative to the model folder.
    pub tokenizer: String,
    /// Width of the network's output vectors.
    pub dimension: usize,
    /// The model's maximum sequence length in tokens, special tokens and prefix included.
    pub max_tokens: usize,
    pub pooling: Pooling,
    /// L2-normalise the pooled vector (after any Matryoshka truncation).
    pub normalize: bool,
    /// Name of the ONNX output to pool: token vectors `[batch, tokens, dimension]`, or already
    /// pooled vectors `[batch, dimension]`.
    pub output: String,
    /// Prepended to every query, e.g. `search_query: `.
    #[serde(default)]
    pub query_prefix: String,
    /// Prepended to every document, e.g. `search_document: `.
    #[serde(default)]
    pub document_prefix: String,
    /// Matryoshka truncation: keep the first this-many dimensions of the pooled vector.
    #[serde(default)]
    pub matryoshka_dim: Option<usize>,
    /// Layer-normalise the full pooled vector before Matryoshka truncation, as the
    /// nomic-embed-text-v1.5 recipe does. Only meaningful with `matryoshka_dim`.
    #[serde(default)]
    pub matryoshka_layer_norm: bool,
}

impl ModelManifest {
    /// Reads and validates `model.toml` in `model_dir`.
    pub fn from_dir(model_dir: &Path) -> Result<ModelManifest> {
        Self::from_file(&model_dir.join(MANIFEST_FILE))
    }

    /// Reads and validates a manifest file.
    pub fn from_file(path: &Path) -> Result<ModelManifest> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::MissingFile(path.to_path_buf())
            } else {
                Error::Io {
                    path: path.to_path_buf(),
                    source: e,
                }
            }
        })?;
        Self::parse(&text, path)
    }

    /// Parses and validates manifest text; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<ModelManifest> {
        let bad = |reason: String| Error::Manifest {
            path: path.to_path_buf(),
            reason,
        };
        let m: ModelManifest = toml::from_str(text).map_err(|e| bad(e.message().to_string()))?;
        m.validate().map_err(bad)?;
        Ok(m)
    }

    fn validate(&self) -> std::result::Result<(), String> {
        for (key, value) in [
            ("id", &self.id),
            ("onnx", &self.onnx),
            ("tokenizer", &self.tokenizer),
            ("output", &self.output),
        ] {
            if value.trim().is_empty() {
                return Err(format!("`{key}` is empty"));
            }
        }
        if self.dimension == 0 {
            return Err("`dimension` must be at least 1".into());
        }
        // Two special tokens ([CLS] ... [SEP]) plus at least one token of text.
        if self.max_tokens < 3 {
            return Err(format!(
                "`max_tokens` is {}, must be at least 3",
                self.max_tokens
            ));
        }
        if let Some(d) = self.matryoshka_dim {
            if d == 0 || d > self.dimension {
                return Err(format!(
                    "`matryoshka_dim` is {d}, must be between 1 and `dimension` ({})",
                    self.dimension
                ));
            }
        } else if self.matryoshka_layer_norm {
            return Err("`matryoshka_layer_norm` needs `matryoshka_dim`".into());
        }
        Ok(())
    }

    /// The width of the vectors the encoder returns: `matryoshka_dim` if set, else `dimension`.
    pub fn output_dim(&self) -> usize {
        self.matryoshka_dim.unwrap_or(self.dimension)
    }

    /// The ONNX file inside `model_dir`.
    pub fn onnx_path(&self, model_dir: &Path) -> PathBuf {
        model_dir.join(&self.onnx)
    }

    /// The tokenizer file inside `model_dir`.
    pub fn tokenizer_path(&self, model_dir: &Path) -> PathBuf {
        model_dir.join(&self.tokenizer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINILM: &str = r#"
id = "sentence-transformers/all-MiniLM-L6-v2@int8"
onnx = "model.onnx"
tokenizer = "tokenizer.json"
dimension = 384
max_tokens = 256
pooling = "mean"
normalize = true
output = "last_hidden_state"
query_prefix = ""
document_prefix = ""
"#;

    fn parse(text: &str) -> Result<ModelManifest> {
        ModelManifest::parse(text, Path::new("m/model.toml"))
    }

    #[test]
    fn parses_the_default_manifest() {
        let m = parse(MINILM).unwrap();
        assert_eq!(m.id, "sentence-transformers/all-MiniLM-L6-v2@int8");
        assert_eq!(m.pooling, Pooling::Mean);
        assert_eq!(m.output_dim(), 384);
        assert_eq!(m.matryoshka_dim, None);
        assert_eq!(m.onnx_path(Path::new("m")), Path::new("m/model.onnx"));
    }

    #[test]
    fn rejects_unknown_keys_bad_values_and_names_the_file() {
        let err = parse(&format!("{MINILM}poolling = \"cls\"\n")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("invalid model manifest m/model.toml: "),
            "{msg}"
        );
        assert!(msg.contains("poolling"), "{msg}");
        assert!(err.is_user_error());

        let err = parse(&MINILM.replace("\"mean\"", "\"max\"")).unwrap_err();
        assert!(err.to_string().contains("max"), "{err}");

        let err = parse(&MINILM.replace("dimension = 384", "dimension = 0")).unwrap_err();
        assert!(
            err.to_string().ends_with("`dimension` must be at least 1"),
            "{err}"
        );

        let err = parse(&format!("{MINILM}matryoshka_dim = 512\n")).unwrap_err();
        assert!(err.to_string().contains("`matryoshka_dim` is 512"), "{err}");

        let err = parse(&MINILM.replace("output = \"last_hidden_state\"", "")).unwrap_err();
        assert!(err.to_string().contains("output"), "{err}");
    }

    #[test]
    fn prefixes_default_to_empty_and_matryoshka_sets_the_output_width() {
        let text = MINILM
            .replace("query_prefix = \"\"\n", "")
            .replace("document_prefix = \"\"\n", "");
        let m = parse(&format!("{text}matryoshka_dim = 128\n")).unwrap();
        assert_eq!(m.query_prefix, "");
        assert_eq!(m.document_prefix, "");
        assert_eq!(m.output_dim(), 128);
    }
}
