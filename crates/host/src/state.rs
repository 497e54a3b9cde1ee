//! A game's state as its owner holds it: the engine's [`Game`], the [`Seat`]s, the responses
//! remembered for idempotent retries, and the log steps made since the last commit. Every
//! field is private and every write to a seat or a step is here, so that a log row always says
//! exactly what changed the game: [`Core`]'s wrappers note each engine call that changed it.
//! [`Snapshot`] is what readers get: the game and its seats as of a durable change. The two share
//! one [`Game`] (copy on write): a change copies it only while the last snapshot still holds it,
//! so a game at rest is held once.

use crate::HostError;
use dawgref_engine::bot::BotLevel;
use dawgref_engine::game::{Action, DirectorAction, Game, GameError, Verdict};
use dawgref_store::record::{Done, SeatRecord, Step};
use std::collections::HashMap;
use std::sync::Arc;

/// What proves a seat: the SHA-256 of its secret token. The host compares none and makes
/// none; the services do (`server::auth`).
pub type TokenHash = [u8; 32];

/// Who sits in a seat.
#[derive(Clone, Debug)]
pub enum SeatKind {
    /// A person; `token` is the hash of its secret, `None` while the seat is open.
    Human {
        token: Option<TokenHash>,
    },
    Bot(BotLevel),
}

/// A seat: its display name and who sits in it. Written only here: at creation, on replay and
/// when a person joins.
#[derive(Clone, Debug)]
pub struct Seat {
    name: String,
    kind: SeatKind,
    /// A champion's thinking time per move, in ms (None: the default).
    think_ms: Option<u32>,
}

impl Seat {
    pub fn new(name: String, kind: SeatKind) -> Seat {
        Seat { name, kind, think_ms: None }
    }

    /// The seat with a bot's thinking time per move (for a champion; the others do not search).
    pub fn with_think_ms(mut self, think_ms: Option<u32>) -> Seat {
        self.think_ms = think_ms;
        self
    }

    /// How long the seat's bot may think per move, before clocks have their say.
    pub fn think(&self) -> std::time::Duration {
        self.think_ms.map_or(dawgref_engine::bot::CHAMPION_BUDGET, |ms| {
            std::time::Duration::from_millis(u64::from(ms))
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn kind(&self) -> &SeatKind {
        &self.kind
    }

    pub fn is_bot(&self) -> bool {
        matches!(self.kind, SeatKind::Bot(_))
    }

    /// A person's seat nobody has joined yet.
    pub fn is_open(&self) -> bool {
        matches!(self.kind, SeatKind::Human { token: None })
    }

    /// The hash of the token that proves this seat (None: a bot, or an open seat).
    pub fn token(&self) -> Option<TokenHash> {
        match self.kind {
            SeatKind::Human { token } => token,
            SeatKind::Bot(_) => None,
        }
    }

    pub fn bot_level(&self) -> Option<BotLevel> {
        match self.kind {
            SeatKind::Bot(l) => Some(l),
            SeatKind::Human { .. } => None,
        }
    }

    /// A person takes this open seat (an empty name keeps the seat's).
    /// A person's seat given a new token (a lost one): None for a bot's or an open seat.
    pub(super) fn new_token(&mut self, token: TokenHash) -> Option<()> {
        match &mut self.kind {
            SeatKind::Human { token: Some(held) } => *held = token,
            _ => return None,
        }
        Some(())
    }

    pub(super) fn join(&mut self, name: &str, token: TokenHash) {
        self.kind = SeatKind::Human { token: Some(token) };
        if !name.is_empty() {
            self.name = name.to_string();
        }
    }

    /// The seat as a game's record stores it.
    pub(super) fn record(&self) -> SeatRecord {
        match self.kind {
            SeatKind::Human { token } => SeatRecord {
                name: self.name.clone(),
                bot: String::new(),
                token_hash: token.map(|t| t.to_vec()).unwrap_or_default(),
                think_ms: None,
            },
            SeatKind::Bot(level) => SeatRecord {
                name: self.name.clone(),
                bot: level.name().to_string(),
                token_hash: Vec::new(),
                think_ms: self.think_ms,
            },
        }
    }

    /// A seat as a record stores it.
    pub(super) fn from_record(i: usize, s: &SeatRecord) -> Result<Seat, String> {
        let kind = if s.bot.is_empty() {
            let token = match s.token_hash.len() {
                0 => None,
                32 => Some(TokenHash::try_from(s.token_hash.as_slice()).map_err(|e| e.to_string())?),
                n => return Err(format!("seat {i}'s token hash has {n} bytes")),
            };
            SeatKind::Human { token }
        } else {
            SeatKind::Bot(s.bot.parse::<BotLevel>().map_err(|e| format!("seat {i}: {e}"))?)
        };
        Ok(Seat { name: s.name.clone(), kind, think_ms: s.think_ms })
    }
}

/// The default pace of a game's bots: about a second between moves when only bots play (so
/// that people can watch), none when a person plays (who waits for the bot's answer).
pub fn default_bot_delay_ms(seats: &[Seat]) -> u32 {
    if seats.iter().all(Seat::is_bot) { 1000 } else { 0 }
}

/// Remembered first responses by who asked and request id, as the bytes the services encoded.
pub type Remembered = HashMap<(Asker, String), Vec<u8>>;

/// Who a remembered answer belongs to: a seat, or the director, whose request ids are apart
/// from every seat's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Asker {
    Seat(usize),
    Director,
}

/// The seat number a log row writes for the director's answers: no game has that seat.
const DIRECTOR_IN_ROW: u32 = 1_000_000;

impl Asker {
    /// As a log row keeps it.
    pub(crate) fn to_row(self) -> u32 {
        match self {
            Asker::Seat(seat) => seat as u32,
            Asker::Director => DIRECTOR_IN_ROW,
        }
    }

    /// What a log row kept.
    pub(crate) fn from_row(seat: u32) -> Asker {
        if seat == DIRECTOR_IN_ROW { Asker::Director } else { Asker::Seat(seat as usize) }
    }
}

/// Events one change to a game adds, most of the time (a play and the game's end, say).
const EVENTS_PER_CHANGE: usize = 3;

/// The tournament round a game was made for, as its record keeps it: the tournament's slug, the
/// division's name and the round (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentLink {
    pub slug: String,
    pub division: String,
    pub round: u32,
}

impl TournamentLink {
    /// As the game's record keeps it.
    pub fn record(&self) -> dawgref_store::record::TournamentRecord {
        let TournamentLink { slug, division, round } = self.clone();
        dawgref_store::record::TournamentRecord { slug, division, round }
    }

    /// As the game's record kept it.
    pub fn of(r: &dawgref_store::record::TournamentRecord) -> TournamentLink {
        TournamentLink { slug: r.slug.clone(), division: r.division.clone(), round: r.round }
    }
}

/// A game's state as its task owns it. Built by creation or by replaying a log.
pub struct Core {
    /// Shared with the last published snapshot; written through [`Core::game_mut`].
    game: Arc<Game>,
    seats: Vec<Seat>,
    /// The game's labels (tournament, division, round, table, …).
    labels: Arc<Vec<(String, String)>>,
    /// The tournament round it was made for, if any.
    tournament: Option<Arc<TournamentLink>>,
    /// First results of requests by (seat, request_id), for idempotent retries.
    done: Remembered,
    /// Engine calls made since the last commit: the next log row.
    steps: Vec<Step>,
    /// Sequence number of the next log row.
    seq: u64,
}

impl Core {
    /// A game's state whose log holds `seq` rows already.
    pub fn new(game: Game, seats: Vec<Seat>, done: Remembered, seq: u64) -> Core {
        Core {
            game: Arc::new(game),
            seats,
            labels: Arc::default(),
            tournament: None,
            done,
            steps: Vec::new(),
            seq,
        }
    }

    /// The game with its labels.
    pub fn with_labels(mut self, labels: Vec<(String, String)>) -> Core {
        self.labels = Arc::new(labels);
        self
    }

    /// The game with the tournament round it was made for.
    pub fn with_tournament(mut self, tournament: Option<TournamentLink>) -> Core {
        self.tournament = tournament.map(Arc::new);
        self
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game, shared (a bot thinks about it on the pool while the game goes on).
    pub(super) fn shared_game(&self) -> Arc<Game> {
        self.game.clone()
    }

    /// The game to change: copied first if the last snapshot still shares it, with room for
    /// the few events a change adds (so the copy kept holds no doubled capacity).
    fn game_mut(&mut self) -> &mut Game {
        if Arc::get_mut(&mut self.game).is_none() {
            self.game = Arc::new(self.game.clone_with_room(EVENTS_PER_CHANGE));
        }
        Arc::make_mut(&mut self.game)
    }

    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// The remembered responses, for checks that a replay restores them.
    pub fn remembered_responses(&self) -> &Remembered {
        &self.done
    }

    pub(super) fn bot_level(&self, seat: usize) -> Option<BotLevel> {
        self.seats.get(seat)?.bot_level()
    }

    /// How long `seat`'s bot may think per move (before clocks have their say).
    pub(super) fn think(&self, seat: usize) -> std::time::Duration {
        self.seats.get(seat).map_or(dawgref_engine::bot::CHAMPION_BUDGET, Seat::think)
    }

    /// The first response to `asker`'s request `key`, if it was answered before.
    pub(super) fn remembered(&self, asker: Asker, key: Option<&str>) -> Option<Vec<u8>> {
        key.and_then(|k| self.done.get(&(asker, k.to_string()))).cloned()
    }

    /// Remember a response for retries; the log row that goes with it.
    pub(super) fn remember(
        &mut self,
        asker: Asker,
        key: Option<String>,
        bytes: Option<Vec<u8>>,
    ) -> Option<Done> {
        let (key, bytes) = (key?, bytes?);
        self.done.insert((asker, key.clone()), bytes.clone());
        Some(Done { seat: asker.to_row(), request_id: key, response: bytes })
    }

    /// [`Game::act`], noting the step for the log. A refused action changes nothing, unless the
    /// clock ran out on the way: that is logged as a tick.
    pub(super) fn act(&mut self, seat: usize, action: Action, now_ms: u64) -> Result<(), GameError> {
        let step = Step::action(seat, &action, now_ms, self.game.config().rules.alphabet);
        let before = self.game.history().len();
        let result = self.game_mut().act(seat, action, now_ms);
        self.note(result.is_ok(), step, before, now_ms);
        result
    }

    pub(super) fn challenge(&mut self, seat: usize, now_ms: u64) -> Result<Verdict, GameError> {
        let before = self.game.history().len();
        let result = self.game_mut().challenge(seat, now_ms);
        self.note(result.is_ok(), Step::challenge(seat, now_ms), before, now_ms);
        result
    }

    /// A director's action (by the director key named; None: the root director), noting the
    /// step for the log.
    pub(super) fn direct(
        &mut self,
        action: DirectorAction,
        by: Option<String>,
        now_ms: u64,
    ) -> Result<(), GameError> {
        let step = Step::director(&action, by.as_deref(), now_ms);
        let before = self.game.history().len();
        let result = self.game_mut().direct(action, by, now_ms);
        self.note(result.is_ok(), step, before, now_ms);
        result
    }

    /// The director takes back the last turn, noting the step for the log.
    pub(super) fn undo(&mut self, by: Option<String>, now_ms: u64) -> Result<(), GameError> {
        let before = self.game.history().len();
        let step = Step::undo(by.as_deref(), now_ms);
        let result = self.game_mut().undo_turn(by, now_ms);
        self.note(result.is_ok(), step, before, now_ms);
        result
    }

    pub(super) fn tick(&mut self, now_ms: u64) -> bool {
        let ended = self.game_mut().tick(now_ms);
        if ended {
            self.steps.push(Step::tick(now_ms));
        }
        ended
    }

    /// Seat a person in the first open seat, noting the step; its number (None: no open seat).
    pub(super) fn join(&mut self, name: &str, token: TokenHash, now_ms: u64) -> Option<usize> {
        let seat = self.seats.iter().position(Seat::is_open)?;
        self.seats[seat].join(name, token);
        self.steps.push(Step::join(seat, name, &token, now_ms));
        Some(seat)
    }

    /// Seat `seat`'s person given a new `token` (their old one stops working): refused for a seat
    /// not there, a bot's, or an open one.
    pub(super) fn new_token(&mut self, seat: usize, token: TokenHash, now_ms: u64) -> Result<(), HostError> {
        let seats = self.seats.len();
        let given = self.seats.get_mut(seat).and_then(|s| s.new_token(token));
        given.ok_or_else(|| {
            HostError::field(
                "seat",
                format!("{seat}: not a person's seat taken (the game has seats 0 to {})", seats - 1),
            )
        })?;
        self.steps.push(Step::new_token(seat, &token, now_ms));
        Ok(())
    }

    /// The steps since the last commit, for the next log row (`seq`).
    pub(super) fn take_steps(&mut self) -> (u64, Vec<Step>) {
        (self.seq, std::mem::take(&mut self.steps))
    }

    /// The row taken by [`Core::take_steps`] is durable.
    pub(super) fn committed(&mut self) {
        self.seq += 1;
    }

    pub(super) fn has_steps(&self) -> bool {
        !self.steps.is_empty()
    }

    fn note(&mut self, ok: bool, step: Step, before: usize, now_ms: u64) {
        if ok {
            self.steps.push(step);
        } else if self.game.history().len() != before {
            self.steps.push(Step::tick(now_ms));
        }
    }

    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            game: self.game.clone(),
            seats: self.seats.clone(),
            labels: self.labels.clone(),
            tournament: self.tournament.clone(),
            earlier: Default::default(),
        }
    }
}

/// What readers see: the game as of its last durable change. Every event in it is published.
pub struct Snapshot {
    game: Arc<Game>,
    seats: Vec<Seat>,
    labels: Arc<Vec<(String, String)>>,
    tournament: Option<Arc<TournamentLink>>,
    /// The last game [`Snapshot::as_of`] rebuilt from this one, by the journal's calls it holds:
    /// every spectator held back by the same delay asks for the same one until the next move
    /// is due, and only the first pays for the rebuild.
    earlier: std::sync::Mutex<Option<(usize, Arc<Snapshot>)>>,
}

impl Snapshot {
    /// A game's state as a snapshot, for a reader of a game not served here.
    pub fn of(core: Core) -> Snapshot {
        let Core { game, seats, labels, tournament, .. } = core;
        Snapshot { game, seats, labels, tournament, earlier: Default::default() }
    }

    /// The game as it stood at game time `ms` (None: as it was made; see `Game::as_of`), with
    /// the same seats and labels: this snapshot itself when no event has happened since.
    pub fn as_of(self: &Arc<Snapshot>, ms: Option<u64>) -> Arc<Snapshot> {
        if self.game.history().last().is_none_or(|e| ms.is_some_and(|ms| e.time_ms <= ms)) {
            return self.clone();
        }
        let Some(calls) = self.game.calls_by(ms) else { return self.clone() };
        let mut earlier = self.earlier.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((kept, snapshot)) = earlier.as_ref()
            && *kept == calls
        {
            return snapshot.clone();
        }
        let snapshot = Arc::new(Snapshot {
            game: Arc::new(self.game.with_calls(calls)),
            seats: self.seats.clone(),
            labels: self.labels.clone(),
            tournament: self.tournament.clone(),
            earlier: Default::default(),
        });
        *earlier = Some((calls, snapshot.clone()));
        snapshot
    }

    /// The game's labels, in key order.
    pub fn labels(&self) -> &[(String, String)] {
        &self.labels
    }

    /// The tournament round the game was made for (None: no tournament's, or a game made before
    /// its record kept it: its labels name it).
    pub fn tournament(&self) -> Option<&TournamentLink> {
        self.tournament.as_deref()
    }

    pub fn game(&self) -> &Game {
        &self.game
    }

    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// The hash of each seat's token (None: a bot or an open seat), in seat order.
    pub fn tokens(&self) -> Vec<Option<TokenHash>> {
        self.seats.iter().map(Seat::token).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dawgref_engine::game::{Action, GameConfig};
    use dawgref_engine::lexicon::Lexicon;
    use dawgref_engine::rules::Ruleset;

    #[test]
    fn readers_held_back_to_the_same_moment_share_one_rebuild() {
        let rules = Arc::new(Ruleset::english());
        let (lexicon, _) = Lexicon::compile("tiny", "CAT\nDOG\n", rules.alphabet).unwrap();
        let mut game = Game::new(GameConfig::new(rules, Arc::new(lexicon), 7)).unwrap();
        game.act(0, Action::Pass, 1_000).unwrap();
        game.act(1, Action::Pass, 2_000).unwrap();
        let open = || SeatKind::Human { token: None };
        let seats = vec![Seat::new("ann".into(), open()), Seat::new("bo".into(), open())];
        let snapshot = Arc::new(Snapshot::of(Core::new(game, seats, Remembered::new(), 0)));
        // Nothing after the moment: the snapshot itself.
        assert!(Arc::ptr_eq(&snapshot.as_of(Some(2_000)), &snapshot));
        // Two readers at moments between the same two events: one game, rebuilt once.
        let first = snapshot.as_of(Some(1_200));
        assert_eq!(first.game().history().len(), 1);
        assert!(Arc::ptr_eq(&snapshot.as_of(Some(1_900)), &first));
        // Another moment, another game; and back again, rebuilt anew (one is kept).
        let made = snapshot.as_of(None);
        assert!(made.game().history().is_empty());
        let again = snapshot.as_of(Some(1_500));
        assert!(!Arc::ptr_eq(&again, &first));
        assert_eq!(again.game().history(), first.game().history());
    }
}
