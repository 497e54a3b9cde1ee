#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| dawgref_fuzzing::lexicon_file(data));
