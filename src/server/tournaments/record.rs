//! A tournament as kept: the public messages that describe it (its divisions' players, rounds and
//! pairings), each player's token hash and its seed, encoded whole as one store record (its
//! events and kept answers are rows of their own, carried here only until they are written);
//! and the pure [`Division`] of `dawgref-tournament` that a division's messages make, so that
//! pairing, results and standings are decided there and written back here.

use super::super::errors;
use crate::proto::v1 as pb;
use dawgref_tournament::{Controls, Division, GameResult, Method, Pairing, Player, PlayerId};
use tonic::Status;

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Record {
    /// Divisions without standings (computed when shown), `you` unset.
    #[prost(message, optional, tag = "1")]
    pub tournament: Option<pb::Tournament>,
    /// Per division, per player: the token's SHA-256 (empty for a bot).
    #[prost(message, repeated, tag = "2")]
    pub hashes: Vec<Hashes>,
    #[prost(uint64, tag = "3")]
    pub seed: u64,
    /// Events not yet written: those of this change (taken out as rows of their own when it is
    /// written), or every event of a record written before events had rows.
    #[prost(message, repeated, tag = "4")]
    pub events: Vec<pb::WatchTournamentResponse>,
    /// Answers by request id (the method's name and the id) not yet written, likewise.
    #[prost(message, repeated, tag = "5")]
    pub answers: Vec<Answer>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Answer {
    #[prost(string, tag = "1")]
    pub key: String,
    #[prost(bytes = "vec", tag = "2")]
    pub body: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Hashes {
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub players: Vec<Vec<u8>>,
}

impl Record {
    /// The tournament: every record read holds one (`tournaments::decode` refuses one that does
    /// not), and a new one is made with it.
    pub fn t(&self) -> &pb::Tournament {
        self.tournament.as_ref().expect("a record holds its tournament")
    }

    pub fn t_mut(&mut self) -> &mut pb::Tournament {
        self.tournament.get_or_insert_with(Default::default)
    }

    /// A division's index by name: INVALID_ARGUMENT naming the divisions there are.
    pub fn division(&self, name: &str) -> Result<usize, Status> {
        let divisions = &self.t().divisions;
        divisions.iter().position(|d| d.name == name).ok_or_else(|| {
            let names: Vec<&str> = divisions.iter().map(|d| d.name.as_str()).collect();
            errors::bad_field(
                "division",
                format!("{:?}: no such division (there are {})", crate::text::clip(name), names.join(", ")),
            )
        })
    }

    /// A round's index (from a 1-based number): INVALID_ARGUMENT when it is not there.
    pub fn round(&self, d: usize, number: u32) -> Result<usize, Status> {
        let rounds = self.t().divisions[d].rounds.len();
        match number as usize {
            n if (1..=rounds).contains(&n) => Ok(n - 1),
            n => Err(errors::bad_field("round", format!("{n}: the division has rounds 1 to {rounds}"))),
        }
    }

    /// A player's number (from 1) in division `d`: INVALID_ARGUMENT when it is not there.
    pub fn player(&self, d: usize, number: u32) -> Result<(), Status> {
        let players = self.t().divisions[d].players.len();
        if (1..=players).contains(&(number as usize)) {
            Ok(())
        } else {
            Err(errors::bad_field("player", format!("{number}: the division has players 1 to {players}")))
        }
    }

    /// The pure division `d` makes, to pair, record and rank.
    pub fn pure(&self, d: usize) -> Division {
        let div = &self.t().divisions[d];
        let players = div
            .players
            .iter()
            .map(|p| Player {
                name: p.name.clone(),
                rating: p.rating,
                withdrawn: p.withdrawn,
                bot: p
                    .bot
                    .and_then(|l| super::super::convert::bot_from(l).ok())
                    .map(|l| l.name().to_string()),
            })
            .collect();
        let methods: Vec<Method> = div.rounds.iter().map(|r| method(r.spec.as_ref())).collect();
        let mut division = Division::new(div.name.clone(), players, &methods, controls(div, self.seed, d));
        for (k, round) in div.rounds.iter().enumerate() {
            if round.paired {
                division.rounds[k].pairings = Some(round.pairings.iter().map(pure_pairing).collect());
            }
        }
        division
    }

    /// Write a round's pairings from the pure division back, keeping each line's game.
    pub fn write_round(&mut self, d: usize, k: usize, division: &Division) {
        let lines = division.rounds[k].pairings.clone().unwrap_or_default();
        let round = &mut self.t_mut().divisions[d].rounds[k];
        let games: Vec<String> = round.pairings.iter().map(|p| p.game_id.clone()).collect();
        round.paired = division.rounds[k].pairings.is_some();
        round.pairings = lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let mut p = wire_pairing(i, line);
                p.game_id = games.get(i).cloned().unwrap_or_default();
                p
            })
            .collect();
    }

    /// Enter a result for round `k`'s line `i` of division `d` (with `correct`, replacing the
    /// one in): the one way a result enters a tournament, whoever enters it (a game's end, a
    /// director's RecordResult, a withdrawal's forfeit). The caller has made the line's game, if
    /// it has one, end with this result first: the game and the pairing say the same.
    pub fn enter_result(
        &mut self,
        d: usize,
        k: usize,
        i: usize,
        result: GameResult,
        correct: bool,
        why: &str,
    ) -> Result<(), Status> {
        let mut pure = self.pure(d);
        let was_done = self.t().divisions[d].rounds[k].pairings.get(i).is_some_and(|p| p.done);
        pure.record(k, i, result, correct).map_err(pairing_error)?;
        self.write_round(d, k, &pure);
        self.noted_result(d, k, i, was_done, why);
        Ok(())
    }

    /// Whether [`Record::enter_result`] would take this result, asked before a game is ended
    /// with it (the pure division alone, the record untouched).
    pub fn check_result(
        &self,
        d: usize,
        k: usize,
        i: usize,
        result: GameResult,
        correct: bool,
    ) -> Result<(), Status> {
        self.pure(d).record(k, i, result, correct).map_err(pairing_error)
    }

    /// The forfeits [`Record::withdraw`] would make, as (round, line) indices, the record
    /// untouched.
    pub fn forfeits_of(&self, d: usize, number: u32) -> Result<Vec<(usize, usize)>, Status> {
        self.pure(d).withdraw(PlayerId(number - 1)).map_err(|e| errors::bad_field("player", e.to_string()))
    }

    /// The event of a result entered in round `k`'s line `i`.
    fn noted_result(&mut self, d: usize, k: usize, i: usize, corrected: bool, why: &str) {
        let kind = if corrected { "result_corrected" } else { "result" };
        let mut detail = detail(self, d, &self.t().divisions[d].rounds[k].pairings[i]);
        if !why.is_empty() {
            detail = format!("{detail} ({why})");
        }
        let division = self.t().divisions[d].name.clone();
        self.event(kind, &division, k as u32 + 1, i as u32 + 1, detail);
    }

    /// Withdraw player `number` (from 1) of division `d`: paired no more, and each of their
    /// games paired and not played a forfeit, entered as [`Record::enter_result`] enters one.
    /// The forfeits made, as (round, line) indices.
    pub fn withdraw(&mut self, d: usize, number: u32) -> Result<Vec<(usize, usize)>, Status> {
        let mut pure = self.pure(d);
        let forfeits =
            pure.withdraw(PlayerId(number - 1)).map_err(|e| errors::bad_field("player", e.to_string()))?;
        self.t_mut().divisions[d].players[number as usize - 1].withdrawn = true;
        for &(k, i) in &forfeits {
            self.write_round(d, k, &pure);
            self.noted_result(d, k, i, false, "withdrawn");
        }
        Ok(forfeits)
    }

    /// Note an event (numbered in order), to be written with this change.
    pub fn event(&mut self, kind: &str, division: &str, round: u32, pairing: u32, detail: String) {
        let number = self.t().events;
        self.events.push(pb::WatchTournamentResponse {
            number,
            kind: kind.into(),
            division: division.into(),
            round,
            pairing,
            detail,
            unix_ms: crate::host::unix_ms(),
        });
        self.t_mut().events = number + 1;
    }

    /// The answer a request key was given, if this record holds it unwritten.
    pub fn unwritten_answer(&self, key: &str) -> Option<&[u8]> {
        self.answers.iter().rev().find(|a| a.key == key).map(|a| a.body.as_slice())
    }

    /// Keep an answer for its request id's retries (written with this change).
    pub fn remember(&mut self, key: String, body: Vec<u8>) {
        self.answers.push(Answer { key, body });
    }

    /// Division `d`'s bye spread.
    pub fn bye_spread(&self, d: usize) -> i32 {
        let unset = Controls::default().bye_spread;
        self.t().divisions[d].controls.as_ref().and_then(|c| c.bye_spread).unwrap_or(unset)
    }

    /// A player's name by division and 1-based number, for event details.
    pub fn name(&self, d: usize, number: u32) -> &str {
        let player = (number as usize).checked_sub(1).and_then(|i| self.t().divisions[d].players.get(i));
        player.map_or("?", |p| p.name.as_str())
    }
}

pub(super) fn method(spec: Option<&pb::RoundSpec>) -> Method {
    let spec = spec.cloned().unwrap_or_default();
    match pb::PairingMethod::try_from(spec.method).unwrap_or(pb::PairingMethod::Unspecified) {
        pb::PairingMethod::Unspecified | pb::PairingMethod::Swiss => Method::Swiss,
        pb::PairingMethod::RoundRobin => Method::RoundRobin,
        pb::PairingMethod::KingOfTheHill => Method::KingOfTheHill,
        pb::PairingMethod::Factor => Method::Factor(spec.factor),
        pb::PairingMethod::InitialFontes => Method::InitialFontes(spec.fontes_rounds),
        pb::PairingMethod::Random => Method::Random,
        pb::PairingMethod::Manual => Method::Manual,
    }
}

/// A division's controls: the division's own seed drawn from the tournament's.
fn controls(div: &pb::TournamentDivision, seed: u64, d: usize) -> Controls {
    let c = div.controls.unwrap_or_default();
    // Unset spreads are the crate's defaults (North American play).
    let unset = Controls::default();
    Controls {
        bye_spread: c.bye_spread.unwrap_or(unset.bye_spread),
        forfeit_spread: c.forfeit_spread.unwrap_or(unset.forfeit_spread),
        spread_cap: c.spread_cap,
        gibson_spread: c.gibsonize.then_some(c.gibson_spread),
        min_placement: c.min_placement.max(1),
        seed: seed ^ (d as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    }
}

fn pure_pairing(p: &pb::TournamentPairing) -> Pairing {
    let id = |n: u32| PlayerId(n.saturating_sub(1));
    if p.second == 0 {
        return Pairing::Bye { player: id(p.first), spread: p.bye_spread };
    }
    let result = p.done.then(|| match p.forfeited_by {
        0 => GameResult::Scores([
            p.scores.first().copied().unwrap_or(0),
            p.scores.get(1).copied().unwrap_or(0),
        ]),
        absent => GameResult::Forfeit { winner: usize::from(absent == p.first) },
    });
    Pairing::Game { first: id(p.first), second: id(p.second), result }
}

fn wire_pairing(i: usize, line: &Pairing) -> pb::TournamentPairing {
    let number = i as u32 + 1;
    match *line {
        Pairing::Bye { player, spread } => pb::TournamentPairing {
            number,
            first: player.0 + 1,
            done: true,
            bye_spread: spread,
            ..Default::default()
        },
        Pairing::Game { first, second, result } => {
            let (first, second) = (first.0 + 1, second.0 + 1);
            let mut p =
                pb::TournamentPairing { number, first, second, done: result.is_some(), ..Default::default() };
            match result {
                Some(GameResult::Scores(s)) => p.scores = s.to_vec(),
                Some(GameResult::Forfeit { winner }) => {
                    p.forfeited_by = if winner == 0 { second } else { first }
                }
                None => {}
            }
            p
        }
    }
}

/// A pairing's result for people: "Ann 412 – Bo 388", "Bo forfeits", "Ann: a bye (+50)".
fn detail(rec: &Record, d: usize, p: &pb::TournamentPairing) -> String {
    let (a, b) = (rec.name(d, p.first), if p.second == 0 { "" } else { rec.name(d, p.second) });
    match (p.second, p.forfeited_by, p.scores.as_slice()) {
        (0, _, _) => format!("{a}: a bye ({:+})", p.bye_spread),
        (_, 0, [x, y]) => format!("{a} {x} – {b} {y}"),
        (_, n, _) if n == p.first => format!("{a} forfeits to {b}"),
        (_, n, _) if n != 0 => format!("{b} forfeits to {a}"),
        _ => format!("{a} – {b}"),
    }
}

/// The standings of a division as the wire shows them.
pub(super) fn standings(division: &Division) -> Vec<pb::DivisionStanding> {
    let s = dawgref_tournament::Standings::of(division);
    s.ranked
        .iter()
        .enumerate()
        .map(|(rank, &p)| {
            let r = s.record(p);
            pb::DivisionStanding {
                rank: rank as u32 + 1,
                player: p.0 + 1,
                wins: r.wins(),
                losses: r.losses,
                spread: r.spread,
                byes: r.byes,
            }
        })
        .collect()
}

/// The result a finished game enters: a director's forfeit as a forfeit; else its scores,
/// unless its winner is not ahead (a resignation, a flag, a lost challenge): then a forfeit by
/// the loser.
/// None for a game with no winner to name (voided, or more than two seats).
pub(super) fn game_result(outcome: &crate::game::Outcome) -> Option<GameResult> {
    use crate::game::EndReason;
    if outcome.scores.len() != 2 || outcome.reason == EndReason::Voided {
        return None;
    }
    // A director's forfeit is a forfeit whatever the scores stood at.
    if let EndReason::Forfeit(seat) = outcome.reason
        && seat < 2
    {
        return Some(GameResult::Forfeit { winner: 1 - seat });
    }
    let (a, b) = (outcome.scores[0], outcome.scores[1]);
    match outcome.winners.as_slice() {
        [0, 1] if a == b => Some(GameResult::Scores([a, b])),
        [w] if (*w == 0 && a > b) || (*w == 1 && b > a) => Some(GameResult::Scores([a, b])),
        [w] => Some(GameResult::Forfeit { winner: *w }),
        _ => None,
    }
}

/// A change the tournament's rules refuse: INVALID_ARGUMENT for what is not there, else
/// FAILED_PRECONDITION naming what stands in the way.
pub(super) fn pairing_error(e: dawgref_tournament::Error) -> Status {
    use dawgref_tournament::Error as E;
    match e {
        E::NoSuchRound { .. } => errors::bad_field("round", e.to_string()),
        E::NoSuchPlayer { .. }
        | E::PairedTwice { .. }
        | E::MeetsThemself { .. }
        | E::Withdrawn { .. }
        | E::Unpaired { .. } => errors::bad_field("pairings", e.to_string()),
        E::NoSuchPairing { .. } => errors::bad_field("pairing", e.to_string()),
        E::NoSuchSeat { .. } => errors::bad_field("forfeited_by", e.to_string()),
        _ => errors::precondition(e.to_string()),
    }
}
