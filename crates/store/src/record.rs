//! What the store's bytes mean: a game's creation record and its log batches, as protobuf
//! messages (prost) so that fields can be added without breaking stored games.
//!
//! A [`Batch`] is everything one request changed: the engine calls it made, in order, each with
//! the clock reading it was made at (bots' turns included), plus the idempotent response when
//! the request carried a `request_id`. Replaying the steps of every batch through the engine,
//! from a game built from the record, gives back the same game: the bag is seeded, and time is an
//! input.

use dawgref_engine::alphabet::Alphabet;
use dawgref_engine::board::Direction;
use dawgref_engine::game::{Action, ChallengeRule, ClockConfig, DirectorAction, GameConfig, ResultKind};
use dawgref_engine::lexicon::Lexicon;
use dawgref_engine::play::Play;
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::{BlankValue, Ruleset, RulesetKind, ScorelessLimit};
use prost::Message;
use std::sync::Arc;

/// The record format this build writes and reads.
pub const FORMAT: u32 = 1;

#[derive(Clone, PartialEq, prost::Message)]
pub struct GameRecord {
    #[prost(uint32, tag = "1")]
    pub format: u32,
    /// `english`, `russian` or `erudit`.
    #[prost(string, tag = "2")]
    pub ruleset: String,
    #[prost(string, tag = "3")]
    pub lexicon: String,
    /// The lexicon's checksum when the game was created: a game never continues on other words.
    #[prost(uint64, tag = "4")]
    pub lexicon_checksum: u64,
    #[prost(uint64, tag = "5")]
    pub seed: u64,
    #[prost(string, tag = "6")]
    pub challenge: String,
    #[prost(bool, tag = "7")]
    pub bonus_per_word: bool,
    #[prost(bool, tag = "8")]
    pub reveal_invalid_words: bool,
    #[prost(message, optional, tag = "9")]
    pub clock: Option<ClockRecord>,
    #[prost(bool, tag = "10")]
    pub blank_scores_letter: bool,
    #[prost(bool, tag = "11")]
    pub no_repeated_words: bool,
    /// Scoreless turns that end the game; 0 means twice per player.
    #[prost(uint32, tag = "12")]
    pub scoreless_turn_limit: u32,
    #[prost(uint32, tag = "13")]
    pub exchange_limit: u32,
    #[prost(message, repeated, tag = "14")]
    pub seats: Vec<SeatRecord>,
    /// For a game made by ImportGcg: the record it was built from.
    #[prost(string, tag = "15")]
    pub imported_gcg: String,
    /// Least time between a change and a bot's move, in ms (unset in records older than the
    /// option: the default for the game's seats).
    #[prost(uint32, optional, tag = "16")]
    pub bot_delay_ms: Option<u32>,
    /// The game's labels (tournament, division, round, table, …), in key order.
    #[prost(message, repeated, tag = "17")]
    pub labels: Vec<Label>,
    /// When the game was created (Unix ms; 0 in records older than the field): a
    /// correspondence clock runs on the calendar, restarts or not.
    #[prost(uint64, tag = "18")]
    pub created_unix_ms: u64,
    /// The tournament round the game was made for (None: no tournament's; games made before
    /// the field carry it in their labels only).
    #[prost(message, optional, tag = "19")]
    pub tournament: Option<TournamentRecord>,
}

/// A game's tournament: the tournament's slug, the division's name and the round (from 1).
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct TournamentRecord {
    #[prost(string, tag = "1")]
    pub slug: String,
    #[prost(string, tag = "2")]
    pub division: String,
    #[prost(uint32, tag = "3")]
    pub round: u32,
}

#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Label {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(string, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ClockRecord {
    #[prost(uint64, tag = "1")]
    pub initial_ms: u64,
    #[prost(uint64, tag = "2")]
    pub increment_ms: u64,
    #[prost(uint64, tag = "3")]
    pub max_overtime_ms: u64,
    #[prost(int32, tag = "4")]
    pub penalty_per_minute: i32,
    /// A correspondence clock: `initial_ms` for every move.
    #[prost(bool, tag = "5")]
    pub per_move: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SeatRecord {
    #[prost(string, tag = "1")]
    pub name: String,
    /// Empty for a person; else the bot's level name.
    #[prost(string, tag = "2")]
    pub bot: String,
    /// SHA-256 of the seat's token; empty while the seat is open (and for bots).
    #[prost(bytes = "vec", tag = "3")]
    pub token_hash: Vec<u8>,
    /// A bot's thinking time per move, in ms (unset: the default).
    #[prost(uint32, optional, tag = "4")]
    pub think_ms: Option<u32>,
}

/// What one engine call was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum StepKind {
    Unknown = 0,
    Play = 1,
    Exchange = 2,
    Pass = 3,
    Resign = 4,
    Challenge = 5,
    /// Time ran out for the seat to move (noticed by a read or a refused action).
    Tick = 6,
    /// A person took an open seat.
    Join = 7,
    /// A director's action (`director` says which).
    Director = 8,
    /// The director took back the last turn.
    Undo = 9,
    /// A director gave a person's seat a new token (a lost one).
    NewToken = 10,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Step {
    #[prost(enumeration = "StepKind", tag = "1")]
    pub kind: i32,
    #[prost(uint32, tag = "2")]
    pub seat: u32,
    /// The game clock's reading (ms since the game began).
    #[prost(uint64, tag = "3")]
    pub now_ms: u64,
    /// Play: 0 across, 1 down.
    #[prost(uint32, tag = "4")]
    pub dir: u32,
    #[prost(uint32, tag = "5")]
    pub row: u32,
    #[prost(uint32, tag = "6")]
    pub col: u32,
    /// Play: tile bytes (0 = through a board tile); exchange: the rack's text.
    #[prost(bytes = "vec", tag = "7")]
    pub tiles: Vec<u8>,
    /// Join: the player's name and token hash. Director and Undo: the name of the director key
    /// that acted (empty: the root director).
    #[prost(string, tag = "8")]
    pub name: String,
    #[prost(bytes = "vec", tag = "9")]
    pub token_hash: Vec<u8>,
    /// Director: the action.
    #[prost(message, optional, tag = "10")]
    pub director: Option<DirectorRecord>,
}

/// A director's action as a log row keeps it.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DirectorRecord {
    /// `pause`, `resume`, `score`, `clock`, `note`, `forfeit`, `adjudicated` or `void`.
    #[prost(string, tag = "1")]
    pub kind: String,
    #[prost(uint32, tag = "2")]
    pub seat: u32,
    #[prost(int32, tag = "3")]
    pub points: i32,
    #[prost(int64, tag = "4")]
    pub delta_ms: i64,
    /// The reason, or the note.
    #[prost(string, tag = "5")]
    pub text: String,
    #[prost(int32, repeated, tag = "6")]
    pub scores: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Batch {
    #[prost(message, repeated, tag = "1")]
    pub steps: Vec<Step>,
    /// The request's idempotency key, when it had one, and the response it got.
    #[prost(message, optional, tag = "2")]
    pub done: Option<Done>,
    /// When the row was written: ms since the Unix epoch (0 in the rows of earlier builds). What
    /// ties the game's clock, which stops while the server is down, to the calendar.
    #[prost(uint64, tag = "3")]
    pub unix_ms: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Done {
    #[prost(uint32, tag = "1")]
    pub seat: u32,
    #[prost(string, tag = "2")]
    pub request_id: String,
    #[prost(bytes = "vec", tag = "3")]
    pub response: Vec<u8>,
}

impl GameRecord {
    /// The record of a game about to start (seats are added by the caller).
    pub fn new(config: &GameConfig) -> GameRecord {
        let o = &config.rules.options;
        GameRecord {
            format: FORMAT,
            ruleset: config.rules.kind.name().to_string(),
            lexicon: config.lexicon.name().to_string(),
            lexicon_checksum: config.lexicon.checksum(),
            seed: config.seed,
            challenge: config.challenge.name().to_string(),
            bonus_per_word: config.bonus_per_word,
            reveal_invalid_words: config.reveal_invalid_words,
            clock: config.clock.map(|c| ClockRecord {
                initial_ms: c.initial_ms,
                increment_ms: c.increment_ms,
                max_overtime_ms: c.max_overtime_ms,
                penalty_per_minute: c.penalty_per_minute,
                per_move: c.per_move,
            }),
            blank_scores_letter: o.blank_value == BlankValue::LetterValue,
            no_repeated_words: o.no_repeated_words,
            scoreless_turn_limit: match o.scoreless_turn_limit {
                ScorelessLimit::Turns(n) => n.max(1),
                ScorelessLimit::TwicePerPlayer => 0,
            },
            exchange_limit: o.exchange_limit,
            seats: Vec::new(),
            imported_gcg: String::new(),
            bot_delay_ms: None,
            labels: Vec::new(),
            created_unix_ms: 0,
            tournament: None,
        }
    }

    /// The record as the store keeps it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode_to_vec()
    }

    pub fn decode_bytes(bytes: &[u8]) -> Result<GameRecord, String> {
        let record = GameRecord::decode(bytes).map_err(|e| format!("unreadable game record: {e}"))?;
        if record.format != FORMAT {
            return Err(format!("game record format {} (this build reads {FORMAT})", record.format));
        }
        Ok(record)
    }

    /// The game's configuration, with `lexicon` found by name. A lexicon whose words changed
    /// since the game began is refused: the game's past plays were judged on the old words.
    pub fn config(&self, lexicon: Option<Arc<Lexicon>>) -> Result<GameConfig, String> {
        let kind: RulesetKind = self.ruleset.parse().map_err(|e| format!("{e}"))?;
        let lexicon = lexicon.ok_or_else(|| format!("lexicon {} is not loaded", self.lexicon))?;
        if lexicon.checksum() != self.lexicon_checksum {
            return Err(format!(
                "lexicon {} changed since the game began (checksum {:016x}, now {:016x})",
                self.lexicon,
                self.lexicon_checksum,
                lexicon.checksum()
            ));
        }
        let mut rules = Ruleset::new(kind);
        if self.blank_scores_letter {
            rules.options.blank_value = BlankValue::LetterValue;
        }
        rules.options.no_repeated_words = self.no_repeated_words;
        rules.options.scoreless_turn_limit = match self.scoreless_turn_limit {
            0 => ScorelessLimit::TwicePerPlayer,
            n => ScorelessLimit::Turns(n),
        };
        rules.options.exchange_limit = self.exchange_limit;
        let mut config = GameConfig::new(Arc::new(rules), lexicon, self.seed);
        config.challenge = self.challenge.parse::<ChallengeRule>()?;
        config.bonus_per_word = self.bonus_per_word;
        config.reveal_invalid_words = self.reveal_invalid_words;
        config.seats = self.seats.len();
        config.clock = self.clock.as_ref().map(|c| ClockConfig {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            max_overtime_ms: c.max_overtime_ms,
            penalty_per_minute: c.penalty_per_minute,
            per_move: c.per_move,
        });
        Ok(config)
    }
}

impl Step {
    fn of(kind: StepKind, seat: usize, now_ms: u64) -> Step {
        Step { kind: kind as i32, seat: seat as u32, now_ms, ..Default::default() }
    }

    pub fn action(seat: usize, action: &Action, now_ms: u64, alphabet: Alphabet) -> Step {
        match action {
            Action::Play(play) => Step {
                dir: play.dir as u32,
                row: play.row as u32,
                col: play.col as u32,
                tiles: play.tiles().to_vec(),
                ..Step::of(StepKind::Play, seat, now_ms)
            },
            Action::Exchange(rack) => Step {
                tiles: rack.to_string(alphabet).into_bytes(),
                ..Step::of(StepKind::Exchange, seat, now_ms)
            },
            Action::Pass => Step::of(StepKind::Pass, seat, now_ms),
            Action::Resign => Step::of(StepKind::Resign, seat, now_ms),
        }
    }

    pub fn challenge(seat: usize, now_ms: u64) -> Step {
        Step::of(StepKind::Challenge, seat, now_ms)
    }

    pub fn tick(now_ms: u64) -> Step {
        Step::of(StepKind::Tick, 0, now_ms)
    }

    pub fn join(seat: usize, name: &str, token_hash: &[u8; 32], now_ms: u64) -> Step {
        Step {
            name: name.to_string(),
            token_hash: token_hash.to_vec(),
            ..Step::of(StepKind::Join, seat, now_ms)
        }
    }

    pub fn new_token(seat: usize, token_hash: &[u8; 32], now_ms: u64) -> Step {
        Step { token_hash: token_hash.to_vec(), ..Step::of(StepKind::NewToken, seat, now_ms) }
    }

    pub fn director(action: &DirectorAction, by: Option<&str>, now_ms: u64) -> Step {
        let mut d = DirectorRecord::default();
        match action {
            DirectorAction::Pause => d.kind = "pause".into(),
            DirectorAction::Resume => d.kind = "resume".into(),
            DirectorAction::AdjustScore { seat, points, reason } => {
                d = DirectorRecord {
                    kind: "score".into(),
                    seat: *seat as u32,
                    points: *points,
                    text: reason.clone(),
                    ..d
                }
            }
            DirectorAction::AdjustClock { seat, delta_ms, reason } => {
                d = DirectorRecord {
                    kind: "clock".into(),
                    seat: *seat as u32,
                    delta_ms: *delta_ms,
                    text: reason.clone(),
                    ..d
                }
            }
            DirectorAction::Note(text) => d = DirectorRecord { kind: "note".into(), text: text.clone(), ..d },
            DirectorAction::SetResult(ResultKind::Forfeit { seat, reason }) => {
                d = DirectorRecord { kind: "forfeit".into(), seat: *seat as u32, text: reason.clone(), ..d }
            }
            DirectorAction::SetResult(ResultKind::Adjudicated { scores, reason }) => {
                d = DirectorRecord {
                    kind: "adjudicated".into(),
                    scores: scores.clone(),
                    text: reason.clone(),
                    ..d
                }
            }
            DirectorAction::SetResult(ResultKind::Void { reason }) => {
                d = DirectorRecord { kind: "void".into(), text: reason.clone(), ..d }
            }
        }
        Step {
            director: Some(d),
            name: by.unwrap_or_default().to_string(),
            ..Step::of(StepKind::Director, 0, now_ms)
        }
    }

    pub fn undo(by: Option<&str>, now_ms: u64) -> Step {
        Step { name: by.unwrap_or_default().to_string(), ..Step::of(StepKind::Undo, 0, now_ms) }
    }

    /// The director key that made a Director or Undo step (None: the root director).
    pub fn director_name(&self) -> Option<String> {
        (!self.name.is_empty()).then(|| self.name.clone())
    }

    /// The action of a Director step.
    pub fn to_director(&self) -> Result<DirectorAction, String> {
        let d = self.director.as_ref().ok_or("a director step without its action")?;
        let seat = d.seat as usize;
        let reason = d.text.clone();
        Ok(match d.kind.as_str() {
            "pause" => DirectorAction::Pause,
            "resume" => DirectorAction::Resume,
            "score" => DirectorAction::AdjustScore { seat, points: d.points, reason },
            "clock" => DirectorAction::AdjustClock { seat, delta_ms: d.delta_ms, reason },
            "note" => DirectorAction::Note(reason),
            "forfeit" => DirectorAction::SetResult(ResultKind::Forfeit { seat, reason }),
            "adjudicated" => {
                DirectorAction::SetResult(ResultKind::Adjudicated { scores: d.scores.clone(), reason })
            }
            "void" => DirectorAction::SetResult(ResultKind::Void { reason }),
            k => return Err(format!("unknown director action {k:?}")),
        })
    }

    pub fn step_kind(&self) -> StepKind {
        StepKind::try_from(self.kind).unwrap_or(StepKind::Unknown)
    }

    /// The action of a Play/Exchange/Pass/Resign step.
    pub fn to_action(&self, alphabet: Alphabet) -> Result<Action, String> {
        match self.step_kind() {
            StepKind::Play => {
                let dir = match self.dir {
                    0 => Direction::Across,
                    1 => Direction::Down,
                    d => return Err(format!("play direction {d}")),
                };
                Play::new(dir, self.row as usize, self.col as usize, &self.tiles)
                    .map(Action::Play)
                    .map_err(|p| format!("stored play is malformed: {p}"))
            }
            StepKind::Exchange => {
                let text =
                    std::str::from_utf8(&self.tiles).map_err(|_| "exchange is not text".to_string())?;
                Rack::parse(text, alphabet).map(Action::Exchange).map_err(|e| e.to_string())
            }
            StepKind::Pass => Ok(Action::Pass),
            StepKind::Resign => Ok(Action::Resign),
            k => Err(format!("a {k:?} step is not an action")),
        }
    }
}

impl Batch {
    /// The row as the store keeps it.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.encode_to_vec()
    }

    pub fn decode_bytes(bytes: &[u8]) -> Result<Batch, String> {
        Batch::decode(bytes).map_err(|e| format!("unreadable log row: {e}"))
    }
}
