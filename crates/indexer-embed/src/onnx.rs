use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ort::session::{Session, SessionInputValue};
use ort::value::{TensorElementType, TensorRef, ValueType};
use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::encoder::{Embeddings, Encoder};
use crate::error::{Error, Result};
use crate::manifest::{ModelManifest, Pooling};

/// Default number of texts per inference call. Small batches cost less CPU per text here,
/// not more (the activations of 4 x 256 tokens stay in cache; attention is quadratic in the
/// padded length), and a session's peak memory grows with the batch. Measured on an ingest
/// of two 10-K reports (930 notes, 2 sessions; CPU seconds of the whole ingest / peak RSS):
/// batch 1: 31.9 s / 0.38 GB, 2: 31.5 / 0.44, 4: 33.7 / 0.54, 8: 36.5 / 0.73,
/// 16: 41.4 / 1.11, 32: 46.4 / 1.84.
pub const DEFAULT_BATCH_SIZE: usize = 4;

/// The one ONNX Runtime environment of the process and the library it was loaded from.
/// `ort::init_from` binds the library once per process (a second call with another path is
/// silently ignored by `ort`), so we remember the path and refuse a different one. A `Mutex`
/// rather than a `OnceLock`: initialisation can fail, and a failed attempt must not poison later
/// ones with a different path.
static ORT_ENV: Mutex<Option<(PathBuf, ort::environment::Environment)>> = Mutex::new(None);

fn environment(library: &Path) -> Result<ort::environment::Environment> {
    if !library.is_file() {
        return Err(indexer_runtime::Error::MissingFile(library.to_path_buf()).into());
    }
    let requested = library
        .canonicalize()
        .unwrap_or_else(|_| library.to_path_buf());
    let mut slot = ORT_ENV.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((loaded, env)) = slot.as_ref() {
        return if *loaded == requested {
            Ok(env.clone())
        } else {
            Err(Error::RuntimeConflict {
                loaded: loaded.clone(),
                requested,
            })
        };
    }
    let load_err = |reason: String| Error::LoadRuntime {
        path: requested.clone(),
        reason,
    };
    let env = ort::init_from(&requested)
        .map_err(|e| load_err(e.to_string()))?
        .with_name("indexer")
        .with_telemetry(false)
        .build()
        .map_err(|e| load_err(e.to_string()))?;
    *slot = Some((requested, env.clone()));
    Ok(env)
}

/// Which tensor an ONNX input receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InputKind {
    Ids,
    Mask,
    TypeIds,
}

/// Configures and loads an [`OnnxEncoder`]; `build()` validates the manifest, the files and the
/// model's inputs and outputs.
#[derive(Debug, Clone)]
pub struct OnnxEncoderBuilder {
    model_dir: PathBuf,
    runtime_library: Option<PathBuf>,
    intra_threads: usize,
    sessions: usize,
    batch_size: usize,
    spinning: bool,
}

impl OnnxEncoderBuilder {
    /// The `libonnxruntime.so` to load. Without it, the runtime folder is discovered
    /// ([`indexer_runtime::Runtime::discover`]). A process loads one library: a later builder
    /// with another path fails with [`Error::RuntimeConflict`].
    pub fn runtime_library(mut self, path: impl Into<PathBuf>) -> Self {
        self.runtime_library = Some(path.into());
        self
    }

    /// Threads ONNX Runtime uses inside one operator (intra-op threads); default 1.
    pub fn intra_threads(mut self, n: usize) -> Self {
        self.intra_threads = n;
        self
    }

    /// Independent ONNX Runtime sessions; default 1. The batches of one call run on them side
    /// by side (one thread per session), and so do concurrent calls (a server's queries).
    /// Each session holds its own copy of the model's weights. For bulk embedding on `n` cores,
    /// `n` sessions of 1 intra-op thread scale better than one session of `n` threads: the
    /// sessions never wait on each other inside an operator (measured in `benches/encode.rs`).
    pub fn sessions(mut self, n: usize) -> Self {
        self.sessions = n;
        self
    }

    /// Texts per inference call; default [`DEFAULT_BATCH_SIZE`]. Texts are sorted by token
    /// length first, so each batch pads to a similar length.
    pub fn batch_size(mut self, b: usize) -> Self {
        self.batch_size = b;
        self
    }

    /// Let idle ONNX Runtime threads spin before they sleep. Off by default: spinning buys a
    /// little latency at the price of burning the cores other work (parsing, indexing, other
    /// queries) needs.
    pub fn spinning(mut self, on: bool) -> Self {
        self.spinning = on;
        self
    }

    pub fn build(self) -> Result<OnnxEncoder> {
        if self.intra_threads == 0 {
            return Err(Error::Config("intra_threads must be at least 1".into()));
        }
        if self.sessions == 0 {
            return Err(Error::Config("sessions must be at least 1".into()));
        }
        if self.batch_size == 0 {
            return Err(Error::Config("batch_size must be at least 1".into()));
        }
        let manifest = ModelManifest::from_dir(&self.model_dir)?;
        let onnx_path = manifest.onnx_path(&self.model_dir);
        let tokenizer_path = manifest.tokenizer_path(&self.model_dir);
        for p in [&onnx_path, &tokenizer_path] {
            if !p.is_file() {
                return Err(Error::MissingFile(p.clone()));
            }
        }
        let library = match self.runtime_library {
            Some(p) => p,
            None => indexer_runtime::Runtime::discover()?.onnxruntime_library()?,
        };
        let env = environment(&library)?;

        let tok_err = |reason: String| Error::Tokenizer {
            path: tokenizer_path.clone(),
            reason,
        };
        let mut counter =
            Tokenizer::from_file(&tokenizer_path).map_err(|e| tok_err(e.to_string()))?;
        // The file's padding parameters name the pad token; we pad ourselves (see `run_batch`).
        let pad_id = counter
            .get_padding()
            .map(|p| p.pad_id)
            .or_else(|| counter.token_to_id("[PAD]"))
            .unwrap_or(0);
        // tokenizer.json files fix truncation and padding for the exporter's use (MiniLM's says
        // 128 tokens, padded to 128); the model reads `max_tokens`, and fixed padding would waste
        // most of the work on short texts.
        counter.with_padding(None);
        counter
            .with_truncation(None)
            .map_err(|e| tok_err(e.to_string()))?;
        let mut tokenizer = counter.clone();
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: manifest.max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| tok_err(e.to_string()))?;
        let specials = encode(&counter, "", true)?.len();
        let doc_prefix_tokens = encode(&counter, &manifest.document_prefix, false)?.len();
        let max_content = manifest
            .max_tokens
            .checked_sub(specials + doc_prefix_tokens)
            .filter(|&n| n > 0)
            .ok_or_else(|| Error::Manifest {
                path: self.model_dir.join(crate::manifest::MANIFEST_FILE),
                reason: format!(
                    "`max_tokens` ({}) leaves no room for text after {specials} special and {doc_prefix_tokens} prefix tokens",
                    manifest.max_tokens
                ),
            })?;

        // Setting session options fails only inside ONNX Runtime: an internal error.
        let ort_err = |e: ort::Error| Error::Inference {
            path: onnx_path.clone(),
            reason: e.to_string(),
        };
        let load = || {
            Session::builder(&env)
                .map_err(ort_err)?
                .with_intra_threads(self.intra_threads)
                .map_err(|e| ort_err(e.into()))?
                .with_inter_threads(1)
                .map_err(|e| ort_err(e.into()))?
                .with_intra_op_spinning(self.spinning)
                .map_err(|e| ort_err(e.into()))?
                .with_inter_op_spinning(self.spinning)
                .map_err(|e| ort_err(e.into()))?
                // Memory patterns are planned and kept per input shape, and every batch pads
                // to its own length: with them a 2-session ingest of two 10-K reports peaked
                // at 3.2 GB resident (batch size 32), without them 1.8 GB, for less CPU time.
                // The CPU arena stays: without it, CPU time rose by 60% (page faults).
                .with_memory_pattern(false)
                .map_err(|e| ort_err(e.into()))?
                .commit_from_file(&onnx_path)
                .map_err(|e| Error::ModelMismatch {
                    path: onnx_path.clone(),
                    reason: format!("ONNX Runtime cannot load it: {e}"),
                })
        };
        let session = load()?;
        let (inputs, output_rank) = check_signature(&session, &manifest, &onnx_path)?;
        let mut sessions = vec![Mutex::new(session)];
        for _ in 1..self.sessions {
            sessions.push(Mutex::new(load()?));
        }
        let encoder = OnnxEncoder {
            manifest,
            onnx_path,
            tokenizer,
            counter,
            sessions,
            next_session: AtomicUsize::new(0),
            inputs,
            output_rank,
            batch_size: self.batch_size,
            pad_id,
            max_content,
        };
        encoder.probe()?;
        Ok(encoder)
    }
}

/// Checks the session's inputs and the manifest's output against the model's metadata; returns
/// the input layout and the output's rank (3: token vectors to pool, 2: pooled vectors).
fn check_signature(
    session: &Session,
    manifest: &ModelManifest,
    onnx_path: &Path,
) -> Result<(Vec<(String, InputKind)>, usize)> {
    let mismatch = |reason: String| Error::ModelMismatch {
        path: onnx_path.to_path_buf(),
        reason,
    };
    let mut inputs = Vec::new();
    for input in session.inputs() {
        let kind = match input.name() {
            "input_ids" => InputKind::Ids,
            "attention_mask" => InputKind::Mask,
            "token_type_ids" => InputKind::TypeIds,
            other => {
                return Err(mismatch(format!(
                    "unknown input `{other}` (known: input_ids, attention_mask, token_type_ids)"
                )));
            }
        };
        if input.dtype().tensor_type() != Some(TensorElementType::Int64) {
            return Err(mismatch(format!(
                "input `{}` is {:?}, expected an int64 tensor",
                input.name(),
                input.dtype()
            )));
        }
        inputs.push((input.name().to_string(), kind));
    }
    for needed in [InputKind::Ids, InputKind::Mask] {
        if !inputs.iter().any(|(_, k)| *k == needed) {
            return Err(mismatch(format!(
                "it has no input {needed:?}; inputs are input_ids and attention_mask (token_type_ids optional)"
            )));
        }
    }
    let names: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
    let output = session
        .outputs()
        .iter()
        .find(|o| o.name() == manifest.output)
        .ok_or_else(|| {
            mismatch(format!(
                "it has no output `{}`; its outputs are {}",
                manifest.output,
                names.join(", ")
            ))
        })?;
    let (ty, shape) = match output.dtype() {
        ValueType::Tensor { ty, shape, .. } => (*ty, shape.clone()),
        other => {
            return Err(mismatch(format!(
                "output `{}` is {other:?}, not a tensor",
                manifest.output
            )));
        }
    };
    if ty != TensorElementType::Float32 {
        return Err(mismatch(format!(
            "output `{}` holds {ty:?}, expected float32",
            manifest.output
        )));
    }
    let rank = shape.len();
    if rank != 2 && rank != 3 {
        return Err(mismatch(format!(
            "output `{}` has shape {:?}; expected [batch, tokens, dimension] or [batch, dimension]",
            manifest.output,
            &shape[..]
        )));
    }
    let last = shape[rank - 1];
    if last >= 0 && last as usize != manifest.dimension {
        return Err(mismatch(format!(
            "output `{}` is {last} wide but the manifest says dimension = {}",
            manifest.output, manifest.dimension
        )));
    }
    Ok((inputs, rank))
}

fn encode(tok: &Tokenizer, text: &str, special: bool) -> Result<Encoding> {
    tok.encode_fast(text, special)
        .map_err(|e| Error::Tokenize(e.to_string()))
}

/// Sentence embeddings with ONNX Runtime and a Hugging Face `tokenizer.json`, configured by a
/// model manifest ([`ModelManifest`]).
///
/// `ort`'s `Session::run` takes `&mut self`, so each session sits in a `Mutex`. With several
/// sessions ([`OnnxEncoderBuilder::sessions`]) the batches of one call are spread over them
/// on scoped threads, and concurrent calls each take a free session: a server's queries do not
/// queue behind one another while a session is idle.
pub struct OnnxEncoder {
    manifest: ModelManifest,
    onnx_path: PathBuf,
    /// Truncates at the model's `max_tokens`.
    tokenizer: Tokenizer,
    /// Never truncates: for [`Encoder::count_tokens`].
    counter: Tokenizer,
    sessions: Vec<Mutex<Session>>,
    /// Round robin for the session a call waits on when none is free.
    next_session: AtomicUsize,
    inputs: Vec<(String, InputKind)>,
    output_rank: usize,
    batch_size: usize,
    pad_id: u32,
    max_content: usize,
}

impl std::fmt::Debug for OnnxEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEncoder")
            .field("model_id", &self.manifest.id)
            .field("onnx", &self.onnx_path)
            .field("dim", &self.manifest.output_dim())
            .field("batch_size", &self.batch_size)
            .field("sessions", &self.sessions.len())
            .finish_non_exhaustive()
    }
}

impl OnnxEncoder {
    /// A builder for the model in `model_dir` (a folder with `model.toml`).
    pub fn builder(model_dir: &Path) -> OnnxEncoderBuilder {
        OnnxEncoderBuilder {
            model_dir: model_dir.to_path_buf(),
            runtime_library: None,
            intra_threads: 1,
            sessions: 1,
            batch_size: DEFAULT_BATCH_SIZE,
            spinning: false,
        }
    }

    /// The model `models/<model>/` of a runtime folder, with that folder's ONNX Runtime and
    /// default options.
    pub fn from_runtime(rt: &indexer_runtime::Runtime, model: &str) -> Result<OnnxEncoder> {
        let library = rt.onnxruntime_library()?;
        let dir = rt.model_dir(model)?;
        OnnxEncoder::builder(&dir).runtime_library(library).build()
    }

    pub fn manifest(&self) -> &ModelManifest {
        &self.manifest
    }

    /// Embeds texts exactly as given, with no prefix: what the other methods build on.
    pub fn embed_raw(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed_with_prefix(texts, "")
    }

    fn embed_with_prefix(&self, texts: &[&str], prefix: &str) -> Result<Embeddings> {
        let dim = self.manifest.output_dim();
        let mut encodings = Vec::with_capacity(texts.len());
        for text in texts {
            let input: Cow<'_, str> = if prefix.is_empty() {
                Cow::Borrowed(text)
            } else {
                Cow::Owned(format!("{prefix}{text}"))
            };
            encodings.push(encode(&self.tokenizer, &input, true)?);
        }
        let truncated = encodings
            .iter()
            .filter(|e| !e.get_overflowing().is_empty())
            .count();
        // Sorting by length makes each batch pad to about its own length instead of to the
        // longest text of the whole call; the stable sort keeps equal lengths in input order.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].len());
        // With several sessions a call of fewer than `sessions x batch_size` texts is cut
        // into one batch per session, so that it too runs side by side.
        let per_batch = self
            .batch_size
            .min(texts.len().div_ceil(self.sessions.len()))
            .max(1);
        let batches: Vec<&[usize]> = order.chunks(per_batch).collect();
        let mut data = vec![0f32; texts.len() * dim];
        let mut scatter = |batch: &[usize], rows: &[f32]| {
            for (&i, row) in batch.iter().zip(rows.chunks_exact(dim)) {
                data[i * dim..(i + 1) * dim].copy_from_slice(row);
            }
        };
        let workers = self.sessions.len().min(batches.len());
        if workers <= 1 {
            let mut session = self.free_session();
            let mut rows = Vec::new();
            for batch in &batches {
                self.run_batch(&mut session, &encodings, batch, &mut rows)?;
                scatter(batch, &rows);
            }
        } else {
            // Each worker owns one session and takes the next batch until none is left.
            let next = AtomicUsize::new(0);
            // Per worker: (batch number, its rows) for each batch it ran.
            type Done = Vec<(usize, Vec<f32>)>;
            let results: Vec<Result<Done>> = std::thread::scope(|scope| {
                let handles: Vec<_> = self.sessions[..workers]
                    .iter()
                    .map(|slot| {
                        let (next, batches, encodings) = (&next, &batches, &encodings);
                        scope.spawn(move || {
                            let mut session = slot.lock().unwrap_or_else(|p| p.into_inner());
                            let mut done = Vec::new();
                            loop {
                                let k = next.fetch_add(1, Ordering::Relaxed);
                                let Some(batch) = batches.get(k) else { break };
                                let mut rows = Vec::new();
                                self.run_batch(&mut session, encodings, batch, &mut rows)?;
                                done.push((k, rows));
                            }
                            Ok(done)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            for done in results {
                for (k, rows) in done? {
                    scatter(batches[k], &rows);
                }
            }
        }
        Ok(Embeddings {
            dim,
            data,
            truncated,
        })
    }

    /// A free session if one is, else the next one round robin (waiting for it).
    fn free_session(&self) -> std::sync::MutexGuard<'_, Session> {
        for slot in &self.sessions {
            if let Ok(guard) = slot.try_lock() {
                return guard;
            }
        }
        let k = self.next_session.fetch_add(1, Ordering::Relaxed) % self.sessions.len();
        self.sessions[k].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs the texts `batch` (indices into `encodings`) on `session` and writes their vectors
    /// into `out`, one row per text in batch order.
    fn run_batch(
        &self,
        session: &mut Session,
        encodings: &[Encoding],
        batch: &[usize],
        out: &mut Vec<f32>,
    ) -> Result<()> {
        let b = batch.len();
        let t = batch.iter().map(|&i| encodings[i].len()).max().unwrap_or(0);
        // Padding to the longest text of the batch (what the tokenizer's BatchLongest does),
        // written straight into the buffers ONNX Runtime reads, so no further copy is made.
        let mut ids = vec![i64::from(self.pad_id); b * t];
        let mut mask = vec![0i64; b * t];
        let mut types = vec![0i64; b * t];
        for (row, &i) in batch.iter().enumerate() {
            let e = &encodings[i];
            let base = row * t;
            for (k, (&id, (&m, &ty))) in e
                .get_ids()
                .iter()
                .zip(e.get_attention_mask().iter().zip(e.get_type_ids()))
                .enumerate()
            {
                ids[base + k] = i64::from(id);
                mask[base + k] = i64::from(m);
                types[base + k] = i64::from(ty);
            }
        }
        let infer_err = |e: ort::Error| Error::Inference {
            path: self.onnx_path.clone(),
            reason: e.to_string(),
        };
        let shape = [b, t];
        let mut feeds: Vec<(Cow<'_, str>, SessionInputValue<'_>)> =
            Vec::with_capacity(self.inputs.len());
        for (name, kind) in &self.inputs {
            let buf = match kind {
                InputKind::Ids => &ids,
                InputKind::Mask => &mask,
                InputKind::TypeIds => &types,
            };
            let tensor = TensorRef::from_array_view((shape, buf.as_slice())).map_err(infer_err)?;
            feeds.push((Cow::Borrowed(name.as_str()), tensor.into()));
        }

        let outputs = session.run(feeds).map_err(infer_err)?;
        let value = outputs
            .get(&self.manifest.output)
            .ok_or_else(|| Error::ModelMismatch {
                path: self.onnx_path.clone(),
                reason: format!("output `{}` missing from the results", self.manifest.output),
            })?;
        let (out_shape, hidden) = value.try_extract_tensor::<f32>().map_err(infer_err)?;
        let h = self.manifest.dimension;
        let expected: &[i64] = if self.output_rank == 3 {
            &[b as i64, t as i64, h as i64]
        } else {
            &[b as i64, h as i64]
        };
        if &out_shape[..] != expected {
            return Err(Error::ModelMismatch {
                path: self.onnx_path.clone(),
                reason: format!(
                    "output `{}` has shape {:?}, expected {expected:?} (dimension = {h} in the manifest)",
                    self.manifest.output,
                    &out_shape[..]
                ),
            });
        }

        let dim = self.manifest.output_dim();
        out.clear();
        out.resize(b * dim, 0.0);
        let mut pooled = vec![0f64; h];
        for row in 0..b {
            pooled.iter_mut().for_each(|v| *v = 0.0);
            if self.output_rank == 2 {
                for (p, &x) in pooled.iter_mut().zip(&hidden[row * h..(row + 1) * h]) {
                    *p = f64::from(x);
                }
            } else {
                let tokens = &hidden[row * t * h..(row + 1) * t * h];
                match self.manifest.pooling {
                    Pooling::Cls => {
                        for (p, &x) in pooled.iter_mut().zip(&tokens[..h]) {
                            *p = f64::from(x);
                        }
                    }
                    Pooling::Mean => {
                        let m = &mask[row * t..(row + 1) * t];
                        let mut count = 0f64;
                        for (k, _) in m.iter().enumerate().filter(|(_, m)| **m != 0) {
                            count += 1.0;
                            for (p, &x) in pooled.iter_mut().zip(&tokens[k * h..(k + 1) * h]) {
                                *p += f64::from(x);
                            }
                        }
                        // sentence-transformers clamps the count the same way.
                        let count = count.max(1e-9);
                        pooled.iter_mut().for_each(|p| *p /= count);
                    }
                }
            }
            finish(&self.manifest, &mut pooled);
            for (o, &p) in out[row * dim..(row + 1) * dim]
                .iter_mut()
                .zip(&pooled[..dim])
            {
                *o = p as f32;
            }
        }
        Ok(())
    }

    /// One tiny inference at load: proves the model runs and that its output really is as wide
    /// as the manifest says when the metadata leaves the width open.
    fn probe(&self) -> Result<()> {
        let e = self.embed_raw(&["probe"])?;
        let norm: f32 = e.data.iter().map(|x| x * x).sum::<f32>().sqrt();
        if !norm.is_finite() || norm == 0.0 {
            return Err(Error::ModelMismatch {
                path: self.onnx_path.clone(),
                reason: format!("a probe text embeds to a vector of norm {norm}"),
            });
        }
        Ok(())
    }
}

/// Matryoshka truncation and L2 normalisation of a pooled vector, in place; the result is in
/// `v[..manifest.output_dim()]`.
fn finish(manifest: &ModelManifest, v: &mut [f64]) {
    if manifest.matryoshka_layer_norm {
        // Layer norm without learned scale and shift over the full width (nomic's recipe
        // before truncation); 1e-5 is torch's default epsilon.
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
        let scale = 1.0 / (var + 1e-5).sqrt();
        v.iter_mut().for_each(|x| *x = (*x - mean) * scale);
    }
    let v = &mut v[..manifest.output_dim()];
    if manifest.normalize {
        // torch's F.normalize clamps the norm at 1e-12; so do we, so a zero vector stays zero.
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-12);
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

impl Encoder for OnnxEncoder {
    fn model_id(&self) -> &str {
        &self.manifest.id
    }

    fn dim(&self) -> usize {
        self.manifest.output_dim()
    }

    fn max_tokens(&self) -> usize {
        self.max_content
    }

    fn count_tokens(&self, text: &str) -> usize {
        // Tokenization of a &str cannot fail with the BERT-style pipelines we load; a failure
        // would come from a broken tokenizer file, which `build` already rejected.
        self.counter
            .encode_fast(text, false)
            .map(|e| e.len())
            .unwrap_or_else(|_| text.split_whitespace().count())
    }

    fn embed_documents(&self, texts: &[&str]) -> Result<Embeddings> {
        self.embed_with_prefix(texts, &self.manifest.document_prefix)
    }

    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self
            .embed_with_prefix(&[text], &self.manifest.query_prefix)?
            .data)
    }
}

impl indexer_notes::TokenCounter for OnnxEncoder {
    fn count_tokens(&self, text: &str) -> usize {
        Encoder::count_tokens(self, text)
    }
}
