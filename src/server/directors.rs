//! The `DirectorsService`: a tournament director's actions on a game (each a domain call on the
//! game's session, made durable and published like a turn, idempotent by request id), the
//! results of a label's games, and the director keys. Every call needs a director's token: the
//! root director's acts everywhere and alone makes keys; a key's acts on its games only
//! (`host::Director`).

use super::convert::end_reason;
use super::errors;
use super::state::{AppState, Here};
use super::views;
use crate::game::{DirectorAction, EventKind, MAX_NOTE_CHARS, ResultKind};
use crate::host::DirectorOp;
use crate::proto::v1 as pb;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct DirectorsService {
    pub(crate) state: Arc<AppState>,
}

/// The longest reason a director gives, and request id, in characters.
const MAX_REASON_CHARS: usize = 200;
const MAX_REQUEST_ID_CHARS: usize = 100;
/// The most a clock may be adjusted at once, either way: a day.
/// The most games a results export reads.
const MAX_RESULT_GAMES: usize = 10_000;

fn reason(text: &str) -> Result<String, Status> {
    let chars = text.chars().count();
    if chars == 0 || chars > MAX_REASON_CHARS || text.chars().any(char::is_control) {
        return Err(errors::bad_field(
            "reason",
            format!("1 to {MAX_REASON_CHARS} characters, no control characters"),
        ));
    }
    Ok(text.to_string())
}

fn checked_request_id(id: &str) -> Result<Option<String>, Status> {
    if id.chars().count() > MAX_REQUEST_ID_CHARS {
        return Err(errors::bad_field("request_id", format!("at most {MAX_REQUEST_ID_CHARS} characters")));
    }
    Ok((!id.is_empty()).then(|| id.to_string()))
}

impl DirectorsService {
    /// Do `op` to the game `game_id` (here, or at its owner), answering as the first time for a
    /// retried request id.
    async fn act<T: Send + 'static, R: views::DirectorResponse>(
        &self,
        request: Request<T>,
        game_id: &str,
        request_id: &str,
        op: DirectorOp,
        forward: impl FnOnce(
            crate::proto::v1::directors_service_client::DirectorsServiceClient<tonic::transport::Channel>,
            Request<T>,
        ) -> futures_util::future::BoxFuture<'static, Result<Response<R>, Status>>
        + Send,
    ) -> Result<Response<R>, Status> {
        let director = self.state.director(request.metadata()).await?;
        let request_id = checked_request_id(request_id)?;
        // The owner checks the token again, and the key's labels against the game's.
        let session = match self.state.serve(game_id, request, forward).await? {
            Here::Local(session, _) => session,
            Here::Forwarded(answer) => return Ok(answer),
        };
        director.check_covers(session.snapshot().labels()).map_err(errors::host)?;
        tracing::info!(game = game_id, director = director.name().unwrap_or("root"), action = ?op, "director's action");
        let by = director.name().map(str::to_string);
        let answer = self
            .state
            .on_session(game_id, session, |s| {
                let (op, by, request_id) = (op.clone(), by.clone(), request_id.clone());
                async move { s.direct(op, by, request_id).await }
            })
            .await?;
        views::answer(answer, |done| R::with_view(views::director_view(done))).map(Response::new)
    }
}

#[tonic::async_trait]
impl crate::proto::v1::directors_service_server::DirectorsService for DirectorsService {
    async fn pause_game(
        &self,
        request: Request<pb::PauseGameRequest>,
    ) -> Result<Response<pb::PauseGameResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(DirectorAction::Pause), |mut c, r| {
            Box::pin(async move { c.pause_game(r).await })
        })
        .await
    }

    async fn resume_game(
        &self,
        request: Request<pb::ResumeGameRequest>,
    ) -> Result<Response<pb::ResumeGameResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(DirectorAction::Resume), |mut c, r| {
            Box::pin(async move { c.resume_game(r).await })
        })
        .await
    }

    async fn adjust_score(
        &self,
        request: Request<pb::AdjustScoreRequest>,
    ) -> Result<Response<pb::AdjustScoreResponse>, Status> {
        let r = request.get_ref();
        let action = DirectorAction::AdjustScore {
            seat: r.seat as usize,
            points: r.points,
            reason: reason(&r.reason)?,
        };
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("points", why));
        }
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.adjust_score(r).await })
        })
        .await
    }

    async fn adjust_clock(
        &self,
        request: Request<pb::AdjustClockRequest>,
    ) -> Result<Response<pb::AdjustClockResponse>, Status> {
        let r = request.get_ref();
        let action = DirectorAction::AdjustClock {
            seat: r.seat as usize,
            delta_ms: r.delta_ms,
            reason: reason(&r.reason)?,
        };
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("delta_ms", why));
        }
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.adjust_clock(r).await })
        })
        .await
    }

    async fn undo_turn(
        &self,
        request: Request<pb::UndoTurnRequest>,
    ) -> Result<Response<pb::UndoTurnResponse>, Status> {
        let (id, rid) = (request.get_ref().game_id.clone(), request.get_ref().request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Undo, |mut c, r| {
            Box::pin(async move { c.undo_turn(r).await })
        })
        .await
    }

    async fn set_result(
        &self,
        request: Request<pb::SetResultRequest>,
    ) -> Result<Response<pb::SetResultResponse>, Status> {
        let r = request.get_ref();
        let why = reason(&r.reason)?;
        let kind = match &r.result {
            Some(pb::set_result_request::Result::Forfeit(seat)) => {
                ResultKind::Forfeit { seat: *seat as usize, reason: why }
            }
            Some(pb::set_result_request::Result::Adjudicated(a)) => {
                ResultKind::Adjudicated { scores: a.scores.clone(), reason: why }
            }
            Some(pb::set_result_request::Result::Void(pb::Void {})) => ResultKind::Void { reason: why },
            None => return Err(errors::bad_field("result", "one of forfeit, adjudicated or void")),
        };
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        let action = DirectorAction::SetResult(kind);
        if let Some(why) = action.out_of_range() {
            return Err(errors::bad_field("adjudicated.scores", why));
        }
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.set_result(r).await })
        })
        .await
    }

    async fn add_note(
        &self,
        request: Request<pb::AddNoteRequest>,
    ) -> Result<Response<pb::AddNoteResponse>, Status> {
        let r = request.get_ref();
        let chars = r.text.chars().count();
        if chars == 0 || chars > MAX_NOTE_CHARS {
            return Err(errors::bad_field(
                "text",
                format!("{chars} characters: a note has 1 to {MAX_NOTE_CHARS}"),
            ));
        }
        let action = DirectorAction::Note(r.text.clone());
        let (id, rid) = (r.game_id.clone(), r.request_id.clone());
        self.act(request, &id, &rid, DirectorOp::Act(action), |mut c, r| {
            Box::pin(async move { c.add_note(r).await })
        })
        .await
    }

    async fn export_results(
        &self,
        request: Request<pb::ExportResultsRequest>,
    ) -> Result<Response<pb::ExportResultsResponse>, Status> {
        let director = self.state.director(request.metadata()).await?;
        let r = request.into_inner();
        let given: std::collections::HashMap<String, String> = [(r.key.clone(), r.value.clone())].into();
        let labels = super::new_game::labels("key", &given)?;
        // A key's export holds its own games only (none, for a label that contradicts its own).
        let Some(labels) = director.narrow(labels) else {
            return Ok(Response::new(results(Vec::new())));
        };
        let page = self
            .state
            .host
            .stored_games(crate::store::GameQuery {
                labels,
                state: crate::store::GameState::Any,
                after: None,
                limit: MAX_RESULT_GAMES,
            })
            .await
            .map_err(errors::host)?;
        let mut rows = Vec::with_capacity(page.ids.len());
        for id in &page.ids {
            let id = id.to_string();
            let snapshot = match self.state.snapshot(&id).await {
                Ok(s) => s,
                Err(status) if status.code() == tonic::Code::FailedPrecondition => continue,
                Err(status) => return Err(status),
            };
            rows.push(row(&id, &snapshot));
        }
        Ok(Response::new(results(rows)))
    }

    async fn create_director_key(
        &self,
        request: Request<pb::CreateDirectorKeyRequest>,
    ) -> Result<Response<pb::CreateDirectorKeyResponse>, Status> {
        let director = self.state.director(request.metadata()).await?;
        let r = request.into_inner();
        if !super::new_game::is_name(&r.name) {
            return Err(errors::bad_field(
                "name",
                format!(
                    "{:?}: 1 to {} characters of a-z, 0-9, '_', '-' and '.'",
                    crate::text::clip(&r.name),
                    super::new_game::MAX_LABEL_KEY
                ),
            ));
        }
        let labels = super::new_game::labels("labels", &r.labels)?;
        if labels.is_empty() {
            return Err(errors::bad_field(
                "labels",
                "a key needs at least one label (the games it directs); the root token directs them all",
            ));
        }
        let (token, hash) = super::auth::new_token()?;
        let key =
            self.state.host.add_director_key(&director, r.name, labels, hash).await.map_err(errors::host)?;
        tracing::info!(key = %key.name, labels = ?key.labels, "director key made");
        Ok(Response::new(pb::CreateDirectorKeyResponse { key: Some(key_view(key)), token }))
    }

    async fn list_director_keys(
        &self,
        request: Request<pb::ListDirectorKeysRequest>,
    ) -> Result<Response<pb::ListDirectorKeysResponse>, Status> {
        let director = self.state.director(request.metadata()).await?;
        let keys = self.state.host.director_keys(&director).await.map_err(errors::host)?;
        Ok(Response::new(pb::ListDirectorKeysResponse { keys: keys.into_iter().map(key_view).collect() }))
    }

    async fn revoke_director_key(
        &self,
        request: Request<pb::RevokeDirectorKeyRequest>,
    ) -> Result<Response<pb::RevokeDirectorKeyResponse>, Status> {
        let director = self.state.director(request.metadata()).await?;
        let name = request.into_inner().name;
        if !super::new_game::is_name(&name) {
            return Err(errors::bad_field(
                "name",
                format!("{:?} is not a key's name", crate::text::clip(&name)),
            ));
        }
        let key = self.state.host.revoke_director_key(&director, name).await.map_err(errors::host)?;
        tracing::info!(key = %key.name, "director key revoked");
        Ok(Response::new(pb::RevokeDirectorKeyResponse { key: Some(key_view(key)) }))
    }
}

/// A director key as the wire shows it (never its hash).
fn key_view(key: crate::store::DirectorKey) -> pb::DirectorKey {
    pb::DirectorKey {
        name: key.name,
        labels: key.labels.into_iter().collect(),
        created_unix_ms: key.created_unix_ms,
        revoked_unix_ms: key.revoked_unix_ms.unwrap_or(0),
    }
}

/// An export of these rows: with their standings, as CSV and as JSON.
fn results(rows: Vec<pb::ResultRow>) -> pb::ExportResultsResponse {
    let standings = standings(&rows);
    let csv = csv(&rows);
    let json = json(&rows);
    pb::ExportResultsResponse { rows, standings, csv, json }
}

/// A game as a results row.
fn row(id: &str, snapshot: &crate::host::Snapshot) -> pb::ResultRow {
    let game = snapshot.game();
    let scores = game.scores().to_vec();
    let best_other = scores.iter().skip(1).copied().max().unwrap_or(0);
    let live = game.history().iter().filter(|e| !e.undone);
    let (mut challenges, mut adjustments) = (0u32, 0u32);
    for e in live {
        match e.kind {
            EventKind::Challenged { .. } => challenges += 1,
            EventKind::ScoreAdjusted { .. } | EventKind::ClockAdjusted { .. } => adjustments += 1,
            _ => {}
        }
    }
    let outcome = game.outcome();
    pb::ResultRow {
        game_id: id.to_string(),
        labels: snapshot.labels().iter().cloned().collect(),
        names: snapshot.seats().iter().map(|s| s.name().to_string()).collect(),
        spread: scores.first().copied().unwrap_or(0) - best_other,
        scores,
        finished: game.is_over(),
        winners: outcome.map(|o| o.winners.iter().map(|&w| w as u32).collect()).unwrap_or_default(),
        end_reason: outcome.map(|o| end_reason(o.reason)).unwrap_or_default(),
        challenges,
        adjustments,
    }
}

/// Wins, losses and spread per name over the finished games (a void game counts for nobody).
fn standings(rows: &[pb::ResultRow]) -> Vec<pb::Standing> {
    let mut by_name: std::collections::BTreeMap<String, pb::Standing> = Default::default();
    for r in rows.iter().filter(|r| r.finished && !r.winners.is_empty()) {
        let winners = r.winners.len() as f64;
        for (seat, name) in r.names.iter().enumerate() {
            let s = by_name
                .entry(name.clone())
                .or_insert_with(|| pb::Standing { name: name.clone(), ..Default::default() });
            s.games += 1;
            if r.winners.contains(&(seat as u32)) {
                s.wins += 1.0 / winners;
                s.losses += 1.0 - 1.0 / winners;
            } else {
                s.losses += 1.0;
            }
            let mine = r.scores[seat];
            let others: i32 = r.scores.iter().enumerate().filter(|&(i, _)| i != seat).map(|(_, &x)| x).sum();
            let n_others = (r.scores.len() - 1).max(1) as i32;
            s.spread += mine - others / n_others;
        }
    }
    let mut out: Vec<pb::Standing> = by_name.into_values().collect();
    out.sort_by(|a, b| b.wins.total_cmp(&a.wins).then(b.spread.cmp(&a.spread)).then(a.name.cmp(&b.name)));
    out
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn csv(rows: &[pb::ResultRow]) -> String {
    let mut out = String::from(
        "game_id,labels,names,scores,spread,finished,winners,end_reason,challenges,adjustments\n",
    );
    for r in rows {
        let mut labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        labels.sort();
        let cells = [
            r.game_id.clone(),
            labels.join(";"),
            r.names.join(";"),
            r.scores.iter().map(i32::to_string).collect::<Vec<_>>().join(";"),
            r.spread.to_string(),
            r.finished.to_string(),
            r.winners.iter().map(u32::to_string).collect::<Vec<_>>().join(";"),
            r.end_reason.clone(),
            r.challenges.to_string(),
            r.adjustments.to_string(),
        ];
        out.push_str(&cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

fn json(rows: &[pb::ResultRow]) -> String {
    let items: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            // Labels in key order (a map's order is not the proto's).
            let labels: std::collections::BTreeMap<&String, &String> = r.labels.iter().collect();
            serde_json::json!({
                "game_id": r.game_id,
                "labels": labels,
                "names": r.names,
                "scores": r.scores,
                "spread": r.spread,
                "finished": r.finished,
                "winners": r.winners,
                "end_reason": r.end_reason,
                "challenges": r.challenges,
                "adjustments": r.adjustments,
            })
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}
