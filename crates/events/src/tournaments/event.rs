//! A tournament's event: what happened to it, numbered in order, for WatchTournament and for when
//! a result came in (what a broadcast's delay holds back). Kept as a row of its own in the store,
//! encoded with `prost` in the very bytes earlier builds wrote, so every row reads back.

use crate::error::{EventsError, Invalid, MAX_KINDS};
use dawgref_tournament::{GameResult, Pairing, PlayerId};

/// Every kind of event a tournament has. Stored (and shown) by its name, the names earlier builds
/// wrote, so every row already written reads as the same kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    Created,
    PlayerAdded,
    PlayerWithdrawn,
    PairingsMade,
    RoundStarted,
    Result,
    ResultCorrected,
    DivisionImported,
    RoundsChanged,
    PlayerReentered,
    RoundUnpaired,
    TokenReissued,
    ReportsSet,
    ResultReported,
    TableReserved,
    PrizesSet,
    CheckedIn,
    ReviewsAsked,
    ReviewsSet,
}

impl EventKind {
    /// Every kind, in the order the log lists them.
    pub const ALL: [EventKind; 19] = [
        EventKind::Created,
        EventKind::PlayerAdded,
        EventKind::PlayerWithdrawn,
        EventKind::PairingsMade,
        EventKind::RoundStarted,
        EventKind::Result,
        EventKind::ResultCorrected,
        EventKind::DivisionImported,
        EventKind::RoundsChanged,
        EventKind::PlayerReentered,
        EventKind::RoundUnpaired,
        EventKind::TokenReissued,
        EventKind::ReportsSet,
        EventKind::ResultReported,
        EventKind::TableReserved,
        EventKind::PrizesSet,
        EventKind::CheckedIn,
        EventKind::ReviewsAsked,
        EventKind::ReviewsSet,
    ];

    /// The kind's name, as stored and shown.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Created => "created",
            EventKind::PlayerAdded => "player_added",
            EventKind::PlayerWithdrawn => "player_withdrawn",
            EventKind::PairingsMade => "pairings_made",
            EventKind::RoundStarted => "round_started",
            EventKind::Result => "result",
            EventKind::ResultCorrected => "result_corrected",
            EventKind::DivisionImported => "division_imported",
            EventKind::RoundsChanged => "rounds_changed",
            EventKind::PlayerReentered => "player_reentered",
            EventKind::RoundUnpaired => "round_unpaired",
            EventKind::TokenReissued => "token_reissued",
            EventKind::ReportsSet => "reports_set",
            EventKind::ResultReported => "result_reported",
            EventKind::TableReserved => "table_reserved",
            EventKind::PrizesSet => "prizes_set",
            EventKind::CheckedIn => "checked_in",
            EventKind::ReviewsAsked => "reviews_asked",
            EventKind::ReviewsSet => "reviews_set",
        }
    }

    /// The kinds a log's filter names (at most [`MAX_KINDS`]), each one there is.
    pub fn named(names: &[String]) -> Result<Vec<EventKind>, Invalid> {
        if names.len() > MAX_KINDS {
            return Err(Invalid::Kinds { kinds: names.len() });
        }
        let kind = |(index, name): (usize, &String)| {
            let there = EventKind::ALL.map(|k| k.name()).to_vec();
            EventKind::from_name(name).ok_or_else(|| Invalid::NoSuchKind { index, name: name.clone(), there })
        };
        names.iter().enumerate().map(kind).collect()
    }

    /// The kind a name names (None: no kind of this build's).
    pub fn from_name(name: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One event of a tournament.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct TournamentEvent {
    /// From 0.
    #[prost(uint64, tag = "1")]
    pub number: u64,
    /// Its [`EventKind`]'s name ([`TournamentEvent::kind`]).
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
    /// A result event's result as it then stood: the two scores, the first player's first
    /// (empty: a forfeit, or a row of a build that did not keep it). Kept for a spectator's
    /// view, which shows a result corrected since its cut as it was; never sent.
    #[prost(sint32, repeated, tag = "15")]
    pub scores: Vec<i32>,
    /// A result event's forfeit: the seat that won it (1 the first, 2 the second; 0 none).
    #[prost(uint32, tag = "16")]
    pub forfeit_winner: u32,
    /// A pairings event's round as then paired: each line's first and second player by number
    /// (from 1), 0 for a bye's second (empty: a row of a build that did not keep it). Kept for a
    /// spectator's view, which shows a round paired again since its cut as it was paired.
    #[prost(uint32, repeated, tag = "17")]
    pub lines: Vec<u32>,
}

impl TournamentEvent {
    /// A result event's result as it then stood (None: not kept).
    pub(crate) fn result(&self) -> Option<GameResult> {
        match (self.scores.as_slice(), self.forfeit_winner) {
            (&[first, second], 0) => Some(GameResult::Scores([first, second])),
            ([], winner @ 1..=2) => Some(GameResult::Forfeit { winner: winner as usize - 1 }),
            _ => None,
        }
    }

    /// Keep `result` as the event's ([`TournamentEvent::result`]).
    pub(crate) fn keep_result(&mut self, result: Option<GameResult>) {
        match result {
            Some(GameResult::Scores(scores)) => self.scores = scores.to_vec(),
            Some(GameResult::Forfeit { winner }) => self.forfeit_winner = winner as u32 + 1,
            None => {}
        }
    }

    /// Keep a round's `lines` as the event's (a pairings event's).
    pub(crate) fn keep_lines(&mut self, lines: &[Pairing]) {
        self.lines = (lines.iter())
            .flat_map(|line| match *line {
                Pairing::Bye { player, .. } => [player.0 + 1, 0],
                Pairing::Game { first, second, .. } => [first.0 + 1, second.0 + 1],
            })
            .collect();
    }

    /// Its kind (None: a name this build does not know).
    pub fn kind(&self) -> Option<EventKind> {
        EventKind::from_name(&self.kind)
    }

    /// Whether it tells of a pairing's result (what a broadcast's delay holds back).
    pub fn is_result(&self) -> bool {
        matches!(self.kind(), Some(EventKind::Result | EventKind::ResultCorrected)) && self.pairing > 0
    }

    /// Whether only the tournament's directors see it: a player's report, until it is the result
    /// (its own event).
    pub fn is_directors_only(&self) -> bool {
        self.kind() == Some(EventKind::ResultReported)
    }

    /// Whether the log's filter (empty or 0: any) keeps it.
    pub fn matches(&self, filter: &LogFilter) -> bool {
        (filter.division.is_empty() || self.division == filter.division)
            && (filter.round == 0 || self.round == filter.round)
            && (filter.player == 0 || self.players.contains(&filter.player))
            && (filter.kinds.is_empty() || self.kind().is_some_and(|k| filter.kinds.contains(&k)))
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
    pub kinds: Vec<EventKind>,
    pub by: String,
}

/// Who makes a change to a tournament: every command is made by one, and its events name them
/// ([`Actor::name`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actor {
    /// The root director.
    Root,
    /// A director key, by its name.
    Key(String),
    /// A pairing's game, whose end brought its result in.
    Game,
    /// A player of the tournament by their division and number (from 1), as their own token
    /// makes them (`Record::player_of_token`). A director's command refuses them.
    Player { division: String, player: u32 },
}

impl Actor {
    /// A director: a key by its name, or the root (None).
    pub fn director(key: Option<&str>) -> Actor {
        key.map_or(Actor::Root, |name| Actor::Key(name.to_string()))
    }

    /// What the log names them: the key's name, `director` for the root, `game` for a game's
    /// end, `player 3 of A` for a player.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Actor::Root => ROOT.into(),
            Actor::Key(name) => name.into(),
            Actor::Game => GAME.into(),
            Actor::Player { division, player } => format!("player {player} of {division}").into(),
        }
    }

    /// Whether they direct the tournament (the root or a key), as a director's `command` needs:
    /// else PERMISSION_DENIED naming them.
    pub fn directs(&self, command: &'static str) -> Result<(), EventsError> {
        match self {
            Actor::Root | Actor::Key(_) => Ok(()),
            Actor::Game | Actor::Player { .. } => {
                Err(EventsError::NotDirector { actor: self.name().into_owned(), command })
            }
        }
    }

    /// The key's name a game's director action is signed with (None: the root's, or no
    /// director's).
    pub fn key(&self) -> Option<&str> {
        match self {
            Actor::Key(name) => Some(name),
            Actor::Root | Actor::Game | Actor::Player { .. } => None,
        }
    }
}

/// What the log names the root director.
pub const ROOT: &str = "director";

/// What the log names a result its game's end brought in.
pub const GAME: &str = "game";

/// A round's lines as a pairings event keeps them ([`TournamentEvent::lines`]), without results,
/// a bye of `bye_spread`.
pub(crate) fn paired_lines(kept: &[u32], bye_spread: i32) -> Vec<Pairing> {
    let id = |n: u32| PlayerId(n.saturating_sub(1));
    let line = |pair: &[u32]| match *pair {
        [first, 0] => Pairing::Bye { player: id(first), spread: bye_spread },
        [first, second] => Pairing::Game { first: id(first), second: id(second), result: None },
        _ => Pairing::Bye { player: id(pair[0]), spread: bye_spread },
    };
    kept.chunks_exact(2).map(line).collect()
}
