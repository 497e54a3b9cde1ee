//! The `dawgref` command line: a thin layer over the library.

mod cli;

use clap::Parser;
use std::process::ExitCode;

/// A server answers each request with dozens of small allocations (protobuf strings, HTTP/2
/// frames); mimalloc's thread-local free lists make them several times cheaper than glibc's
/// malloc (see BENCHMARKS.md, "Throughput next to the gRPC floor").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dawgref: {e}");
            ExitCode::from(2)
        }
    }
}
