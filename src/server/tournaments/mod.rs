//! TournamentsService: tournaments kept in the store as `dawgref-tournament`'s own divisions (one
//! record each, written against the version read, so replicas take turns; `record`), decided by
//! that crate (pairings, results, standings, TSH), shown as the wire's messages made from them
//! once per answer (`view`), their games made by StartRound with each seat bound to its player's
//! token, and their results entered as the games end (`results`).

pub(crate) mod cache;
mod change;
mod create;
mod held;
mod legacy;
mod record;
pub(crate) mod result_times;
mod results;
mod start;
mod stored;
mod view;

use super::errors;
use super::state::AppState;
use crate::proto::v1 as pb;
use change::{Retry, change, derived_request_id, hold, kept, load, once};
use dawgref_tournament::GameResult;
use record::{Record, pairing_error};
use std::pin::Pin;
use std::sync::Arc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

pub(crate) use results::follow_results;

/// The largest request the service reads: ImportTsh's `.t` file of up to 1 MiB, and room for
/// its other fields.
pub(crate) const MAX_REQUEST_BYTES: usize = create::MAX_TSH_BYTES + 64 * 1024;

pub struct TournamentsService {
    pub(crate) state: Arc<AppState>,
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::WatchTournamentResponse, Status>> + Send>>;

impl TournamentsService {
    /// Whether the caller directs the tournament (these calls need no token: anyone else, a
    /// player's token or none, is answered as a spectator).
    async fn directs(&self, metadata: &tonic::metadata::MetadataMap, slug: &str) -> Result<bool, Status> {
        if super::auth::bearer(metadata)?.is_none() {
            return Ok(false);
        }
        Ok(self.director(metadata, slug).await.is_ok())
    }

    /// The director a call needs: the root, or a key whose labels are the tournament's.
    async fn director(&self, metadata: &tonic::metadata::MetadataMap, slug: &str) -> Result<(), Status> {
        let director = self.state.identity.director(metadata).await?;
        director.check_covers(&[("tournament".to_string(), slug.to_string())]).map_err(errors::host)
    }

    /// A change by a director, made durable before it is answered, once per request id: a
    /// retry (the same method and `request_id`) answers the first answer and changes nothing.
    async fn directed<R: prost::Message + Default>(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        slug: &str,
        retry: Retry<'_>,
        f: impl FnMut(&mut Record) -> Result<R, Status>,
    ) -> Result<R, Status> {
        self.director(metadata, slug).await?;
        let held = hold(&self.state, slug).await;
        once(&self.state, &held, retry, f).await
    }
}

/// Division `division` of tournament `slug` as spectators see it now: its standings, once the
/// result of `game` is in them (None: not yet, or no such tournament or division).
pub(crate) async fn standings_with(
    state: &AppState,
    slug: &str,
    division: &str,
    game: &str,
) -> Result<Option<Vec<pb::DivisionStanding>>, Status> {
    let record = results::reconcile(state, slug).await?;
    let held = held::spectators(state, record, None).await?;
    let Ok(d) = held.division(division) else { return Ok(None) };
    let view = view::division(&held, d);
    let done = view.rounds.iter().flat_map(|r| &r.pairings).any(|p| p.done && p.game_id == game);
    Ok(done.then_some(view.standings))
}

#[tonic::async_trait]
impl pb::tournaments_service_server::TournamentsService for TournamentsService {
    async fn create_tournament(
        &self,
        request: Request<pb::CreateTournamentRequest>,
    ) -> Result<Response<pb::CreateTournamentResponse>, Status> {
        create::create(self, request).await.map(Response::new)
    }

    async fn get_tournament(
        &self,
        request: Request<pb::GetTournamentRequest>,
    ) -> Result<Response<pb::GetTournamentResponse>, Status> {
        let slug = request.get_ref().slug.clone();
        let record = results::reconcile(&self.state, &slug).await?;
        let (you, director) = match super::auth::bearer(request.metadata())? {
            None => (None, false),
            Some(token) => match create::player_of(&record, &token) {
                Some(seat) => (Some(seat), false),
                None => {
                    // Not a player's: a director's, or nobody's (never silently a watcher).
                    self.director(request.metadata(), &slug).await.map_err(|_| {
                        errors::unauthenticated(
                            "the token is no player's of this tournament and no director's",
                        )
                    })?;
                    (None, true)
                }
            },
        };
        // A director sees it now; anyone else as a broadcast holds its games back.
        let record =
            if director { record } else { held::spectators(&self.state, record, you.as_ref()).await? };
        Ok(Response::new(pb::GetTournamentResponse { tournament: Some(view::tournament(&record, you)) }))
    }

    async fn list_tournaments(
        &self,
        _request: Request<pb::ListTournamentsRequest>,
    ) -> Result<Response<pb::ListTournamentsResponse>, Status> {
        let all = self.state.host.tournament_records().all().await.map_err(errors::host)?;
        let mut tournaments = Vec::with_capacity(all.len());
        for stored in all {
            let record = stored::decode(&stored)?;
            tournaments.push(pb::TournamentSummary {
                divisions: record.divisions.iter().map(|d| d.division.name().to_string()).collect(),
                slug: record.slug,
                name: record.name,
            });
        }
        Ok(Response::new(pb::ListTournamentsResponse { tournaments }))
    }

    async fn add_player(
        &self,
        request: Request<pb::AddPlayerRequest>,
    ) -> Result<Response<pb::AddPlayerResponse>, Status> {
        let r = request.get_ref().clone();
        let spec = r.player.clone().ok_or_else(|| errors::bad_field("player", "a player is needed"))?;
        create::check_player("player", &spec)?;
        let (token, hash) = create::token_for(&spec)?;
        // No retry id: a player's token is shown once, and never kept to be answered again.
        let answer = self
            .directed(request.metadata(), &r.slug, ("AddPlayer", ""), |rec| {
                let d = rec.division(&r.division)?;
                let number = rec.division_at(d).players().len() as u32 + 1;
                // The division's own rules for a newcomer (the most players, a name a `.t` file
                // can hold).
                let entry = &mut rec.divisions[d];
                let id = entry.division.add_player(create::player(&spec)).map_err(|e| match e {
                    dawgref_tournament::Error::Full => create::players_refused("player", number as usize),
                    other => errors::bad_field("player.name", other.to_string()),
                })?;
                entry.tokens.push(hash);
                let player = view::player(number, &entry.division.players()[id.index()]);
                rec.event(
                    "player_added",
                    &r.division,
                    0,
                    0,
                    format!("{} joins as player {number}", spec.name),
                );
                Ok(pb::AddPlayerResponse { player: Some(player), token: String::new() })
            })
            .await?;
        Ok(Response::new(pb::AddPlayerResponse { token: token.unwrap_or_default(), ..answer }))
    }

    async fn withdraw_player(
        &self,
        request: Request<pb::WithdrawPlayerRequest>,
    ) -> Result<Response<pb::WithdrawPlayerResponse>, Status> {
        let r = request.get_ref().clone();
        self.director(request.metadata(), &r.slug).await?;
        let retry = ("WithdrawPlayer", r.request_id.as_str());
        let held = hold(&self.state, &r.slug).await;
        let (rec, kept) = kept(&self.state, &held, retry).await?;
        if let Some(answer) = kept {
            return answer.map(Response::new);
        }
        let d = rec.division(&r.division)?;
        rec.player(d, r.player)?;
        // Their games paired and not played: one that ended already counts as it ended; one in
        // play ends as the forfeit the division enters.
        let mut ended = Vec::new();
        for (k, i) in rec.forfeits_of(d, r.player)? {
            let game_id = rec.divisions[d].game_id(k, i).to_string();
            let Ok(id) = uuid::Uuid::parse_str(&game_id) else { continue };
            let outcome = match self.state.host.snapshot(&game_id).await {
                Ok(snapshot) => snapshot.game().outcome().cloned(),
                Err(_) => None,
            };
            match outcome {
                Some(o) => ended.extend(record::game_result(&o).map(|result| (k, i, result))),
                None => {
                    let first = rec.divisions[d].line(k, i).and_then(|l| l.players().next());
                    let seat = u32::from(first != Some(dawgref_tournament::PlayerId(r.player - 1)));
                    let end = pb::set_result_request::Result::Forfeit(seat);
                    let rid = derived_request_id(
                        &r.slug,
                        &["withdraw", &r.division, &id.to_string(), &r.request_id],
                    );
                    super::directors::end_tournament_game(
                        self.state.clone(),
                        request.metadata(),
                        &game_id,
                        end,
                        "the player withdrew from the tournament",
                        rid,
                    )
                    .await?;
                }
            }
        }
        let answer = once(&self.state, &held, retry, |rec| {
            let d = rec.division(&r.division)?;
            rec.player(d, r.player)?;
            for &(k, i, result) in &ended {
                if !rec.divisions[d].line(k, i).is_some_and(dawgref_tournament::Pairing::is_done) {
                    rec.enter_result(d, k, i, result, false, "")?;
                }
            }
            rec.withdraw(d, r.player)?;
            let name = rec.name(d, r.player).to_string();
            rec.event("player_withdrawn", &r.division, 0, 0, format!("{name} withdraws"));
            Ok(pb::WithdrawPlayerResponse { division: Some(view::division(rec, d)) })
        })
        .await?;
        Ok(Response::new(answer))
    }

    async fn pair_round(
        &self,
        request: Request<pb::PairRoundRequest>,
    ) -> Result<Response<pb::PairRoundResponse>, Status> {
        let r = request.get_ref().clone();
        self.director(request.metadata(), &r.slug).await?;
        results::reconcile(&self.state, &r.slug).await?;
        let held = hold(&self.state, &r.slug).await;
        let answer = once(&self.state, &held, ("PairRound", &r.request_id), |rec| {
            let d = rec.division(&r.division)?;
            let k = rec.round(d, r.round)?;
            rec.divisions[d].division.pair(k).map_err(pairing_error)?;
            rec.event("pairings_made", &r.division, r.round, 0, format!("round {} paired", r.round));
            Ok(pb::PairRoundResponse { round: Some(view::round(&rec.divisions[d], k)) })
        })
        .await?;
        Ok(Response::new(answer))
    }

    async fn set_pairings(
        &self,
        request: Request<pb::SetPairingsRequest>,
    ) -> Result<Response<pb::SetPairingsResponse>, Status> {
        let r = request.get_ref().clone();
        let answer = self
            .directed(request.metadata(), &r.slug, ("SetPairings", &r.request_id), |rec| {
                let d = rec.division(&r.division)?;
                let k = rec.round(d, r.round)?;
                if rec.divisions[d].started(k) {
                    return Err(errors::precondition(format!(
                        "round {} has started: its pairings stand",
                        r.round
                    )));
                }
                let players = rec.division_at(d).players().len() as u32;
                let id = |field: String, n: u32| {
                    if (1..=players).contains(&n) {
                        Ok(dawgref_tournament::PlayerId(n - 1))
                    } else {
                        Err(errors::bad_field(
                            &field,
                            format!("{n}: the division has players 1 to {players}"),
                        ))
                    }
                };
                let mut lines = Vec::with_capacity(r.pairings.len());
                for (i, p) in r.pairings.iter().enumerate() {
                    let first = id(format!("pairings[{i}].first"), p.first)?;
                    lines.push(match p.second {
                        0 => dawgref_tournament::Pairing::Bye {
                            player: first,
                            spread: rec.division_at(d).controls().bye_spread,
                        },
                        n => {
                            let second = id(format!("pairings[{i}].second"), n)?;
                            dawgref_tournament::Pairing::Game { first, second, result: None }
                        }
                    });
                }
                rec.divisions[d].division.set_pairings(k, lines).map_err(pairing_error)?;
                rec.event(
                    "pairings_made",
                    &r.division,
                    r.round,
                    0,
                    format!("round {} paired by the director", r.round),
                );
                Ok(pb::SetPairingsResponse { round: Some(view::round(&rec.divisions[d], k)) })
            })
            .await?;
        Ok(Response::new(answer))
    }

    async fn start_round(
        &self,
        request: Request<pb::StartRoundRequest>,
    ) -> Result<Response<pb::StartRoundResponse>, Status> {
        let r = request.get_ref().clone();
        self.director(request.metadata(), &r.slug).await?;
        start::start_round(&self.state, request.metadata(), &r).await.map(Response::new)
    }

    async fn record_result(
        &self,
        request: Request<pb::RecordResultRequest>,
    ) -> Result<Response<pb::RecordResultResponse>, Status> {
        let r = request.get_ref().clone();
        self.director(request.metadata(), &r.slug).await?;
        let retry = ("RecordResult", r.request_id.as_str());
        let held = hold(&self.state, &r.slug).await;
        let (rec, kept) = kept(&self.state, &held, retry).await?;
        if let Some(answer) = kept {
            return answer.map(Response::new);
        }
        let (d, k, i, result) = hand_result(&rec, &r)?;
        // Checked first: a result the division refuses ends no game.
        rec.check_result(d, k, i, result, r.correct)?;
        // A pairing's game in play ends with the director's result, so the two say the same. A
        // game over is final: its own result is the pairing's until a director corrects it, and
        // a correction is the tournament's alone.
        let game_id = rec.divisions[d].game_id(k, i).to_string();
        let over = !game_id.is_empty()
            && self.state.host.snapshot(&game_id).await.is_ok_and(|s| s.game().outcome().is_some());
        if over && !r.correct {
            return Err(errors::precondition(format!(
                "round {}'s pairing {}: its game is over and its result enters from it (correct replaces it)",
                r.round, r.pairing
            )));
        }
        if !game_id.is_empty() && !over {
            let end = match result {
                GameResult::Scores([a, b]) => {
                    pb::set_result_request::Result::Adjudicated(pb::Adjudicated { scores: vec![a, b] })
                }
                GameResult::Forfeit { winner } => pb::set_result_request::Result::Forfeit(1 - winner as u32),
            };
            let rid = derived_request_id(&r.slug, &["record", &r.division, &game_id, &r.request_id]);
            super::directors::end_tournament_game(
                self.state.clone(),
                request.metadata(),
                &game_id,
                end,
                "the result the tournament's director entered",
                rid,
            )
            .await?;
        }
        let answer = once(&self.state, &held, retry, |rec| {
            let (d, k, i, result) = hand_result(rec, &r)?;
            rec.enter_result(d, k, i, result, r.correct, "")?;
            Ok(pb::RecordResultResponse { division: Some(view::division(rec, d)) })
        })
        .await?;
        Ok(Response::new(answer))
    }

    type WatchTournamentStream = EventStream;

    async fn watch_tournament(
        &self,
        request: Request<pb::WatchTournamentRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let directed = self.directs(request.metadata(), &request.get_ref().slug).await?;
        let r = request.into_inner();
        results::watch(&self.state, r.slug, r.from_event, !directed).await.map(Response::new)
    }

    async fn export_tsh(
        &self,
        request: Request<pb::ExportTshRequest>,
    ) -> Result<Response<pb::ExportTshResponse>, Status> {
        let directed = self.directs(request.metadata(), &request.get_ref().slug).await?;
        let r = request.into_inner();
        let mut record = results::reconcile(&self.state, &r.slug).await?;
        if !directed {
            record = held::spectators(&self.state, record, None).await?;
        }
        let d = record.division(&r.division)?;
        Ok(Response::new(pb::ExportTshResponse {
            text: dawgref_tournament::tsh::export(record.division_at(d)),
        }))
    }

    async fn import_tsh(
        &self,
        request: Request<pb::ImportTshRequest>,
    ) -> Result<Response<pb::ImportTshResponse>, Status> {
        create::import_tsh(self, request).await.map(Response::new)
    }
}

/// RecordResult's division, round, line and result, checked against the record: INVALID_ARGUMENT
/// naming the field for what is not there or out of bounds.
fn hand_result(
    rec: &Record,
    r: &pb::RecordResultRequest,
) -> Result<(usize, usize, usize, GameResult), Status> {
    let d = rec.division(&r.division)?;
    let k = rec.round(d, r.round)?;
    let entry = &rec.divisions[d];
    let line = entry.line(k, (r.pairing as usize).wrapping_sub(1)).ok_or_else(|| {
        if entry.division.rounds()[k].pairings.is_some() {
            errors::bad_field(
                "pairing",
                format!("{}: round {} has pairings 1 to {}", r.pairing, r.round, entry.lines(k).len()),
            )
        } else {
            errors::precondition(format!("round {} is not paired yet", r.round))
        }
    })?;
    // The line's players by number (from 1): `second` 0 for a bye.
    let mut players = line.players().map(|p| p.0 + 1);
    let (first, second) = (players.next().unwrap_or(0), players.next().unwrap_or(0));
    let result = match r.result {
        Some(pb::record_result_request::Result::Scores(s)) => {
            let action = crate::game::DirectorAction::SetResult(crate::game::ResultKind::Adjudicated {
                scores: vec![s.first, s.second],
                reason: String::new(),
            });
            if let Some(why) = action.out_of_range() {
                return Err(errors::bad_field("scores", why.replace("an adjudicated score", "a score")));
            }
            GameResult::Scores([s.first, s.second])
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) if n == first && second != 0 => {
            GameResult::Forfeit { winner: 1 }
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) if n == second && n != 0 => {
            GameResult::Forfeit { winner: 0 }
        }
        Some(pb::record_result_request::Result::ForfeitedBy(n)) => {
            return Err(errors::bad_field(
                "forfeited_by",
                format!("{n}: pairing {} is players {first} and {second}", r.pairing),
            ));
        }
        None => return Err(errors::bad_field("result", "scores or forfeited_by")),
    };
    Ok((d, k, r.pairing as usize - 1, result))
}
