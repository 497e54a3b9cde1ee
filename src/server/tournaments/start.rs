//! StartRound: a round's games made, each with an id drawn from what it is (asked twice, none is
//! made twice), every seat named for its player and each human seat bound to its player's token,
//! then bound to the pair it was made for.

use super::super::{errors, new_game};
use super::create::{game_request, human_spec};
use crate::host::{HostError, Seat, SeatKind};
use crate::proto::v1 as pb;
use sha2::{Digest, Sha256};
use tonic::Status;

/// The id of a pairing's game: drawn from the tournament, division, round, pairing and players,
/// so that StartRound asked again (after a crash between its games and its record, say) names
/// the same games and makes none twice.
fn game_id(slug: &str, division: &str, round: u32, p: &pb::TournamentPairing) -> uuid::Uuid {
    let digest =
        Sha256::digest(format!("{slug}\n{division}\n{round}\n{}\n{}\n{}", p.number, p.first, p.second));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// StartRound: every game of the round made (a game made by an earlier call is kept), then the
/// round marked started with each game bound to the pair it was made for, durably (once per
/// request id). The tournament is held throughout, so no change of this replica's falls between
/// the pairs read and the games bound; pairs another replica changed meanwhile are refused
/// (ABORTED) and the games made for the old pairs voided.
pub(super) async fn start_round(
    state: &std::sync::Arc<super::AppState>,
    metadata: &tonic::metadata::MetadataMap,
    r: &pb::StartRoundRequest,
) -> Result<pb::StartRoundResponse, Status> {
    let retry = ("StartRound", r.request_id.as_str());
    let held = super::hold(state, &r.slug).await;
    let (record, kept) = super::kept(state, &held, retry).await?;
    if let Some(answer) = kept {
        return answer;
    }
    let d = record.division(&r.division)?;
    let k = record.round(d, r.round)?;
    let division = &record.t().divisions[d];
    let round = &division.rounds[k];
    if round.started {
        return Ok(pb::StartRoundResponse { round: Some(round.clone()) });
    }
    if !round.paired {
        return Err(errors::precondition(format!("round {} is not paired yet", r.round)));
    }
    let settings = record.t().game.clone().unwrap_or_default();
    // (number, first, second) → the game made for that pair.
    let mut made: Vec<((u32, u32, u32), String)> = Vec::new();
    for p in round.pairings.iter().filter(|p| p.second != 0 && !p.done) {
        let id = game_id(&r.slug, &r.division, r.round, p);
        let players = [p.first, p.second].map(|n| &division.players[n as usize - 1]);
        let seats: Vec<pb::SeatSpec> = players
            .iter()
            .map(|player| match player.bot {
                Some(level) => pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(level)), think_ms: None },
                None => human_spec(&player.name),
            })
            .collect();
        let labels = game_labels(&r.slug, &r.division, r.round).into();
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed;
        let request = game_request(&settings, seats, seed, labels);
        let (config, seats, _tokens, delay, labels) = new_game::new_game(state, &request)?;
        // Every seat carries its player's name; each human seat is its player's: the player's
        // token is the seat's.
        let seats: Vec<Seat> = seats
            .into_iter()
            .zip([p.first, p.second])
            .zip(players)
            .map(|((seat, n), player)| match seat.kind() {
                SeatKind::Human { .. } => {
                    let hash = <[u8; 32]>::try_from(record.hashes[d].players[n as usize - 1].as_slice()).ok();
                    Seat::new(player.name.clone(), SeatKind::Human { token: hash })
                }
                kind => Seat::new(player.name.clone(), kind.clone()),
            })
            .collect();
        let game = crate::game::Game::new(config).map_err(errors::game)?;
        match state.host.create(Some(id), game, seats, Some(delay), None, labels).await {
            Ok(_) | Err(HostError::GameExists(_)) => {
                made.push(((p.number, p.first, p.second), id.to_string()))
            }
            Err(e) => return Err(errors::host(e)),
        }
    }
    // The pairs as the write found them, when they were not the pairs the games were made for.
    let mut changed: Option<Vec<(u32, u32, u32)>> = None;
    let bound = super::once(state, &held, retry, |rec| {
        let round = &mut rec.t_mut().divisions[d].rounds[k];
        if !round.started {
            changed = None;
            for p in round.pairings.iter_mut().filter(|p| p.second != 0 && !p.done) {
                match made.iter().find(|(pair, _)| *pair == (p.number, p.first, p.second)) {
                    Some((_, id)) => p.game_id = id.clone(),
                    None => {
                        changed =
                            Some(round.pairings.iter().map(|p| (p.number, p.first, p.second)).collect());
                        return Err(Status::aborted(format!(
                            "round {}'s pairings changed on another replica while it started: ask again",
                            r.round
                        )));
                    }
                }
            }
            round.started = true;
            rec.event(
                "round_started",
                &r.division,
                r.round,
                0,
                format!("round {}: {} games", r.round, made.len()),
            );
        }
        Ok(pb::StartRoundResponse { round: Some(rec.t().divisions[d].rounds[k].clone()) })
    })
    .await;
    // A game made here that no pairing holds (its pair changed, or the round was started
    // elsewhere with other games) is voided: no live game is without its pairing.
    // (Any other failure leaves them: the call asked again binds them.)
    let orphans: Vec<&String> = match (&bound, &changed) {
        (Ok(answer), _) => {
            let held: Vec<&String> =
                answer.round.iter().flat_map(|r| r.pairings.iter().map(|p| &p.game_id)).collect();
            made.iter().map(|(_, id)| id).filter(|id| !held.contains(id)).collect()
        }
        (Err(_), Some(pairs)) => {
            made.iter().filter(|(pair, _)| !pairs.contains(pair)).map(|(_, id)| id).collect()
        }
        (Err(_), None) => Vec::new(),
    };
    for id in orphans {
        let void = pb::set_result_request::Result::Void(pb::Void {});
        let reason = "its tournament pairing changed before the round started";
        if let Err(e) = super::super::directors::end_tournament_game(
            state.clone(),
            metadata,
            id,
            void,
            reason,
            String::new(),
        )
        .await
        {
            tracing::warn!(game = %id, error = %e, "a game made for a changed pairing was not voided");
        }
    }
    let answer = bound?;
    tracing::info!(tournament = %r.slug, division = %r.division, round = r.round, games = made.len(), "round started");
    Ok(answer)
}

/// The labels a tournament's game carries: its tournament, division and round (what ListGames,
/// ExportResults and a broadcast's labels select it by).
pub(super) fn game_labels(slug: &str, division: &str, round: u32) -> [(String, String); 3] {
    [
        ("tournament".to_string(), slug.to_string()),
        ("division".to_string(), division.to_string()),
        ("round".to_string(), round.to_string()),
    ]
}
