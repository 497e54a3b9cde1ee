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

mod challenge;
mod clock;
mod director;
mod end;
pub mod record;
mod turn;

pub use challenge::{ChallengeRule, Verdict};
pub use clock::{ClockConfig, Clocks};
pub use director::{
    DirectorAction, MAX_NOTE_CHARS, MAX_SCORE_ADJUSTMENT, Op, ResultKind, score_out_of_bounds,
};
pub use end::{EndReason, Outcome};

use crate::alphabet::{Letter, tile_letter};
use crate::bag::Bag;
use crate::board::Board;
use crate::lexicon::Lexicon;
use crate::play::{Play, Problem};
use crate::rack::Rack;
use crate::rules::Ruleset;
use std::sync::Arc;

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

    /// Each seat's bingos: plays of every tile of a full rack that stand (neither taken back by
    /// the director nor withdrawn as a phony), as the game's review counts them.
    pub fn bingos(&self) -> Vec<u32> {
        let rack_size = self.config.rules.rack_size;
        let seats = self.scores.len();
        let mut bingos = vec![0; seats];
        // Each seat's last play, when it was a bingo (a phony withdrawn names it).
        let mut last: Vec<Option<Play>> = vec![None; seats];
        for e in self.history.iter().filter(|e| !e.undone && e.seat < seats) {
            match &e.kind {
                EventKind::Play { play, .. } => {
                    let bingo = play.tiles_placed() == rack_size && e.rack.len() == rack_size;
                    bingos[e.seat] += u32::from(bingo);
                    last[e.seat] = bingo.then_some(*play);
                }
                EventKind::PhonyWithdrawn { play } if last[e.seat] == Some(*play) => {
                    bingos[e.seat] -= 1;
                    last[e.seat] = None;
                }
                _ => {}
            }
        }
        bingos
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
    /// rack goes back to the bag, the seat takes its tiles, the others draw afresh as many tiles
    /// as they held (a seat short of seven once the bag ran out stays short: drawn up to seven,
    /// it would hold tiles the bag no longer has, and the end would not come when it does).
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
        let held: Vec<usize> = self.racks.iter().map(Rack::len).collect();
        for s in 0..self.config.seats {
            let old = std::mem::take(&mut self.racks[s]);
            self.bag.put_back(&old);
        }
        let taken = self.bag.take_exact(rack);
        debug_assert!(taken, "the pool was checked");
        self.racks[seat] = *rack;
        for s in (0..self.config.seats).filter(|&s| s != seat) {
            self.bag.refill(&mut self.racks[s], held[s]);
        }
        Ok(())
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
