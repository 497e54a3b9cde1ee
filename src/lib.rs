//! dawgref: a referee for the crossword board game (Scrabble, Скрэббл, Эрудит).
//!
//! This crate is the server: the game host (sessions), storage, the gRPC services and the CLI. The engine lives in its own
//! crate (`crates/engine`, which cannot import tokio, tonic, prost or rusqlite); its modules are
//! re-exported here so that `dawgref::game` and `crate::game` name the same thing. See
//! ARCHITECTURE.md for the map and the invariants between modules.

pub use dawgref_engine::{
    alphabet, bag, board, bot, budget, endgame, equity, game, infer, leaves, lexicon, movegen, notation,
    play, pre_endgame, rack, review, rulebook, rules, score, selfplay, sim, text, validate, winprob,
};

pub use dawgref_host as host;
pub use dawgref_store as store;
pub use dawgref_tournament as tournament;

pub mod console;
pub mod memory;
pub mod metrics;
pub mod proto;
pub mod server;
pub mod telemetry;
