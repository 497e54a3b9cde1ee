//! A tournament's event: what happened to it, numbered in order, for WatchTournament and for when
//! a result came in (what a broadcast's delay holds back). Kept as a row of its own in the store,
//! encoded with `prost` in the very bytes earlier builds wrote, so every row reads back.

/// One event of a tournament.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct TournamentEvent {
    /// From 0.
    #[prost(uint64, tag = "1")]
    pub number: u64,
    /// `created`, `player_added`, `player_withdrawn`, `pairings_made`, `round_started`, `result`,
    /// `result_corrected`, `division_imported`.
    #[prost(string, tag = "2")]
    pub kind: String,
    #[prost(string, tag = "3")]
    pub division: String,
    /// From 1 (0: not about a round).
    #[prost(uint32, tag = "4")]
    pub round: u32,
    /// From 1 (0: not about a pairing).
    #[prost(uint32, tag = "5")]
    pub pairing: u32,
    /// For people: what happened, e.g. "Ann 412 – Bo 388".
    #[prost(string, tag = "6")]
    pub detail: String,
    /// Milliseconds since the Unix epoch.
    #[prost(uint64, tag = "7")]
    pub unix_ms: u64,
}

impl TournamentEvent {
    /// Whether it tells of a pairing's result (what a broadcast's delay holds back).
    pub fn is_result(&self) -> bool {
        matches!(self.kind.as_str(), "result" | "result_corrected") && self.pairing > 0
    }
}
