//! A director's calls that act on games before they change the tournament: RecordResult (a
//! pairing's game in play ended with the director's result) and WithdrawPlayer (each of the
//! player's games in play a forfeit), each reading the tournament once (a race lost to another
//! replica reads it afresh); and the one way the layer ends a game: the director's action on its
//! session through the host here, or at its owner through [`Owners`].

use super::change::{Read, Retry, derived_request_id};
use super::record::{Record, Source, game_result};
use crate::Events;
use crate::error::EventsError;
use dawgref_engine::game::{DirectorAction, ResultKind};
use dawgref_host::{DirectorOp, Route};
use dawgref_tournament::{GameResult, Pairing, PlayerId};
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
}

/// A director's result by hand, found in the tournament: division, round and line indices.
pub type HandResult = (usize, usize, usize, GameResult);

/// Who a director's call is by (a key's name; None: the root director), for the games' events.
pub type By<'a> = Option<&'a str>;

impl Events {
    /// RecordResult: the result `parse` finds in the tournament entered in its line (`correct`:
    /// replacing the one in), the line's game in play ended with it first, durably, once per
    /// request id; answered with `answer` of the division. A game over is final: its own result
    /// is the pairing's until a director corrects it, and a correction is the tournament's alone.
    #[allow(clippy::too_many_arguments)]
    pub async fn record_result<R: prost::Message + Default>(
        &self,
        slug: &str,
        request_id: &str,
        correct: bool,
        by: By<'_>,
        owners: &impl Owners,
        parse: impl Fn(&Record) -> Result<HandResult, EventsError>,
        answer: impl Fn(&Record, usize) -> R,
    ) -> Result<R, EventsError> {
        let retry: Retry = ("RecordResult", request_id);
        let held = self.hold(slug).await;
        let (Read { mut record, version }, kept) = self.kept::<R>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let (d, k, i, result) = parse(&record)?;
        record.by = super::event::actor(by);
        // Entered first, on the tournament as read: a result the division refuses ends no game.
        record.enter_result(d, k, i, result, Source::Director { correct })?;
        let game_id = record.divisions[d].game_id(k, i).to_string();
        let over = !game_id.is_empty()
            && self.0.host.snapshot(&game_id).await.is_ok_and(|s| s.game().outcome().is_some());
        if over && !correct {
            return Err(EventsError::Precondition(format!(
                "round {}'s pairing {}: its game is over and its result enters from it (correct replaces it)",
                k + 1,
                i + 1
            )));
        }
        let _ending = (!game_id.is_empty() && !over).then(|| self.ending(&game_id));
        if !game_id.is_empty() && !over {
            let division = record.division_at(d).name().to_string();
            let rid = derived_request_id(slug, &["record", &division, &game_id, request_id]);
            let why = "the result the tournament's director entered";
            self.end_game(owners, &game_id, game_end(result, why), &rid, by).await?;
        }
        let first = answer(&record, d);
        self.once_from(&held, retry, Some((Read { record, version }, first)), |rec| {
            let (d, k, i, result) = parse(rec)?;
            rec.by = super::event::actor(by);
            // Read again after a race: the game's end, heard by its owner, may have entered this
            // very result meanwhile (the game ended with it). Then it is in, as asked.
            let in_already = matches!(rec.divisions[d].line(k, i), Some(Pairing::Game { result: Some(r), .. }) if *r == result);
            if correct || !in_already {
                rec.enter_result(d, k, i, result, Source::Director { correct })?;
            }
            Ok(answer(rec, d))
        })
        .await
    }

    /// WithdrawPlayer: player `number` (from 1) of `division` withdrawn, each of their games
    /// paired and not played a forfeit (a game that ended already counts as it ended; one in play
    /// ends as the forfeit the division enters), durably, once per request id.
    #[allow(clippy::too_many_arguments)]
    pub async fn withdraw<R: prost::Message + Default>(
        &self,
        slug: &str,
        division: &str,
        number: u32,
        request_id: &str,
        by: By<'_>,
        owners: &impl Owners,
        answer: impl Fn(&Record, usize) -> R,
    ) -> Result<R, EventsError> {
        let retry: Retry = ("WithdrawPlayer", request_id);
        let held = self.hold(slug).await;
        let (Read { record: rec, .. }, kept) = self.kept::<R>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let d = rec.division(division)?;
        rec.player(d, number)?;
        let mut ended = Vec::new();
        for (k, i) in rec.forfeits_of(d, number)? {
            let game_id = rec.divisions[d].game_id(k, i).to_string();
            let Ok(id) = uuid::Uuid::parse_str(&game_id) else { continue };
            let outcome = match self.0.host.snapshot(&game_id).await {
                Ok(snapshot) => snapshot.game().outcome().cloned(),
                Err(_) => None,
            };
            match outcome {
                Some(o) => ended.extend(game_result(&o).map(|result| (k, i, result))),
                None => {
                    let first = rec.divisions[d].line(k, i).and_then(|l| l.players().next());
                    let seat = usize::from(first != Some(PlayerId(number - 1)));
                    let end = ResultKind::Forfeit {
                        seat,
                        reason: "the player withdrew from the tournament".into(),
                    };
                    let rid = derived_request_id(slug, &["withdraw", division, &id.to_string(), request_id]);
                    self.end_game(owners, &game_id, end, &rid, by).await?;
                }
            }
        }
        self.once(&held, retry, |rec| {
            rec.by = super::event::actor(by);
            let d = rec.division(division)?;
            rec.player(d, number)?;
            for &(k, i, result) in &ended {
                if !rec.divisions[d].line(k, i).is_some_and(Pairing::is_done) {
                    rec.enter_result(d, k, i, result, Source::Game)?;
                }
            }
            rec.withdraw(d, number)?;
            let name = rec.name(d, number).to_string();
            rec.event("player_withdrawn", division, 0, 0, format!("{name} withdraws")).players = vec![number];
            Ok(answer(rec, d))
        })
        .await
    }

    /// End a tournament's game as its director's action: on its session here (an event and a
    /// line in its GCG, once per `request_id` when not empty), or at its owner. A game that
    /// ended already gets the director's end after its own, as SetResult gives.
    pub async fn end_game(
        &self,
        owners: &impl Owners,
        game_id: &str,
        result: ResultKind,
        request_id: &str,
        by: By<'_>,
    ) -> Result<(), EventsError> {
        let request_id = (!request_id.is_empty()).then(|| request_id.to_string());
        let host = &self.0.host;
        match host.route(game_id, false).await? {
            Route::Local(session) => {
                tracing::info!(game = game_id, director = by.unwrap_or("root"), action = ?result, "director's action");
                let op = DirectorOp::Act(DirectorAction::SetResult(result));
                let by = by.map(str::to_string);
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

/// The end a tournament's game is given for its pairing's `result`.
fn game_end(result: GameResult, reason: &str) -> ResultKind {
    match result {
        GameResult::Scores([a, b]) => ResultKind::Adjudicated { scores: vec![a, b], reason: reason.into() },
        GameResult::Forfeit { winner } => ResultKind::Forfeit { seat: 1 - winner, reason: reason.into() },
    }
}
