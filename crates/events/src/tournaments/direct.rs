//! A director's calls that act on games before they change the tournament: RecordResult (a
//! pairing's game in play ended with the director's result) and WithdrawPlayer (each of the
//! player's games in play a forfeit), each reading the tournament once (a race lost to another
//! replica reads it afresh); and the one way the layer ends a game: the director's action on its
//! session through the host here, or at its owner through [`Owners`].

use super::change::{Answer, Read, Retry, derived_request_id};
use super::command::Outcome;
use super::event::{Actor, EventKind};
use super::record::{DivisionId, Record, Source, game_result};
use crate::Events;
use crate::error::{EventsError, Invalid};
use dawgref_engine::game::{DirectorAction, ResultKind};
use dawgref_host::{DirectorOp, Route};
use dawgref_tournament::{GameResult, Pairing, PairingId, PlayerId, RoundId};
use std::future::Future;

/// How the layer reaches a game held by another replica: the services' forwarding implements
/// it, so that the routing stays theirs and the layer never knows it is gRPC. The caller's
/// credentials go with the call, and the owner checks them again.
pub trait Owners: Sync {
    /// End game `game_id`, held by the replica at `owner`, as a director's `result` (once per
    /// `request_id`, when given).
    fn end_game(
        &self,
        owner: &str,
        game_id: &str,
        result: &ResultKind,
        request_id: Option<&str>,
    ) -> impl Future<Output = Result<(), EventsError>> + Send;

    /// Give seat `seat` of game `game_id`, held by the replica at `owner`, the person's new
    /// `token` (their old one stops working); a game over keeps its seats' tokens.
    fn new_token(
        &self,
        owner: &str,
        game_id: &str,
        seat: usize,
        token: &str,
    ) -> impl Future<Output = Result<(), EventsError>> + Send;
}

/// RecordResult as a director gives it: a pairing by division, round and pairing number (each
/// from 1), its result, and whether it replaces the one in.
#[derive(Clone, Debug)]
pub struct HandResult {
    pub division: String,
    pub round: u32,
    pub pairing: u32,
    pub result: Hand,
    pub correct: bool,
}

/// A pairing's result by hand: the scores as the table saw them (first player's first), or which
/// of its two players forfeited, by number (from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hand {
    Scores([i32; 2]),
    ForfeitedBy(u32),
}

impl HandResult {
    /// The pairing's division, round and line indices and its result, checked against the
    /// record: INVALID_ARGUMENT naming the field for what is not there or out of bounds (a score
    /// past the bound any adjudicated score has, a forfeit by a player not in the pairing).
    fn find(&self, rec: &Record) -> Result<(DivisionId, RoundId, PairingId, GameResult), EventsError> {
        let d = rec.division(&self.division)?;
        let k = rec.round(d, self.round)?;
        let (round, pairing) = (self.round, self.pairing);
        let entry = &rec.divisions[d];
        // Pairing 0 is none: u32::MAX, past any round's.
        let i = PairingId(pairing.wrapping_sub(1));
        let line = entry.line(k, i).ok_or_else(|| -> EventsError {
            if entry.division.rounds()[k.index()].pairings.is_some() {
                Invalid::NoSuchPairing { round, pairing, pairings: entry.lines(k).len() }.into()
            } else {
                dawgref_tournament::Error::NotPaired { round: round as usize }.into()
            }
        })?;
        // The line's players by number (from 1): `second` 0 for a bye.
        let mut players = line.players().map(|p| p.0 + 1);
        let (first, second) = (players.next().unwrap_or(0), players.next().unwrap_or(0));
        let result = match self.result {
            Hand::Scores([0, 0]) => return Err(Invalid::NoScores.into()),
            Hand::Scores(scores) => {
                if let Some(why) = scores.iter().find_map(|&s| dawgref_engine::game::score_out_of_bounds(s)) {
                    return Err(Invalid::Score(why).into());
                }
                GameResult::Scores(scores)
            }
            Hand::ForfeitedBy(n) if n == first && second != 0 => GameResult::forfeit_by(0),
            Hand::ForfeitedBy(n) if n == second && n != 0 => GameResult::forfeit_by(1),
            Hand::ForfeitedBy(n) => {
                return Err(Invalid::NotInPairing { player: n, pairing, first, second }.into());
            }
        };
        Ok((d, k, i, result))
    }
}

impl Events {
    /// RecordResult: `hand`'s result entered in its pairing (`correct`: replacing the one in) by
    /// `actor`, the pairing's game in play ended with it first, durably, once per request id;
    /// answered with `answer` of the division. A game over is final: its own result is the
    /// pairing's until a director corrects it, and a correction is the tournament's alone. The
    /// game's end, heard as any game's end is, finds its pairing's result in and enters nothing.
    pub async fn record_result<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        hand: HandResult,
        owners: &impl Owners,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("RecordResult")?;
        let retry = Retry { method: "RecordResult", request_id };
        let correct = hand.correct;
        let held = self.hold(slug).await;
        let (Read { mut record, version }, kept) = self.kept::<A>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let (d, k, i, result) = hand.find(&record)?;
        record.by = actor.name().to_string();
        // Entered first, on the tournament as read: a result the division refuses ends no game.
        record.enter_result(d, k, i, result, Source::Director { correct })?;
        let game_id = record.divisions[d].game_id(k, i).map(str::to_string);
        let over = match &game_id {
            Some(id) => self.0.host.snapshot(id).await.is_ok_and(|s| s.game().outcome().is_some()),
            None => false,
        };
        if over && !correct {
            return Err(EventsError::GameOver { round: k.number(), pairing: i.number() });
        }
        if let Some(game_id) = game_id.filter(|_| !over) {
            let division = record.division_at(d).name().to_string();
            let rid = derived_request_id(slug, &["record", &division, &game_id, request_id]);
            let why = "the result the tournament's director entered";
            self.end_game(owners, &game_id, game_end(result, why), &rid, actor).await?;
        }
        let first = answer(&record, Outcome::Division { division: d });
        self.once_from(&held, retry, Some((Read { record, version }, first)), |rec| {
            let (d, k, i, result) = hand.find(rec)?;
            rec.by = actor.name().to_string();
            // Read again after a race: the game's end, heard by its owner, may have entered this
            // very result meanwhile (the game ended with it). Then it is in, as asked.
            let in_already = matches!(rec.divisions[d].line(k, i), Some(Pairing::Game { result: Some(r), .. }) if *r == result);
            if correct || !in_already {
                rec.enter_result(d, k, i, result, Source::Director { correct })?;
            }
            Ok(answer(rec, Outcome::Division { division: d }))
        })
        .await
    }

    /// WithdrawPlayer: player `number` (from 1) of `division` withdrawn by `actor`, each of their
    /// games paired and not played a forfeit (a game that ended already counts as it ended; one in
    /// play ends as the forfeit the division enters), durably, once per request id.
    #[allow(clippy::too_many_arguments)]
    pub async fn withdraw<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        division: &str,
        number: u32,
        owners: &impl Owners,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("WithdrawPlayer")?;
        let retry = Retry { method: "WithdrawPlayer", request_id };
        let held = self.hold(slug).await;
        let (Read { record: rec, .. }, kept) = self.kept::<A>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let d = rec.division(division)?;
        rec.player(d, number)?;
        let mut ended = Vec::new();
        for (k, i) in rec.forfeits_of(d, number)? {
            let Some(game_id) = rec.divisions[d].game_id(k, i).map(str::to_string) else { continue };
            let Ok(id) = uuid::Uuid::parse_str(&game_id) else { continue };
            let outcome = match self.0.host.snapshot(&game_id).await {
                Ok(snapshot) => snapshot.game().outcome().cloned(),
                Err(_) => None,
            };
            match outcome {
                Some(o) => ended.extend(game_result(&o).map(|result| (k, i, result))),
                None => {
                    // The withdrawn player's seat in the game: theirs is the forfeit.
                    let line = rec.divisions[d].line(k, i);
                    let seat = line.and_then(|l| l.players().position(|p| p == PlayerId(number - 1)));
                    let seat = seat.unwrap_or_default();
                    let end = ResultKind::Forfeit {
                        seat,
                        reason: "the player withdrew from the tournament".into(),
                    };
                    let rid = derived_request_id(slug, &["withdraw", division, &id.to_string(), request_id]);
                    self.end_game(owners, &game_id, end, &rid, actor).await?;
                }
            }
        }
        self.once(&held, retry, |rec| {
            rec.by = actor.name().to_string();
            let d = rec.division(division)?;
            rec.player(d, number)?;
            for &(k, i, result) in &ended {
                if !rec.divisions[d].line(k, i).is_some_and(Pairing::is_done) {
                    rec.enter_result(d, k, i, result, Source::Game)?;
                }
            }
            rec.withdraw(d, number)?;
            let name = rec.player_name(d, number).to_string();
            let detail = format!("{name} withdraws");
            rec.event(EventKind::PlayerWithdrawn, division, 0, 0, detail).players = vec![number];
            Ok(answer(rec, Outcome::Division { division: d }))
        })
        .await
    }

    /// End a tournament's game as its director's action: on its session here (an event and a
    /// line in its GCG, once per `request_id` when not empty), or at its owner. A game that
    /// ended already gets the director's end after its own, as SetResult gives.
    pub(crate) async fn end_game(
        &self,
        owners: &impl Owners,
        game_id: &str,
        result: ResultKind,
        request_id: &str,
        actor: &Actor,
    ) -> Result<(), EventsError> {
        let request_id = (!request_id.is_empty()).then(|| request_id.to_string());
        let host = &self.0.host;
        match host.route(game_id, false).await? {
            Route::Local(session) => {
                tracing::info!(game = game_id, director = %actor.name(), action = ?result, "director's action");
                let op = DirectorOp::Act(DirectorAction::SetResult(result));
                let by = actor.key().map(str::to_string);
                host.on_session(game_id, session, |s| {
                    let (op, by, request_id) = (op.clone(), by.clone(), request_id.clone());
                    async move { s.direct(op, by, request_id).await }
                })
                .await?;
                Ok(())
            }
            Route::Remote(owner) => owners.end_game(&owner, game_id, &result, request_id.as_deref()).await,
        }
    }
}

/// The end a tournament's game is given for its pairing's `result`: the forfeiting seat's
/// forfeit, or the scores adjudicated.
fn game_end(result: GameResult, reason: &str) -> ResultKind {
    match (result, result.forfeiter()) {
        (GameResult::Scores([a, b]), _) => {
            ResultKind::Adjudicated { scores: vec![a, b], reason: reason.into() }
        }
        (GameResult::Forfeit { .. }, seat) => {
            ResultKind::Forfeit { seat: seat.unwrap_or_default(), reason: reason.into() }
        }
    }
}
