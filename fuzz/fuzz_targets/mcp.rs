#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| indexer_fuzz::mcp(data));
