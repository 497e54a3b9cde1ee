//! A tournament's event: what happened to it, numbered in order, for WatchTournament and for when
//! a result came in (what a broadcast's delay holds back). Kept as a row of its own in the store,
//! encoded with `prost` in the very bytes earlier builds wrote, so every row reads back.

/// Every kind of event a tournament has.
pub const EVENT_KINDS: [&str; 11] = [
    "created",
    "player_added",
    "player_withdrawn",
    "pairings_made",
    "round_started",
    "result",
    "result_corrected",
    "division_imported",
    "rounds_changed",
    "player_reentered",
    "round_unpaired",
];

/// One event of a tournament.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct TournamentEvent {
    /// From 0.
    #[prost(uint64, tag = "1")]
    pub number: u64,
    /// One of [`EVENT_KINDS`].
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
    /// Who did it: the name of the director key that acted, `director` for the root director,
    /// `game` for a result its game's end brought in (empty: an event of a build that did not
    /// keep it). Tags 13 and 14, as the wire's: 8 to 12 are kept for other fields.
    #[prost(string, tag = "13")]
    pub by: String,
    /// The players it is about, by number (from 1) in its division: a result's two (one for a
    /// bye), the player added or withdrawn.
    #[prost(uint32, repeated, tag = "14")]
    pub players: Vec<u32>,
}

impl TournamentEvent {
    /// Whether it tells of a pairing's result (what a broadcast's delay holds back).
    pub fn is_result(&self) -> bool {
        matches!(self.kind.as_str(), "result" | "result_corrected") && self.pairing > 0
    }

    /// Whether the log's filter (empty or 0: any) keeps it.
    pub fn matches(&self, filter: &LogFilter) -> bool {
        (filter.division.is_empty() || self.division == filter.division)
            && (filter.round == 0 || self.round == filter.round)
            && (filter.player == 0 || self.players.contains(&filter.player))
            && (filter.kinds.is_empty() || filter.kinds.contains(&self.kind))
            && (filter.by.is_empty() || self.by == filter.by)
    }
}

/// Which events of a tournament's log a director reads: each field empty or 0 keeps them all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFilter {
    pub division: String,
    pub round: u32,
    /// A player's number in `division`.
    pub player: u32,
    pub kinds: Vec<String>,
    pub by: String,
}

/// Who a change is by, as its events name them: a key's name, or `director` for the root.
pub fn actor(by: Option<&str>) -> String {
    by.unwrap_or(ROOT).to_string()
}

/// What the log names the root director.
pub const ROOT: &str = "director";

/// What the log names a result its game's end brought in.
pub const GAME: &str = "game";
