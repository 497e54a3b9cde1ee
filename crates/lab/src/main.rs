//! `dawgref-lab`: the workbench beside the product. It learns the bots' tables from self-play
//! (`train`), measures the engine and the server for BENCHMARKS.md (`bench`), plays the
//! baselines and tables on trial against the bots (`match`) and the champion against MAGPIE
//! (`vs-magpie`), through the same library and the same server `Builder` users run; none of it
//! ships in the `dawgref` binary.

// HAProxy in front of replicas, as the deployment runs it (shared with the replica tests).
mod ab;
#[path = "../../../tests/common/balancer.rs"]
mod balancer;
mod baseline;
mod bench;
mod bench_balancer;
mod bench_broadcast;
mod bench_champion;
mod bench_endgame;
mod bench_flood;
mod bench_forward;
mod bench_livegames;
mod bench_lobby;
mod bench_pairing;
mod bench_reports;
mod bench_review;
mod bench_review_jobs;
mod bench_server;
mod bench_store;
mod classic;
mod fit;
mod magpie_disagree;
mod magpie_player;
mod matches;
mod otlp_sink;
mod setup;
mod tournament;
mod train;
mod vs_magpie;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The in-process server benchmarks measure it with the allocator the product uses, counting
/// the bytes held (what the program holds, apart from what the allocator keeps for reuse).
#[global_allocator]
static ALLOCATOR: Counted = Counted;

struct Counted;

static HELD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Bytes allocated and not yet freed, by the whole process.
pub fn heap_bytes() -> usize {
    HELD.load(std::sync::atomic::Ordering::Relaxed)
}

// SAFETY: every call is passed to mimalloc unchanged; the counter only observes sizes.
unsafe impl std::alloc::GlobalAlloc for Counted {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        HELD.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { mimalloc::MiMalloc.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        HELD.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        HELD.fetch_add(layout.size(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(new_size, std::sync::atomic::Ordering::Relaxed);
        HELD.fetch_sub(layout.size(), std::sync::atomic::Ordering::Relaxed);
        // SAFETY: the caller's contract, passed on.
        unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
    }
}

/// dawgref-lab: training and benchmarks for dawgref.
#[derive(Parser, Debug)]
#[command(name = "dawgref-lab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Learn the bots' tables from self-play.
    #[command(subcommand)]
    Train(train::TrainCommand),
    /// Measure the engine and the server (figures for BENCHMARKS.md).
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Two players against each other, seats alternating: the bot levels, the classic baseline,
    /// the strong bot by a leave table on trial.
    Match(matches::MatchArgs),
    /// A change to a player against the player without it: each deal from both seats, stopped
    /// once the difference is clear (how a lever is measured before it meets MAGPIE).
    Ab(ab::AbArgs),
    /// A division of the server's bots played to the end through TournamentsService: its
    /// standings and wall time.
    Tournament(tournament::TournamentArgs),
    /// Against MAGPIE (vs-magpie/run.sh): our leave table as MAGPIE reads one, and the champion
    /// against MAGPIE's timed player.
    #[command(subcommand)]
    VsMagpie(vs_magpie::VsMagpieCommand),
    /// An OTLP/gRPC trace receiver that counts spans and keeps none (what a server exports to
    /// while the cost of its traces is measured: `OTLP=1 scripts/h2load.sh`).
    OtlpSink(otlp_sink::SinkArgs),
}

/// Errors reaching the top level are printed and exit with code 2.
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(cmd) => train::run(cmd),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Match(args) => matches::run(args),
        Command::Ab(args) => ab::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::VsMagpie(cmd) => vs_magpie::run(cmd),
        Command::OtlpSink(args) => otlp_sink::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dawgref-lab: {e}");
            ExitCode::from(2)
        }
    }
}
