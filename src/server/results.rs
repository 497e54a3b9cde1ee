//! The results of a label's games (`DirectorsService.ExportResults`): a row per game, the
//! standings by wins and spread, and the same rows as CSV and JSON.

use super::convert::end_reason;
use super::errors;
use super::state::AppState;
use crate::game::EventKind;
use crate::proto::v1 as pb;
use tonic::{Request, Status};

/// The most games a results export reads.
const MAX_RESULT_GAMES: usize = 10_000;

/// `DirectorsService.ExportResults`: the games labelled `key=value` (a key's own among them).
pub(super) async fn export(
    state: &AppState,
    request: Request<pb::ExportResultsRequest>,
) -> Result<pb::ExportResultsResponse, Status> {
    let director = state.identity.director(request.metadata()).await?;
    let r = request.into_inner();
    let given: std::collections::HashMap<String, String> = [(r.key.clone(), r.value.clone())].into();
    let labels = super::new_game::labels("key", &given)?;
    // A key's export holds its own games only (none, for a label that contradicts its own).
    let Some(labels) = director.narrow(labels) else {
        return Ok(results(Vec::new()));
    };
    let page = state
        .host
        .stored_games(crate::host::GameQuery {
            labels,
            state: crate::host::GameState::Any,
            after: None,
            limit: MAX_RESULT_GAMES,
        })
        .await
        .map_err(errors::host)?;
    let mut rows = Vec::with_capacity(page.ids.len());
    for id in &page.ids {
        let id = id.to_string();
        let snapshot = match state.snapshot(&id).await {
            Ok(s) => s,
            Err(status) if status.code() == tonic::Code::FailedPrecondition => continue,
            Err(status) => return Err(status),
        };
        rows.push(row(&id, &snapshot));
    }
    Ok(results(rows))
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
        out.push_str(&dawgref_tournament::csv::line(&cells));
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
