//! The command line, run as a user runs it.
//! One test binary of several modules (a cold `scripts/test` links a handful of binaries).

mod cli_analyze;
mod cli_gen;
mod cli_lexicon;
mod cli_match;
mod cli_words;
