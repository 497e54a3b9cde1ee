//! The dawgref engine: everything that knows the game and nothing of how it is served.
//!
//! Plain synchronous Rust: no async runtime, no gRPC, no database. The server crate (the
//! workspace root) builds sessions, storage and the API on top of it. See ARCHITECTURE.md for
//! the map and the invariants between modules.

pub mod alphabet;
pub mod bag;
pub mod board;
pub mod bot;
pub mod budget;
pub mod endgame;
pub mod equity;
pub mod game;
pub mod infer;
mod interned;
pub mod leaves;
pub mod lexicon;
pub mod movegen;
pub mod notation;

pub mod play;
pub mod pre_endgame;
pub mod rack;
pub mod review;
pub mod rulebook;
pub mod rules;
pub mod score;
pub mod script;
pub mod selfplay;
pub mod sim;
pub mod text;
pub mod validate;
pub mod winprob;
