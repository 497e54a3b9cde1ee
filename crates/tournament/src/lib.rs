//! Tournaments as data and rules, with no I/O: a [`Division`] of players and rounds, each round
//! paired by its [`Method`] ([`Division::pair`]), results entered as they come
//! ([`Division::record`]), the plan changed after the start (rounds added or taken off, late
//! entries, re-entries, a round unpaired: `plan`), the table each game is played at with a
//! player's reserved one kept (`tables`), [`Standings`] by the North American order, a
//! division's [`Statistics`], the division read from and written to TSH's `.t` files ([`tsh`]),
//! and each player's rating estimate as the rating bodies compute it ([`ratings`]).
//!
//! What this crate owns: who plays whom and at which table, who goes first, who has the bye, who
//! is Gibsonized, and how a result counts. What it does not: games, tokens, storage, time. The
//! server holds a division behind its store and calls these functions; they are deterministic (a
//! draw comes from the division's seed), so a replica or a restart pairs exactly as the first did.

pub mod csv;
mod division;
mod draw;
mod matching;
mod name;
mod pairing;
mod plan;
pub mod prizes;
mod rating_system;
pub mod ratings;
mod standings;
pub mod statistics;
mod tables;
pub mod tsh;

pub use division::{
    Controls, Division, Error, GameResult, MAX_PLAYERS, MAX_ROUNDS, MAX_TABLE, Method, Pairing, PairingId,
    Player, PlayerId, Round, RoundId, zero_is_unrated,
};
pub use matching::{SWISS_BLOCK, min_cost_pairs};
pub use plan::Missed;
pub use standings::{Standing, Standings};
pub use statistics::Statistics;
