//! dawgref: a referee for the crossword board game (Scrabble, Скрэббл, Эрудит).
//!
//! The engine (every module but `proto`) is plain synchronous Rust; only the server layer knows
//! gRPC. See ARCHITECTURE.md for the map and the invariants between modules.

pub mod alphabet;
pub mod lexicon;
pub mod proto;
