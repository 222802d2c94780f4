//! The server's credentials, when it wants them: `user:password` or an API key, from the
//! environment only (never a flag or the URL, so they are never printed or kept).

/// The variable that holds the server's credentials, when it wants them.
pub const TOKEN_ENV: &str = "INDEXER_MILVUS_TOKEN";

/// The credentials [`TOKEN_ENV`] holds, if any.
pub(crate) fn token() -> Option<String> {
    std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty())
}
