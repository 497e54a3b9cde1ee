//! A tournament as kept: its name, its games' settings and seed, and each division as
//! `dawgref-tournament`'s own [`Division`] (changed only by its checked methods) with what the
//! server keeps beside it: each round's games once started, and each player's token hash. How it
//! is written to the store and read back checked is `stored`'s (a record an earlier build wrote,
//! the wire messages themselves, is `legacy`'s). Its events and kept answers are rows of their
//! own, carried here only until they are written. A result enters it through one method,
//! [`Record::enter_result`], whatever brings it ([`Source`]).

use super::event::{Actor, EventKind, TournamentEvent};
use crate::error::{EventsError, Invalid, PlayerNamed};
use crate::settings::GameSettings;
use dawgref_host::TokenHash;
use dawgref_tournament::prizes::PrizeList;
use dawgref_tournament::{Division, GameResult, Pairing, PairingId, PlayerId, RoundId};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

///
/// Its fields are the layer's alone: outside it a record is read through its methods, and changed
/// only by the layer's commands ([`crate::Command`] and the calls that act on games).
#[derive(Clone)]
pub struct Record {
    pub(crate) slug: String,
    pub(crate) name: String,
    /// The settings every game of the tournament is made with.
    pub(crate) game: GameSettings,
    /// Every draw: the divisions' seeds and the games' bags come from it.
    pub(crate) seed: u64,
    /// Events so far: the next event's number.
    pub(crate) events: u64,
    pub(crate) divisions: Vec<DivisionRecord>,
    /// Who makes the change being made, as its events name them ([`super::event::Actor::name`]):
    /// set by the command, never stored (cleared when the change is written).
    pub(crate) by: String,
    /// Events not yet written: those of this change (taken out as rows of their own when it is
    /// written), or those a record of an earlier build carried inside it.
    pub(crate) unwritten: Vec<TournamentEvent>,
    /// Answers by request id (the method's name and the id) not yet written, likewise.
    pub(crate) answers: Vec<Answer>,
    /// Each stored part's hash as the store holds it at the version read (`stored`: a change
    /// writes only the parts whose text differs).
    pub(crate) stored: std::collections::HashMap<String, u64>,
    /// The reviews this change asks of the jobs, written with it (never stored in the record).
    pub(crate) reviews: Vec<dawgref_store::ReviewOrder>,
}

/// A division and what the server keeps beside it.
#[derive(Clone, Debug, PartialEq)]
pub struct DivisionRecord {
    pub(crate) division: Division,
    /// Per round: None until it has started; then each line's game id (empty for a bye, or a
    /// result entered before the round started).
    pub(crate) games: Vec<Option<Vec<String>>>,
    /// Per player: their token's SHA-256 (None for a bot, who has no token).
    pub(crate) tokens: Vec<Option<TokenHash>>,
    /// Whether and how its players report their own results.
    pub(crate) reports_mode: ReportsMode,
    /// The players' reports of lines with no result yet, by (round, line) index.
    pub(crate) reports: BTreeMap<(usize, usize), LineReports>,
    /// Its prize list, in order of priority.
    pub(crate) prizes: PrizeList,
    /// The players who have checked in (CheckIn), before its first round is paired.
    pub(crate) checked_in: BTreeSet<PlayerId>,
    /// A bots' arena: only bots are entered in it (a registered bot by its account, or the
    /// server's).
    pub(crate) bots_only: bool,
    /// Its games are reviewed as they end, at this time a turn (0: they are not).
    pub(crate) review_ms: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Answer {
    pub key: String,
    pub body: Vec<u8>,
}

/// A division of a tournament: its place among the tournament's divisions (from 0), as the
/// record holds them (a division is never taken out, so it stays that division's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DivisionId(pub(crate) usize);

impl DivisionId {
    pub fn index(self) -> usize {
        self.0
    }
}

impl std::ops::Index<DivisionId> for Vec<DivisionRecord> {
    type Output = DivisionRecord;

    fn index(&self, d: DivisionId) -> &DivisionRecord {
        &self[d.0]
    }
}

impl std::ops::IndexMut<DivisionId> for Vec<DivisionRecord> {
    fn index_mut(&mut self, d: DivisionId) -> &mut DivisionRecord {
        &mut self[d.0]
    }
}

impl DivisionRecord {
    /// The division: its players, rounds and results.
    pub fn division(&self) -> &Division {
        &self.division
    }

    /// Per player: their token's SHA-256 (None for a bot, who has no token).
    pub fn tokens(&self) -> &[Option<TokenHash>] {
        &self.tokens
    }

    /// A division not started, with its players' token hashes.
    pub(crate) fn new(division: Division, tokens: Vec<Option<TokenHash>>) -> DivisionRecord {
        DivisionRecord {
            games: vec![None; division.rounds().len()],
            division,
            tokens,
            reports_mode: ReportsMode::Off,
            reports: BTreeMap::new(),
            prizes: PrizeList::default(),
            checked_in: BTreeSet::new(),
            bots_only: false,
            review_ms: 0,
        }
    }

    /// Whether only bots are entered in it.
    pub fn bots_only(&self) -> bool {
        self.bots_only
    }

    /// The time a turn its games are reviewed at as they end (0: they are not).
    pub fn review_ms(&self) -> u32 {
        self.review_ms
    }

    /// Whether and how its players report their own results.
    pub fn reports_mode(&self) -> ReportsMode {
        self.reports_mode
    }

    /// The players' reports of round `k`'s line `i` while it has no result (to a viewer who is
    /// not a director, only their own: `Events::spectators`).
    pub fn reports(&self, k: RoundId, i: PairingId) -> LineReports {
        self.reports.get(&(k.index(), i.index())).copied().unwrap_or_default()
    }

    /// Its prize list, in order of priority.
    pub fn prizes(&self) -> &PrizeList {
        &self.prizes
    }

    /// Whether `player` has checked in.
    pub fn checked_in(&self, player: PlayerId) -> bool {
        self.checked_in.contains(&player)
    }

    /// Whether round `k` has started.
    pub fn started(&self, k: RoundId) -> bool {
        self.games.get(k.index()).is_some_and(Option::is_some)
    }

    /// The game of round `k`'s line `i`, by id (None: a bye, a result entered by hand, or a
    /// round not started).
    pub fn game_id(&self, k: RoundId, i: PairingId) -> Option<&str> {
        let id = self.games.get(k.index())?.as_ref()?.get(i.index())?;
        // Kept as an empty id where there is none: the store's format.
        (!id.is_empty()).then_some(id.as_str())
    }

    /// Round `k`'s line `i`, if there is one.
    pub fn line(&self, k: RoundId, i: PairingId) -> Option<&Pairing> {
        self.division.rounds().get(k.index())?.pairings.as_ref()?.get(i.index())
    }

    /// Round `k`'s lines (none before it is paired).
    pub fn lines(&self, k: RoundId) -> &[Pairing] {
        self.division.rounds().get(k.index()).and_then(|r| r.pairings.as_deref()).unwrap_or_default()
    }

    /// Round `k`'s lines, each with its pairing (none before it is paired).
    pub fn pairings(&self, k: RoundId) -> impl Iterator<Item = (PairingId, &Pairing)> {
        self.lines(k).iter().enumerate().map(|(i, line)| (PairingId::at(i), line))
    }

    /// The game `player` is to play now: of the latest started round, one of theirs with a game
    /// and no result yet.
    pub fn current_game(&self, player: PlayerId) -> Option<&str> {
        (self.round_ids().rev().filter(|&k| self.started(k)))
            .flat_map(|k| self.pairings(k).map(move |(i, line)| (k, i, line)))
            .filter(|(_, _, line)| !line.is_done() && line.players().any(|p| p == player))
            .find_map(|(k, i, _)| self.game_id(k, i))
    }

    /// Each round, from the first.
    pub fn round_ids(&self) -> impl DoubleEndedIterator<Item = RoundId> + use<> {
        (0..self.division.rounds().len()).map(RoundId::at)
    }

    /// What a record must be to be read: a game list for each round, one game id for each line of
    /// a started round (which is paired), a token hash for each player.
    pub fn check(&self) -> Result<(), String> {
        let name = self.division.name();
        if self.games.len() != self.division.rounds().len() {
            return Err(format!(
                "division {name}: {} rounds, games for {}",
                self.division.rounds().len(),
                self.games.len()
            ));
        }
        for (k, games) in self.games.iter().enumerate() {
            if let Some(games) = games {
                let Some(lines) = &self.division.rounds()[k].pairings else {
                    return Err(format!("division {name}: round {} started and not paired", k + 1));
                };
                if games.len() != lines.len() {
                    return Err(format!(
                        "division {name}: round {} has {} lines and {} games",
                        k + 1,
                        lines.len(),
                        games.len()
                    ));
                }
            }
        }
        if self.tokens.len() != self.division.players().len() {
            return Err(format!(
                "division {name}: {} players and {} tokens",
                self.division.players().len(),
                self.tokens.len()
            ));
        }
        for &(k, i) in self.reports.keys() {
            let line = self.division.rounds().get(k).and_then(|r| r.pairings.as_ref()?.get(i));
            if !matches!(line, Some(Pairing::Game { result: None, .. })) {
                return Err(format!(
                    "division {name}: a report of round {} line {}, which is no game waiting for its result",
                    k + 1,
                    i + 1
                ));
            }
        }
        if let Some(p) = self.checked_in.iter().find(|p| p.index() >= self.division.players().len()) {
            return Err(format!("division {name}: player {} checked in, of {}", p.0 + 1, self.tokens.len()));
        }
        Ok(())
    }
}

impl Record {
    /// Its slug: the name it is called by.
    pub fn slug(&self) -> &str {
        &self.slug
    }

    /// Its name for people.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The settings every game of the tournament is made with.
    pub fn game(&self) -> &GameSettings {
        &self.game
    }

    /// Every draw: the divisions' seeds and the games' bags come from it.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Events so far: the next event's number.
    pub fn event_count(&self) -> u64 {
        self.events
    }

    /// Its divisions, in the order they were made.
    pub fn divisions(&self) -> &[DivisionRecord] {
        &self.divisions
    }

    /// A new tournament, with no divisions yet.
    pub(crate) fn new(slug: &str, name: &str, game: GameSettings, seed: u64) -> Record {
        Record {
            slug: slug.to_string(),
            name: name.to_string(),
            game,
            seed,
            events: 0,
            by: String::new(),
            divisions: Vec::new(),
            unwritten: Vec::new(),
            answers: Vec::new(),
            stored: Default::default(),
            reviews: Vec::new(),
        }
    }

    /// The division `d`-th (from 0) of the tournament's own seed, drawn from the tournament's.
    pub(crate) fn division_seed(&self, d: usize) -> u64 {
        self.seed ^ (d as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// Division `d`.
    pub fn division_at(&self, d: DivisionId) -> &Division {
        &self.divisions[d.0].division
    }

    /// Each division, in the order they were made.
    pub fn division_ids(&self) -> impl Iterator<Item = DivisionId> + use<> {
        (0..self.divisions.len()).map(DivisionId)
    }

    /// Division `d` with its games and tokens.
    pub fn entry(&self, d: DivisionId) -> &DivisionRecord {
        &self.divisions[d.0]
    }

    /// A division by name: refused naming the divisions there are.
    pub fn division(&self, name: &str) -> Result<DivisionId, EventsError> {
        self.divisions.iter().position(|d| d.division.name() == name).map(DivisionId).ok_or_else(|| {
            let there = self.divisions.iter().map(|d| d.division.name().to_string()).collect();
            Invalid::NoSuchDivision { name: name.to_string(), there }.into()
        })
    }

    /// A round by the number (from 1) a director names it by: refused when it is not there.
    pub fn round(&self, d: DivisionId, number: u32) -> Result<RoundId, EventsError> {
        let rounds = self.division_at(d).rounds().len();
        match number as usize {
            n if (1..=rounds).contains(&n) => Ok(RoundId(number - 1)),
            _ => Err(Invalid::NoSuchRound { round: number, rounds }.into()),
        }
    }

    /// The player whose token `token` is, by division and id (each division's hashes compared in
    /// constant time), and the actor their own commands are made by.
    pub fn player_of_token(&self, token: &str) -> Option<(DivisionId, PlayerId, Actor)> {
        self.division_ids().find_map(|d| {
            let player = PlayerId(dawgref_host::find_seat(token, self.entry(d).tokens())? as u32);
            Some((d, player, self.player_actor(d, player)))
        })
    }

    /// Every player's token hash, to find them by: the player [`Record::player_of_token`]
    /// finds for a token is the one kept for its hash.
    pub(crate) fn players_by_token(&self) -> HashMap<TokenHash, (DivisionId, PlayerId)> {
        let mut by_token = HashMap::new();
        // Inserted last wins: the first division's, and in a division the last seat's, as
        // `player_of_token` finds them.
        for d in (0..self.divisions.len()).rev().map(DivisionId) {
            for (i, hash) in self.entry(d).tokens().iter().enumerate() {
                if let Some(hash) = hash {
                    by_token.insert(*hash, (d, PlayerId(i as u32)));
                }
            }
        }
        by_token
    }

    /// The actor player `player` of division `d` makes their own commands as.
    pub(crate) fn player_actor(&self, d: DivisionId, player: PlayerId) -> Actor {
        Actor::Player { division: self.division_at(d).name().to_string(), player: player.0 + 1 }
    }

    /// A player's number (from 1) in division `d`: INVALID_ARGUMENT when it is not there.
    pub fn player(&self, d: DivisionId, number: u32) -> Result<(), EventsError> {
        self.player_named_by(d, PlayerNamed::Player, number).map(|_| ())
    }

    /// Player `number` (from 1) of division `d`, as the command names them (`by`): refused
    /// saying how when they are not there.
    pub(crate) fn player_named_by(
        &self,
        d: DivisionId,
        by: PlayerNamed,
        number: u32,
    ) -> Result<PlayerId, EventsError> {
        let players = self.division_at(d).players().len() as u32;
        if (1..=players).contains(&number) {
            Ok(PlayerId(number - 1))
        } else {
            Err(Invalid::NoSuchPlayer { player: number, players, by }.into())
        }
    }

    /// Enter a result for round `k`'s line `i` of division `d`: the one door a result enters a
    /// tournament by, whoever brings it ([`Source`]: a director's hand, correcting the one in or
    /// not; a game's end). A withdrawal's forfeits are the division's own (`Division::withdraw`
    /// enters them with the withdrawal) and are noted by the same event ([`Record::withdraw`]).
    /// A line's game, if it has one and is still in play, is ended with this result by the
    /// caller once this is taken, before the change is written: the game and the pairing say
    /// the same.
    pub(crate) fn enter_result(
        &mut self,
        d: DivisionId,
        k: RoundId,
        i: PairingId,
        result: GameResult,
        source: Source,
    ) -> Result<(), EventsError> {
        let line = self.divisions[d].line(k, i);
        // What a correction replaces, for its event.
        let was = line.filter(|l| l.is_done()).map(|l| detail(self.division_at(d), l));
        let correct = matches!(source, Source::Director { correct: true });
        let division = &mut self.divisions[d].division;
        division.record(k.index(), i.index(), result, correct).map_err(EventsError::Rules)?;
        self.noted_result(d, k, i, was, source);
        self.review_on_result(d, k, i);
        Ok(())
    }

    /// The forfeits [`Record::withdraw`] would make, as (round, line) indices, the record
    /// untouched.
    pub(crate) fn forfeits_of(
        &self,
        d: DivisionId,
        number: u32,
    ) -> Result<Vec<(RoundId, PairingId)>, EventsError> {
        let forfeits = self.division_at(d).clone().withdraw(PlayerId(number - 1));
        Ok(forfeits.map_err(EventsError::Rules)?.into_iter().map(ids).collect())
    }

    /// The event of a result entered in round `k`'s line `i` (`was`: the result it corrects).
    /// The line's reports stand only while it waits for its result: they go whatever brings it
    /// (a withdrawal's forfeits included).
    fn noted_result(&mut self, d: DivisionId, k: RoundId, i: PairingId, was: Option<String>, source: Source) {
        self.divisions[d].reports.remove(&(k.index(), i.index()));
        let kind = if was.is_some() { EventKind::ResultCorrected } else { EventKind::Result };
        let line = self.divisions[d].line(k, i);
        let players = line.map(|l| l.players().map(|p| p.0 + 1).collect()).unwrap_or_default();
        let mut detail = line.map(|line| detail(self.division_at(d), line)).unwrap_or_default();
        if source == Source::Withdrawal {
            detail = format!("{detail} (withdrawn)");
        }
        if source == Source::Reports {
            detail = format!("{detail} (the players' report)");
        }
        if let Some(was) = was {
            detail = format!("{detail} (was {was})");
        }
        let division = self.division_at(d).name().to_string();
        let result = line.and_then(|line| match *line {
            Pairing::Game { result, .. } => result,
            Pairing::Bye { .. } => None,
        });
        let event = self.event(kind, &division, k.number(), i.number(), detail);
        event.players = players;
        event.keep_result(result);
        if source == Source::Game {
            event.by = super::event::GAME.to_string();
        }
    }

    /// Withdraw player `number` (from 1) of division `d`: paired no more, and each of their
    /// games paired and not played a forfeit, noted as [`Record::enter_result`] notes a result.
    /// The forfeits made, as (round, line) indices.
    pub(crate) fn withdraw(
        &mut self,
        d: DivisionId,
        number: u32,
    ) -> Result<Vec<(RoundId, PairingId)>, EventsError> {
        let forfeits =
            (self.divisions[d].division.withdraw(PlayerId(number - 1))).map_err(EventsError::Rules)?;
        let forfeits: Vec<(RoundId, PairingId)> = forfeits.into_iter().map(ids).collect();
        for &(k, i) in &forfeits {
            self.noted_result(d, k, i, None, Source::Withdrawal);
            self.review_on_result(d, k, i);
        }
        Ok(forfeits)
    }

    /// Note an event (numbered in order, by whom the change is by), to be written with this
    /// change; the event, to name its players.
    pub(crate) fn event(
        &mut self,
        kind: EventKind,
        division: &str,
        round: u32,
        pairing: u32,
        detail: String,
    ) -> &mut TournamentEvent {
        let number = self.events;
        self.unwritten.push(TournamentEvent {
            number,
            kind: kind.name().to_string(),
            division: division.into(),
            round,
            pairing,
            detail,
            unix_ms: dawgref_host::unix_ms(),
            by: self.by.clone(),
            ..TournamentEvent::default()
        });
        self.events = number + 1;
        let last = self.unwritten.len() - 1;
        &mut self.unwritten[last]
    }

    /// The answer a request key was given, if this record holds it unwritten.
    pub(crate) fn unwritten_answer(&self, key: &str) -> Option<&[u8]> {
        self.answers.iter().rev().find(|a| a.key == key).map(|a| a.body.as_slice())
    }

    /// Keep an answer for its request id's retries (written with this change).
    pub(crate) fn remember(&mut self, key: String, body: Vec<u8>) {
        self.answers.push(Answer { key, body });
    }

    /// A player's name by division and 1-based number, for event details.
    pub fn player_name(&self, d: DivisionId, number: u32) -> &str {
        let player = (number as usize).checked_sub(1).and_then(|i| self.division_at(d).players().get(i));
        player.map_or("?", |p| p.name.as_str())
    }
}

/// A division's (round, line) indices as the ids they are.
fn ids((k, i): (usize, usize)) -> (RoundId, PairingId) {
    (RoundId::at(k), PairingId::at(i))
}

/// A pairing's result for people: "Ann 412 – Bo 388", "Bo forfeits to Ann", "Ann: a bye (+50)".
pub(crate) fn detail(d: &Division, line: &Pairing) -> String {
    let name = |p: PlayerId| d.players().get(p.index()).map_or("?", |p| p.name.as_str());
    match *line {
        Pairing::Bye { player, spread } => format!("{}: a bye ({spread:+})", name(player)),
        Pairing::Game { first, second, result } => {
            let (a, b) = (name(first), name(second));
            match result {
                Some(GameResult::Scores([x, y])) => format!("{a} {x} – {b} {y}"),
                Some(forfeit @ GameResult::Forfeit { .. }) if forfeit.forfeiter() == Some(0) => {
                    format!("{a} forfeits to {b}")
                }
                Some(GameResult::Forfeit { .. }) => format!("{b} forfeits to {a}"),
                None => format!("{a} – {b}"),
            }
        }
    }
}

/// The result a finished game enters: a director's forfeit as a forfeit; else its scores,
/// unless its winner is not ahead (a resignation, a flag, a lost challenge): then a forfeit by
/// the loser.
/// None for a game with no winner to name (voided, or more than two seats).
pub fn game_result(outcome: &dawgref_engine::game::Outcome) -> Option<GameResult> {
    use dawgref_engine::game::EndReason;
    if outcome.scores.len() != 2 || outcome.reason == EndReason::Voided {
        return None;
    }
    // A director's forfeit is a forfeit whatever the scores stood at.
    if let EndReason::Forfeit(seat) = outcome.reason
        && seat < 2
    {
        return Some(GameResult::forfeit_by(seat));
    }
    let (a, b) = (outcome.scores[0], outcome.scores[1]);
    match outcome.winners.as_slice() {
        [0, 1] if a == b => Some(GameResult::Scores([a, b])),
        [w] if (*w == 0 && a > b) || (*w == 1 && b > a) => Some(GameResult::Scores([a, b])),
        [w] => Some(GameResult::Forfeit { winner: *w }),
        _ => None,
    }
}

/// How a division takes its players' reports of their results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReportsMode {
    /// Players do not report: the director enters results (and the server's games their own).
    #[default]
    Off,
    /// A result enters when the two players' reports agree.
    BothAgree,
    /// One player's report enters the result; the director audits the log.
    OneSuffices,
}

impl ReportsMode {
    /// How the log says it.
    pub(crate) fn said(self) -> &'static str {
        match self {
            ReportsMode::Off => "players do not report their results",
            ReportsMode::BothAgree => "players report their results: both reports must agree",
            ReportsMode::OneSuffices => "players report their results: one report enters it",
        }
    }
}

/// A line's reports so far, by seat: the scores each reported, the line's first player's first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LineReports {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<[i32; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<[i32; 2]>,
}

impl LineReports {
    /// Seat `seat`'s report (0 first, 1 second).
    pub fn by(&self, seat: usize) -> Option<[i32; 2]> {
        if seat == 0 { self.first } else { self.second }
    }

    pub(crate) fn set(&mut self, seat: usize, scores: [i32; 2]) {
        *(if seat == 0 { &mut self.first } else { &mut self.second }) = Some(scores);
    }
}

/// What brings a result in ([`Record::enter_result`]): its event tells which.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A director's RecordResult; `correct` replaces a result already in.
    Director { correct: bool },
    /// The pairing's game ended.
    Game,
    /// The player withdrew: a forfeit of a game paired and not played.
    Withdrawal,
    /// The players' reports: both agreeing, or one where one suffices.
    Reports,
}
