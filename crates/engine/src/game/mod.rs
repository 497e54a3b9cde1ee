//! The game: seats, the seeded bag, racks, turns, exchanges, passes, resignation, challenges,
//! clocks, the end of the game, and the history of every event.
//!
//! Plain synchronous Rust: no tokio, no wall clock. Every action carries the time it happened
//! (`now_ms`, any monotonic millisecond count the caller keeps), so clocks are exact and tests
//! are deterministic. Same seed and same actions ⇒ the same game, tile for tile.
//!
//! Invariants, checked by [`Game::check_invariants`] and tested over thousands of games:
//! - tile conservation: bag + racks + board = the ruleset's full set, after every event;
//! - each seat's score equals the sum of the points of its events.

mod clock;
mod director;
pub mod record;

pub use clock::{ClockConfig, Clocks};
pub use director::{DirectorAction, MAX_NOTE_CHARS, MAX_SCORE_ADJUSTMENT, Op, ResultKind};

use crate::alphabet::{Letter, tile_letter};
use crate::bag::Bag;
use crate::board::Board;
use crate::lexicon::Lexicon;
use crate::play::{Play, Problem};
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::score::Evaluation;
use crate::validate::{Checks, validate_with, word_problems};
use std::fmt;
use std::sync::Arc;

/// How phonies are dealt with (names as in the CGP `cr` opcode).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChallengeRule {
    /// Invalid words are refused at submission; no challenges.
    Void,
    /// A phony is withdrawn; a failed challenge costs nothing.
    Single,
    /// As single, but a failed challenge costs the challenger their next turn (NASPA).
    Double,
    /// A failed challenge gives the challenged player 5 points (per word by default; WESPA).
    FivePoint,
    /// As five-point, with 10.
    TenPoint,
    /// The challenge decides the game: a phony loses, a failed challenge loses.
    Triple,
}

impl ChallengeRule {
    pub const ALL: [ChallengeRule; 6] = [
        ChallengeRule::Void,
        ChallengeRule::Single,
        ChallengeRule::Double,
        ChallengeRule::FivePoint,
        ChallengeRule::TenPoint,
        ChallengeRule::Triple,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            ChallengeRule::Void => "void",
            ChallengeRule::Single => "single",
            ChallengeRule::Double => "double",
            ChallengeRule::FivePoint => "5pt",
            ChallengeRule::TenPoint => "10pt",
            ChallengeRule::Triple => "triple",
        }
    }
}

impl fmt::Display for ChallengeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for ChallengeRule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ChallengeRule::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(s)).ok_or_else(|| {
            format!("unknown challenge rule {s:?} (expected void, single, double, 5pt, 10pt or triple)")
        })
    }
}

/// Everything fixed when a game is created.
#[derive(Clone, Debug)]
pub struct GameConfig {
    pub rules: Arc<Ruleset>,
    pub lexicon: Arc<Lexicon>,
    pub challenge: ChallengeRule,
    /// Under 5pt/10pt, the bonus is per word challenged (WESPA); false: once per challenge.
    pub bonus_per_word: bool,
    /// A challenge verdict names the invalid words (tournament judging does not).
    pub reveal_invalid_words: bool,
    /// Number of seats, 2 to 4.
    pub seats: usize,
    /// Seed of the bag (recorded, so the game can be replayed).
    pub seed: u64,
    pub clock: Option<ClockConfig>,
    /// Two seats, one goes out: twice the other rack to the player who went out, nothing taken
    /// from the other (NASPA's convention) instead of moving the rack's value. Only imported
    /// records that count it so set this: the spread is the same either way.
    pub doubled_end_rack: bool,
}

impl GameConfig {
    /// A two-seat game with the ruleset's defaults, single challenge, no clock.
    pub fn new(rules: Arc<Ruleset>, lexicon: Arc<Lexicon>, seed: u64) -> GameConfig {
        GameConfig {
            rules,
            lexicon,
            challenge: ChallengeRule::Single,
            bonus_per_word: true,
            reveal_invalid_words: false,
            seats: 2,
            seed,
            clock: None,
            doubled_end_rack: false,
        }
    }
}

/// What a seat does on its turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Play(Play),
    /// Tiles to put back (`?` for a blank).
    Exchange(Rack),
    Pass,
    Resign,
}

impl Action {
    /// Whether two actions do the same to the game: plays that place the same tiles on the same
    /// squares (however written: a one-tile play across or down, from where), or equal otherwise.
    pub fn same_move(&self, other: &Action) -> bool {
        match (self, other) {
            (Action::Play(a), Action::Play(b)) => {
                let mut x: Vec<_> = a.placements().collect();
                let mut y: Vec<_> = b.placements().collect();
                x.sort_unstable();
                y.sort_unstable();
                x == y
            }
            _ => self == other,
        }
    }
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndReason {
    /// This seat played out with the bag empty.
    WentOut(usize),
    /// The scoreless-turn limit was reached.
    ScorelessTurns,
    Resigned(usize),
    OutOfTime(usize),
    /// Under the triple rule this seat lost the challenge (its phony, or its failed challenge).
    LostChallenge(usize),
    /// The director recorded a forfeit by this seat.
    Forfeit(usize),
    /// The director set the final scores.
    Adjudicated,
    /// The director voided the game: nobody wins.
    Voided,
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub reason: EndReason,
    pub scores: Vec<i32>,
    /// Winning seats (more than one on a tie).
    pub winners: Vec<usize>,
}

/// One entry of the history.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// 0-based position in the history.
    pub number: usize,
    /// The seat the event scores for (or concerns).
    pub seat: usize,
    pub kind: EventKind,
    /// That seat's rack before the event.
    pub rack: Rack,
    /// Points the event gives the seat (negative for penalties).
    pub points: i32,
    /// The seat's score after the event.
    pub cumulative: i32,
    /// When it happened (the caller's clock).
    pub time_ms: u64,
    /// Taken back by the director ([`EventKind::TurnUndone`]): it stays in the history, as
    /// watchers saw it, but counts no more.
    pub undone: bool,
    /// A director's event: the name of the director key that made it (None: the root director,
    /// and every other event).
    pub director: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    Play {
        play: Play,
        words: Vec<String>,
    },
    /// The seat's last play was challenged off: tiles back on its rack, points taken back.
    PhonyWithdrawn {
        play: Play,
    },
    /// The seat's last play was challenged by `challenger` and judged; points 0. Every word
    /// the play formed, with its verdict.
    Challenged {
        challenger: usize,
        acceptable: bool,
        words: Vec<(String, bool)>,
    },
    /// A failed challenge by `challenger` gave the seat points (5pt/10pt).
    ChallengeBonus {
        challenger: usize,
    },
    /// The seat lost this turn (a failed challenge under the double rule).
    TurnLost,
    Pass,
    Exchange {
        tiles: Rack,
    },
    /// The seat went out and collects the value of `from`'s rack.
    EndRackPoints {
        from: usize,
        rack: Rack,
    },
    /// The seat loses the value of its own rack at the end.
    RackPenalty {
        rack: Rack,
    },
    /// Overtime penalty: 10 points per started minute.
    TimePenalty {
        overtime_ms: u64,
    },
    Resign,
    OutOfTime,
    GameOver {
        reason: EndReason,
    },
    /// The director stopped the clocks: turns wait.
    Paused,
    Resumed,
    /// The director changed the seat's score by `points`.
    ScoreAdjusted {
        reason: String,
    },
    /// The director changed the seat's time left by `delta_ms`.
    ClockAdjusted {
        delta_ms: i64,
        reason: String,
    },
    /// The director took back the last turn: events `from` to the one before this are undone.
    TurnUndone {
        from: usize,
    },
    /// A director's note at this point of the game.
    Note {
        text: String,
    },
}

impl EventKind {
    /// Whether the event took a turn (a play, an exchange, a pass, or a turn lost to a
    /// challenge): the turns of a game are these events, in order.
    pub fn takes_turn(&self) -> bool {
        matches!(
            self,
            EventKind::Play { .. } | EventKind::Exchange { .. } | EventKind::Pass | EventKind::TurnLost
        )
    }
}

/// Why an action or challenge was refused. The game is unchanged when one is returned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("the game is over")]
    GameOver,
    #[error("there is no seat {0}")]
    NoSuchSeat(usize),
    #[error("it is seat {to_move}'s turn, not seat {seat}'s")]
    NotYourTurn { seat: usize, to_move: usize },
    #[error("invalid play: {}", list(.0))]
    InvalidPlay(Vec<Problem>),
    #[error("exchange refused: {bag} tiles in the bag, at least {limit} needed")]
    ExchangeNotAllowed { bag: usize, limit: u32 },
    #[error("nothing to exchange")]
    EmptyExchange,
    #[error("tiles not on the rack: {0}")]
    NotOnRack(String),
    #[error("there is no play to challenge")]
    NothingToChallenge,
    #[error("a seat cannot challenge its own play")]
    OwnPlay,
    #[error("this game does not allow challenges (rule void)")]
    ChallengesNotAllowed,
    #[error("the last play went out: pass to accept it, or challenge it")]
    AcceptOrChallenge,
    #[error("{seats} seats: a game has 2 to 4")]
    Seats { seats: usize },
    #[error("the lexicon's alphabet ({lexicon}) is not the ruleset's ({ruleset})")]
    LexiconAlphabet { lexicon: crate::alphabet::Alphabet, ruleset: crate::alphabet::Alphabet },
    #[error("the tile set cannot supply the racks {0}")]
    NotInBag(String),
    #[error("the game is not over: time penalties are counted at the end")]
    NotOver,
    #[error("a time penalty of {0} points: 0 to {MAX_TIME_PENALTY} can be recorded")]
    TimePenalty(i32),
    #[error("the game is paused by the director: turns wait until it resumes")]
    Paused,
    #[error("the game is not paused")]
    NotPaused,
    #[error("the game is already paused")]
    AlreadyPaused,
    #[error("the game has no clocks")]
    NoClock,
    #[error("no turn has been taken: nothing to undo")]
    NothingToUndo,
    #[error("{0}")]
    Director(String),
}

/// The largest time penalty a record may charge one seat (100 minutes of overtime at 10 points
/// a minute): anything larger is not a time penalty but a broken record.
pub const MAX_TIME_PENALTY: i32 = 1000;

fn list(problems: &[Problem]) -> String {
    problems.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ")
}

/// The verdict of a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The play as a whole is acceptable.
    pub acceptable: bool,
    /// The invalid words, only when the game reveals them.
    pub invalid_words: Option<Vec<String>>,
}

/// The last play while it can still be challenged.
#[derive(Clone, Debug)]
struct Pending {
    seat: usize,
    play: Play,
    score: i32,
    words: Vec<Vec<Letter>>,
    rack_before: Rack,
    drawn: Rack,
    scoreless_before: u32,
    went_out: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    Playing,
    /// A seat went out; the next seat passes to accept or someone challenges.
    AwaitingFinalChallenge,
    Over(Outcome),
}

/// A game in progress or finished.
#[derive(Debug)]
pub struct Game {
    config: GameConfig,
    board: Board,
    bag: Bag,
    racks: Vec<Rack>,
    scores: Vec<i32>,
    to_move: usize,
    /// Turns taken (plays, exchanges, passes, lost turns): the `expected_turn` clients quote.
    turn: u32,
    scoreless: u32,
    phase: Phase,
    pending: Option<Pending>,
    lose_next_turn: Vec<bool>,
    history: Vec<Event>,
    clocks: Option<Clocks>,
    /// The director has stopped the clocks: no action until resumed.
    paused: bool,
    /// Every call that changed the game, in order, with the events it made: what an undo
    /// replays ([`director`]).
    journal: Vec<(Op, std::ops::Range<usize>)>,
}

impl Clone for Game {
    fn clone(&self) -> Game {
        self.clone_with_room(0)
    }
}

impl Game {
    /// A copy whose history and journal have room for `events` more entries each: a host that
    /// copies a game to change it (copy on write) reserves what the change adds, so that the
    /// copy it keeps holds no doubled capacity.
    pub fn clone_with_room(&self, events: usize) -> Game {
        fn with_room<T: Clone>(v: &[T], extra: usize) -> Vec<T> {
            let mut out = Vec::with_capacity(v.len() + extra);
            out.extend_from_slice(v);
            out
        }
        Game {
            config: self.config.clone(),
            board: self.board.clone(),
            bag: self.bag.clone(),
            racks: self.racks.clone(),
            scores: self.scores.clone(),
            to_move: self.to_move,
            turn: self.turn,
            scoreless: self.scoreless,
            phase: self.phase.clone(),
            pending: self.pending.clone(),
            lose_next_turn: self.lose_next_turn.clone(),
            history: with_room(&self.history, events),
            clocks: self.clocks.clone(),
            paused: self.paused,
            journal: with_room(&self.journal, events),
        }
    }

    /// A new game: the bag shuffled with the seed, every rack drawn in seat order.
    pub fn new(config: GameConfig) -> Result<Game, GameError> {
        if !(2..=4).contains(&config.seats) {
            return Err(GameError::Seats { seats: config.seats });
        }
        if config.lexicon.alphabet() != config.rules.alphabet {
            return Err(GameError::LexiconAlphabet {
                lexicon: config.lexicon.alphabet(),
                ruleset: config.rules.alphabet,
            });
        }
        let mut bag = Bag::new(&config.rules, config.seed);
        let mut racks = vec![Rack::new(); config.seats];
        for r in &mut racks {
            bag.refill(r, config.rules.rack_size);
        }
        let clocks = config.clock.map(|c| Clocks::new(c, config.seats, 0));
        Ok(Game {
            board: Board::new(config.rules.clone()),
            bag,
            racks,
            scores: vec![0; config.seats],
            to_move: 0,
            turn: 0,
            scoreless: 0,
            phase: Phase::Playing,
            pending: None,
            lose_next_turn: vec![false; config.seats],
            history: Vec::new(),
            clocks,
            paused: false,
            journal: Vec::new(),
            config,
        })
    }

    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn rack(&self, seat: usize) -> Option<&Rack> {
        self.racks.get(seat)
    }

    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// The seat whose turn it is.
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// Turns taken so far.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    pub fn bag_len(&self) -> usize {
        self.bag.len()
    }

    /// Consecutive scoreless turns.
    pub fn scoreless_turns(&self) -> u32 {
        self.scoreless
    }

    pub fn history(&self) -> &[Event] {
        &self.history
    }

    pub fn clocks(&self) -> Option<&Clocks> {
        self.clocks.as_ref()
    }

    pub fn is_over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Over(o) => Some(o),
            _ => None,
        }
    }

    /// Whether the last play went out and waits for the final pass or a challenge.
    pub fn awaiting_final_challenge(&self) -> bool {
        self.phase == Phase::AwaitingFinalChallenge
    }

    /// The last play and its seat, while it may still be challenged.
    pub fn challengeable(&self) -> Option<(usize, &Play)> {
        self.pending.as_ref().map(|p| (p.seat, &p.play))
    }

    fn seat_check(&self, seat: usize) -> Result<(), GameError> {
        if seat >= self.config.seats { Err(GameError::NoSuchSeat(seat)) } else { Ok(()) }
    }

    /// Give the seats chosen racks: every rack goes back to the bag, then each seat takes its
    /// tiles from it. For scripted games and for replaying records whose racks are known.
    pub fn stack_racks(&mut self, racks: &[Rack]) -> Result<(), GameError> {
        let before = self.history.len();
        self.stack_racks_inner(racks)?;
        self.note_op(Op::StackRacks(racks.to_vec()), before);
        Ok(())
    }

    fn stack_racks_inner(&mut self, racks: &[Rack]) -> Result<(), GameError> {
        if racks.len() != self.config.seats {
            return Err(GameError::Seats { seats: racks.len() });
        }
        let mut pool = self.bag.contents();
        let mut wanted = Rack::new();
        for r in &self.racks {
            pool.add_all(r);
        }
        for r in racks {
            wanted.add_all(r);
        }
        if !pool.contains(&wanted) {
            return Err(GameError::NotInBag(crate::text::clip(
                &wanted.to_string(self.config.rules.alphabet),
            )));
        }
        for seat in 0..self.config.seats {
            let old = std::mem::take(&mut self.racks[seat]);
            self.bag.put_back(&old);
        }
        for (seat, r) in racks.iter().enumerate() {
            let taken = self.bag.take_exact(r);
            debug_assert!(taken, "the pool was checked");
            self.racks[seat] = *r;
        }
        Ok(())
    }

    /// Give one seat a chosen rack (replaying a record that shows only the mover's rack): every
    /// rack goes back to the bag, the seat takes its tiles, the others draw afresh.
    pub fn stack_rack(&mut self, seat: usize, rack: &Rack) -> Result<(), GameError> {
        let before = self.history.len();
        self.stack_rack_inner(seat, rack)?;
        self.note_op(Op::StackRack(seat, *rack), before);
        Ok(())
    }

    fn stack_rack_inner(&mut self, seat: usize, rack: &Rack) -> Result<(), GameError> {
        self.seat_check(seat)?;
        let mut pool = self.bag.contents();
        for r in &self.racks {
            pool.add_all(r);
        }
        if !pool.contains(rack) {
            return Err(GameError::NotInBag(crate::text::clip(&rack.to_string(self.config.rules.alphabet))));
        }
        for s in 0..self.config.seats {
            let old = std::mem::take(&mut self.racks[s]);
            self.bag.put_back(&old);
        }
        let taken = self.bag.take_exact(rack);
        debug_assert!(taken, "the pool was checked");
        self.racks[seat] = *rack;
        let size = self.config.rules.rack_size;
        for s in (0..self.config.seats).filter(|&s| s != seat) {
            self.bag.refill(&mut self.racks[s], size);
        }
        Ok(())
    }

    /// Check a play for `seat` without playing it: geometry, rack, and the words when the
    /// challenge rule refuses phonies at submission (void), plus repeated words where the
    /// ruleset forbids them.
    pub fn check_play(&self, seat: usize, play: &Play) -> Result<Evaluation, Vec<Problem>> {
        let rack = self.racks.get(seat).copied().unwrap_or_default();
        let eval = validate_with(&self.board, &rack, play, &self.config.lexicon, Checks { words: false })?;
        let mut problems = word_problems(&self.board, &eval, self.config.lexicon.dawg());
        if self.config.challenge != ChallengeRule::Void {
            problems.retain(|p| matches!(p, Problem::RepeatedWords { .. }));
        }
        if problems.is_empty() { Ok(eval) } else { Err(problems) }
    }

    /// Time has passed without an action: end the game if the seat to move has overstepped its
    /// overtime. Returns whether the game ended.
    pub fn tick(&mut self, now_ms: u64) -> bool {
        if self.is_over() {
            return false;
        }
        let Some(clocks) = &self.clocks else { return false };
        if clocks.out_of_time(self.to_move, now_ms) {
            // The loss happened when the flag fell, however late it is noticed.
            let fell = clocks.flag_fall_ms().map_or(now_ms, |f| f.min(now_ms));
            let seat = self.to_move;
            let before = self.history.len();
            self.push(seat, EventKind::OutOfTime, 0, fell);
            self.finish(EndReason::OutOfTime(seat), fell, false);
            self.note_op(Op::Tick(now_ms), before);
            return true;
        }
        false
    }

    /// The game time at which the seat to move loses on time if nothing happens first (None:
    /// no clocks, or the game is over). A session arms its timer for it and then calls
    /// [`Game::tick`].
    pub fn next_flag_fall(&self) -> Option<u64> {
        if self.is_over() {
            return None;
        }
        self.clocks.as_ref()?.flag_fall_ms()
    }

    /// Take an action for `seat`. On error nothing changed (except that a time loss noticed
    /// on the way ends the game, reported as [`GameError::GameOver`]).
    pub fn act(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        self.seat_check(seat)?;
        if self.tick(now_ms) || self.is_over() {
            return Err(GameError::GameOver);
        }
        if self.paused {
            return Err(GameError::Paused);
        }
        let before = self.history.len();
        self.act_inner(seat, action.clone(), now_ms)?;
        self.note_op(Op::Act(seat, action, now_ms), before);
        Ok(())
    }

    fn act_inner(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        if action == Action::Resign {
            self.pending = None;
            self.push(seat, EventKind::Resign, 0, now_ms);
            self.finish(EndReason::Resigned(seat), now_ms, false);
            return Ok(());
        }
        if seat != self.to_move {
            return Err(GameError::NotYourTurn { seat, to_move: self.to_move });
        }
        let rules = self.config.rules.clone();
        if self.phase == Phase::AwaitingFinalChallenge {
            if action != Action::Pass {
                return Err(GameError::AcceptOrChallenge);
            }
            // The final pass accepts the play that went out.
            let out = self.pending.take().map_or(seat, |p| p.seat);
            self.charge_clock(seat, now_ms);
            self.turn += 1;
            self.push(seat, EventKind::Pass, 0, now_ms);
            self.finish(EndReason::WentOut(out), now_ms, true);
            return Ok(());
        }
        match action {
            Action::Play(play) => {
                let eval = self.check_play(seat, &play).map_err(GameError::InvalidPlay)?;
                let play = play.normalized(&self.board).map_err(GameError::InvalidPlay)?;
                self.pending = None;
                self.charge_clock(seat, now_ms);
                let rack_before = self.racks[seat];
                let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                for p in play.placements() {
                    self.racks[seat].take_tile(p.tile);
                }
                self.board.place(&placements, self.config.lexicon.dawg());
                let after_play = self.racks[seat];
                self.bag.refill(&mut self.racks[seat], rules.rack_size);
                let mut drawn = self.racks[seat];
                drawn.remove_all(&after_play);
                let words: Vec<Vec<Letter>> =
                    eval.words.iter().map(|w| w.tiles.iter().map(|&t| tile_letter(t)).collect()).collect();
                let alphabet = rules.alphabet;
                let word_text = words.iter().map(|w| alphabet.word_string(w)).collect();
                self.scores[seat] += eval.total;
                self.turn += 1;
                let scoreless_before = self.scoreless;
                // A placement resets the count even when it scores 0 (RULES.md).
                self.scoreless = 0;
                self.history.push(Event {
                    number: self.history.len(),
                    seat,
                    kind: EventKind::Play { play, words: word_text },
                    rack: rack_before,
                    points: eval.total,
                    cumulative: self.scores[seat],
                    time_ms: now_ms,
                    undone: false,
                    director: None,
                });
                let went_out = self.racks[seat].is_empty() && self.bag.is_empty();
                if self.config.challenge == ChallengeRule::Void {
                    if went_out {
                        self.finish(EndReason::WentOut(seat), now_ms, true);
                        return Ok(());
                    }
                } else {
                    self.pending = Some(Pending {
                        seat,
                        play,
                        score: eval.total,
                        words,
                        rack_before,
                        drawn,
                        scoreless_before,
                        went_out,
                    });
                    if went_out {
                        self.phase = Phase::AwaitingFinalChallenge;
                    }
                }
                self.advance(now_ms);
            }
            Action::Exchange(tiles) => {
                if tiles.is_empty() {
                    return Err(GameError::EmptyExchange);
                }
                if self.bag.len() < rules.options.exchange_limit as usize {
                    return Err(GameError::ExchangeNotAllowed {
                        bag: self.bag.len(),
                        limit: rules.options.exchange_limit,
                    });
                }
                if !self.racks[seat].contains(&tiles) {
                    let mut missing = tiles;
                    let have = self.racks[seat];
                    let mut common = Rack::new();
                    for t in tiles.tiles() {
                        let mut probe = common;
                        match t {
                            Some(l) => probe.add(l),
                            None => probe.add_blank(),
                        }
                        if have.contains(&probe) {
                            common = probe;
                        }
                    }
                    missing.remove_all(&common);
                    return Err(GameError::NotOnRack(crate::text::clip(&missing.to_string(rules.alphabet))));
                }
                self.pending = None;
                self.charge_clock(seat, now_ms);
                let rack_before = self.racks[seat];
                self.racks[seat].remove_all(&tiles);
                self.bag.refill(&mut self.racks[seat], rules.rack_size);
                self.bag.put_back(&tiles);
                self.turn += 1;
                self.scoreless += 1;
                self.history.push(Event {
                    number: self.history.len(),
                    seat,
                    kind: EventKind::Exchange { tiles },
                    rack: rack_before,
                    points: 0,
                    cumulative: self.scores[seat],
                    time_ms: now_ms,
                    undone: false,
                    director: None,
                });
                if !self.scoreless_end(now_ms) {
                    self.advance(now_ms);
                }
            }
            Action::Pass => {
                self.pending = None;
                self.charge_clock(seat, now_ms);
                self.turn += 1;
                self.scoreless += 1;
                self.push(seat, EventKind::Pass, 0, now_ms);
                if !self.scoreless_end(now_ms) {
                    self.advance(now_ms);
                }
            }
            Action::Resign => unreachable!("handled above"),
        }
        Ok(())
    }

    /// `challenger` challenges the last play. Any opponent may, until the next turn begins.
    pub fn challenge(&mut self, challenger: usize, now_ms: u64) -> Result<Verdict, GameError> {
        self.challenge_with(challenger, None, now_ms)
    }

    /// A challenge whose ruling is given (`acceptable`: the play stands), not looked up in the
    /// lexicon: a record replayed as it was ruled, whatever this lexicon says of its words (the
    /// `Challenged` event still lists each word with this lexicon's verdict).
    pub fn challenge_ruled(
        &mut self,
        challenger: usize,
        acceptable: bool,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        self.challenge_with(challenger, Some(acceptable), now_ms)
    }

    fn challenge_with(
        &mut self,
        challenger: usize,
        ruling: Option<bool>,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        self.seat_check(challenger)?;
        if self.tick(now_ms) || self.is_over() {
            return Err(GameError::GameOver);
        }
        if self.paused {
            return Err(GameError::Paused);
        }
        let before = self.history.len();
        let verdict = self.challenge_inner(challenger, ruling, now_ms)?;
        self.note_op(Op::Challenge(challenger, ruling, now_ms), before);
        Ok(verdict)
    }

    fn challenge_inner(
        &mut self,
        challenger: usize,
        ruling: Option<bool>,
        now_ms: u64,
    ) -> Result<Verdict, GameError> {
        if self.config.challenge == ChallengeRule::Void {
            return Err(GameError::ChallengesNotAllowed);
        }
        let Some(pending) = self.pending.as_ref() else { return Err(GameError::NothingToChallenge) };
        if pending.seat == challenger {
            return Err(GameError::OwnPlay);
        }
        let pending = self.pending.take().expect("checked above");
        let alphabet = self.config.rules.alphabet;
        let judged: Vec<(String, bool)> = pending
            .words
            .iter()
            .map(|w| (alphabet.word_string(w), self.config.lexicon.contains(w)))
            .collect();
        let invalid: Vec<String> = judged.iter().filter(|(_, ok)| !ok).map(|(w, _)| w.clone()).collect();
        let acceptable = ruling.unwrap_or(invalid.is_empty());
        let seat = pending.seat;
        let rack_now = self.racks[seat];
        self.history.push(Event {
            number: self.history.len(),
            seat,
            kind: EventKind::Challenged { challenger, acceptable, words: judged },
            rack: rack_now,
            points: 0,
            cumulative: self.scores[seat],
            time_ms: now_ms,
            undone: false,
            director: None,
        });
        let verdict =
            Verdict { acceptable, invalid_words: self.config.reveal_invalid_words.then_some(invalid) };
        if !acceptable {
            // Withdraw: tiles back to the rack, the drawn tiles back to the bag, points back.
            let squares: Vec<_> = pending.play.placements().map(|p| (p.row, p.col)).collect();
            self.board.remove(&squares, self.config.lexicon.dawg());
            self.racks[seat] = pending.rack_before;
            self.bag.put_back(&pending.drawn);
            self.scores[seat] -= pending.score;
            self.scoreless = pending.scoreless_before + 1;
            self.history.push(Event {
                number: self.history.len(),
                seat,
                kind: EventKind::PhonyWithdrawn { play: pending.play },
                rack: rack_now,
                points: -pending.score,
                cumulative: self.scores[seat],
                time_ms: now_ms,
                undone: false,
                director: None,
            });
            if self.config.challenge == ChallengeRule::Triple {
                self.finish(EndReason::LostChallenge(seat), now_ms, false);
                return Ok(verdict);
            }
            self.phase = Phase::Playing;
            self.scoreless_end(now_ms);
            return Ok(verdict);
        }
        match self.config.challenge {
            ChallengeRule::Void | ChallengeRule::Single => {}
            ChallengeRule::Double => self.lose_next_turn[challenger] = true,
            ChallengeRule::FivePoint | ChallengeRule::TenPoint => {
                let per = if self.config.challenge == ChallengeRule::FivePoint { 5 } else { 10 };
                let bonus = if self.config.bonus_per_word { per * pending.words.len() as i32 } else { per };
                self.scores[seat] += bonus;
                self.history.push(Event {
                    number: self.history.len(),
                    seat,
                    kind: EventKind::ChallengeBonus { challenger },
                    rack: rack_now,
                    points: bonus,
                    cumulative: self.scores[seat],
                    time_ms: now_ms,
                    undone: false,
                    director: None,
                });
            }
            ChallengeRule::Triple => {
                self.finish(EndReason::LostChallenge(challenger), now_ms, false);
                return Ok(verdict);
            }
        }
        if pending.went_out {
            self.finish(EndReason::WentOut(seat), now_ms, true);
        } else if self.lose_next_turn[self.to_move] {
            // The challenger was next: its turn is gone now.
            self.skip_lost_turns(now_ms);
        }
        Ok(verdict)
    }

    fn push(&mut self, seat: usize, kind: EventKind, points: i32, now_ms: u64) {
        self.scores[seat] += points;
        self.history.push(Event {
            number: self.history.len(),
            seat,
            kind,
            rack: self.racks[seat],
            points,
            cumulative: self.scores[seat],
            time_ms: now_ms,
            undone: false,
            director: None,
        });
    }

    fn charge_clock(&mut self, seat: usize, now_ms: u64) {
        if let Some(c) = &mut self.clocks {
            c.stop(seat, now_ms);
        }
    }

    /// End the game if the scoreless-turn limit is reached; true if it ended.
    fn scoreless_end(&mut self, now_ms: u64) -> bool {
        let limit = self.config.rules.options.scoreless_turn_limit.turns(self.config.seats);
        if self.scoreless >= limit {
            self.finish(EndReason::ScorelessTurns, now_ms, true);
            true
        } else {
            false
        }
    }

    /// Pass the turn to the next seat, skipping turns lost to failed double challenges.
    fn advance(&mut self, now_ms: u64) {
        self.to_move = (self.to_move + 1) % self.config.seats;
        if let Some(c) = &mut self.clocks {
            c.start(self.to_move, now_ms);
        }
        self.skip_lost_turns(now_ms);
    }

    fn skip_lost_turns(&mut self, now_ms: u64) {
        while self.lose_next_turn[self.to_move] && !self.is_over() {
            let seat = self.to_move;
            self.lose_next_turn[seat] = false;
            self.pending = None;
            self.turn += 1;
            self.scoreless += 1;
            self.push(seat, EventKind::TurnLost, 0, now_ms);
            if self.scoreless_end(now_ms) {
                return;
            }
            self.to_move = (self.to_move + 1) % self.config.seats;
            if let Some(c) = &mut self.clocks {
                c.start(self.to_move, now_ms);
            }
        }
    }

    /// End the game: rack points (when `rack_scoring`), overtime penalties, the outcome.
    fn finish(&mut self, reason: EndReason, now_ms: u64, rack_scoring: bool) {
        self.pending = None;
        let rules = self.config.rules.clone();
        if rack_scoring {
            match reason {
                EndReason::WentOut(out) if self.config.doubled_end_rack && self.config.seats == 2 => {
                    let other = 1 - out;
                    let rack = self.racks[other];
                    let value = rules.rack_total(&rack);
                    self.push(out, EventKind::EndRackPoints { from: other, rack }, 2 * value, now_ms);
                }
                EndReason::WentOut(out) => {
                    for other in 0..self.config.seats {
                        if other == out {
                            continue;
                        }
                        let rack = self.racks[other];
                        let value = rules.rack_total(&rack);
                        self.push(out, EventKind::EndRackPoints { from: other, rack }, value, now_ms);
                        self.push(other, EventKind::RackPenalty { rack }, -value, now_ms);
                    }
                }
                EndReason::ScorelessTurns => {
                    for seat in 0..self.config.seats {
                        let rack = self.racks[seat];
                        let value = rules.rack_total(&rack);
                        self.push(seat, EventKind::RackPenalty { rack }, -value, now_ms);
                    }
                }
                _ => {}
            }
            if let Some(clocks) = self.clocks.clone() {
                for seat in 0..self.config.seats {
                    let overtime = clocks.overtime_ms(seat, now_ms);
                    if overtime > 0 {
                        let penalty = clocks.penalty(overtime);
                        self.push(seat, EventKind::TimePenalty { overtime_ms: overtime }, -penalty, now_ms);
                    }
                }
            }
        }
        let outcome = self.decide(reason);
        let seat = match reason {
            EndReason::WentOut(s)
            | EndReason::Resigned(s)
            | EndReason::OutOfTime(s)
            | EndReason::LostChallenge(s)
            | EndReason::Forfeit(s) => s,
            EndReason::ScorelessTurns | EndReason::Adjudicated | EndReason::Voided => self.to_move,
        };
        self.push(seat, EventKind::GameOver { reason }, 0, now_ms);
        self.phase = Phase::Over(outcome);
        if let Some(c) = &mut self.clocks {
            c.halt(now_ms);
        }
    }

    /// The outcome on the scores as they stand: the best score wins, except a seat that
    /// forfeited (resigned, ran out of time, lost a triple challenge).
    fn decide(&self, reason: EndReason) -> Outcome {
        if reason == EndReason::Voided {
            return Outcome { reason, scores: self.scores.clone(), winners: Vec::new() };
        }
        let forfeit = match reason {
            EndReason::Resigned(s)
            | EndReason::OutOfTime(s)
            | EndReason::LostChallenge(s)
            | EndReason::Forfeit(s) => Some(s),
            _ => None,
        };
        let candidates: Vec<usize> = (0..self.config.seats).filter(|&s| Some(s) != forfeit).collect();
        let best = candidates.iter().map(|&s| self.scores[s]).max().unwrap_or(0);
        let winners = candidates.into_iter().filter(|&s| self.scores[s] == best).collect();
        Outcome { reason, scores: self.scores.clone(), winners }
    }

    /// A time penalty written in the record of a game timed on another clock (GCG `(time)`):
    /// once the game is over, `seat` loses `points` (0 to [`MAX_TIME_PENALTY`]) and the outcome
    /// is decided again. The penalty goes in before the game-over event, which stays the last.
    pub fn record_time_penalty(&mut self, seat: usize, points: i32, now_ms: u64) -> Result<(), GameError> {
        let before = self.history.len();
        self.record_time_penalty_inner(seat, points, now_ms)?;
        self.note_op(Op::TimePenalty(seat, points, now_ms), before);
        Ok(())
    }

    fn record_time_penalty_inner(&mut self, seat: usize, points: i32, now_ms: u64) -> Result<(), GameError> {
        self.seat_check(seat)?;
        if !(0..=MAX_TIME_PENALTY).contains(&points) {
            return Err(GameError::TimePenalty(points));
        }
        let Phase::Over(outcome) = &self.phase else { return Err(GameError::NotOver) };
        let reason = outcome.reason;
        let Some(over) = self.history.pop() else { return Err(GameError::NotOver) };
        self.push(seat, EventKind::TimePenalty { overtime_ms: 0 }, -points, now_ms);
        let outcome = self.decide(reason);
        self.push(over.seat, over.kind, 0, over.time_ms);
        self.phase = Phase::Over(outcome);
        Ok(())
    }

    /// Tile conservation and score/history agreement. A violation is a bug; tests call this
    /// after every event.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut all = self.bag.contents();
        for r in &self.racks {
            all.add_all(r);
        }
        for &t in self.board.grid() {
            if t != crate::alphabet::EMPTY {
                if crate::alphabet::tile_is_blank(t) {
                    all.add_blank();
                } else {
                    all.add(tile_letter(t));
                }
            }
        }
        if all != self.config.rules.full_set() {
            return Err(format!("tiles not conserved: {all:?}"));
        }
        for seat in 0..self.config.seats {
            let sum: i32 =
                self.history.iter().filter(|e| e.seat == seat && !e.undone).map(|e| e.points).sum();
            if sum != self.scores[seat] {
                return Err(format!("seat {seat}: history sums to {sum}, score is {}", self.scores[seat]));
            }
        }
        for e in self.history.iter().filter(|e| !e.undone) {
            let running: i32 = self.history[..=e.number]
                .iter()
                .filter(|x| x.seat == e.seat && !x.undone)
                .map(|x| x.points)
                .sum();
            if running != e.cumulative {
                return Err(format!(
                    "event {}: cumulative {} but the points sum to {running}",
                    e.number, e.cumulative
                ));
            }
        }
        Ok(())
    }
}
