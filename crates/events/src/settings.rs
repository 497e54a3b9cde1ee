//! The settings every game of a tournament is made with, as its director gave them: kept with
//! the tournament (JSON, as the rest of its record) and shown back as given. The ruleset and the
//! challenge rule stay the numbers the director chose them by, so a tournament made with
//! `ruleset_name` shows no enum it was not given. Records of earlier builds kept these as
//! protobuf; the same type reads them (`prost` field for field), so nothing is lost.

use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct GameSettings {
    /// The ruleset by the wire's number (0: by `ruleset_name`, else English).
    #[prost(int32, tag = "1")]
    pub ruleset: i32,
    #[prost(string, tag = "7")]
    pub ruleset_name: String,
    #[prost(string, tag = "2")]
    pub lexicon: String,
    /// The challenge rule by the wire's number (0: the ruleset's default).
    #[prost(int32, tag = "3")]
    pub challenge_rule: i32,
    #[prost(message, optional, tag = "4")]
    pub options: Option<GameOptions>,
    #[prost(message, optional, tag = "5")]
    pub clock: Option<ClockSettings>,
    /// Least time between a change and a bot's move (unset: the host's default).
    #[prost(uint32, optional, tag = "6")]
    pub bot_delay_ms: Option<u32>,
}

/// The rules a game may change from its ruleset's.
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct GameOptions {
    #[prost(bool, tag = "1")]
    pub bonus_per_challenge: bool,
    #[prost(bool, tag = "2")]
    pub reveal_invalid_words: bool,
    #[prost(bool, tag = "3")]
    pub blank_scores_letter: bool,
    #[prost(bool, optional, tag = "4")]
    pub no_repeated_words: Option<bool>,
    #[prost(uint32, optional, tag = "5")]
    pub scoreless_turn_limit: Option<u32>,
    #[prost(uint32, optional, tag = "6")]
    pub exchange_limit: Option<u32>,
}

/// A game's clock: a chess clock (initial time, increment, overtime and its penalty) or a
/// correspondence clock (`per_move_ms`).
#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, prost::Message)]
pub struct ClockSettings {
    #[prost(uint64, tag = "1")]
    pub initial_ms: u64,
    #[prost(uint64, tag = "2")]
    pub increment_ms: u64,
    #[prost(uint64, tag = "3")]
    pub max_overtime_ms: u64,
    #[prost(int32, tag = "4")]
    pub penalty_per_minute: i32,
    #[prost(uint64, tag = "5")]
    pub per_move_ms: u64,
}
