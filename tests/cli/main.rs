//! The command line, run as a user runs it (and `scripts/check-architecture`, as CI runs it).
//! One test binary of several modules (a cold `scripts/test` links a handful of binaries).

mod architecture;
mod cli_analyze;
mod cli_gcg;
mod cli_gen;
mod cli_lexicon;
mod cli_match;
mod cli_words;

use std::process::Command;

/// Run the `dawgref` binary: its exit code, standard output and standard error.
fn dawgref(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_dawgref")).args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
