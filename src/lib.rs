//! dawgref: a referee for the crossword board game (Scrabble, Скрэббл, Эрудит).
//!
//! The engine (every module but `proto`) is plain synchronous Rust; only the server layer knows
//! gRPC. See ARCHITECTURE.md for the map and the invariants between modules.

pub mod alphabet;
pub mod bag;
pub mod board;
pub mod bot;
pub mod fuzzing;
pub mod game;
pub mod lexicon;
pub mod movegen;
pub mod notation;
pub mod play;
pub mod proto;
pub mod rack;
pub mod rules;
pub mod score;
pub mod selfplay;
pub mod server;
pub mod store;
pub mod text;
pub mod validate;
