#![no_main]
// indexer-index turns the panics tantivy has on some damaged files into errors
// (catch_unwind); libFuzzer's panic hook would abort on those first. So this target prints
// panics instead: one that escapes the target is still a crash, since libfuzzer-sys aborts
// when the target unwinds.
libfuzzer_sys::fuzz_target!(
    init: std::panic::set_hook(Box::new(|info| eprintln!("panic (caught unless a crash follows): {info}"))),
    |data: &[u8]| indexer_fuzz::store(data)
);
