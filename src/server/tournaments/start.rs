//! StartRound: a round's games made, each with an id drawn from what it is (asked twice, none is
//! made twice), every seat named for its player and each human seat bound to its player's token,
//! then bound to the pair it was made for.

use super::super::{errors, new_game};
use super::create::{game_request, human_spec};
use crate::host::{HostError, Seat, SeatKind};
use crate::proto::v1 as pb;
use dawgref_events::{EventsError, Read, game_labels};
use dawgref_tournament::Pairing;
use sha2::{Digest, Sha256};
use tonic::Status;

/// The id of a pairing's game: drawn from the tournament, division, round, pairing and players
/// (all numbered from 1), so that StartRound asked again (after a crash between its games and
/// its record, say) names the same games and makes none twice.
fn game_id(slug: &str, division: &str, round: u32, (number, first, second): Pair) -> uuid::Uuid {
    let digest = Sha256::digest(format!("{slug}\n{division}\n{round}\n{number}\n{first}\n{second}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// A line of a round as its game is made for it: its number, first and second player (from 1).
type Pair = (u32, u32, u32);

/// The games a round's lines are to have: each line with a game to play, as its pair.
fn pairs(lines: &[Pairing]) -> impl Iterator<Item = (usize, Pair)> + '_ {
    lines.iter().enumerate().filter_map(|(i, line)| match *line {
        Pairing::Game { first, second, result: None } => Some((i, (i as u32 + 1, first.0 + 1, second.0 + 1))),
        _ => None,
    })
}

/// StartRound: every game of the round made (a game made by an earlier call is kept), then the
/// round marked started with each game bound to the pair it was made for, durably (once per
/// request id). The tournament is held throughout, so no change of this replica's falls between
/// the pairs read and the games bound; pairs another replica changed meanwhile are refused
/// (ABORTED) and the games made for the old pairs voided, signed `by` the calling director's key.
pub(super) async fn start_round(
    state: &std::sync::Arc<super::AppState>,
    metadata: &tonic::metadata::MetadataMap,
    by: Option<&str>,
    r: &pb::StartRoundRequest,
) -> Result<pb::StartRoundResponse, Status> {
    let retry = ("StartRound", r.request_id.as_str());
    let events = &state.events;
    let held = events.hold(&r.slug).await;
    let (Read { record, .. }, kept) = events.kept(&held, retry).await.map_err(errors::events)?;
    if let Some(answer) = kept {
        return answer.map_err(errors::events);
    }
    let d = record.division(&r.division).map_err(errors::events)?;
    let k = record.round(d, r.round).map_err(errors::events)?;
    let entry = &record.divisions[d];
    if entry.started(k) {
        return Ok(pb::StartRoundResponse { round: Some(super::view::round(entry, k)) });
    }
    if entry.division.rounds()[k].pairings.is_none() {
        return Err(errors::precondition(format!("round {} is not paired yet", r.round)));
    }
    // Each pair → the game made for it.
    let mut made: Vec<(Pair, String)> = Vec::new();
    for (_, pair) in pairs(entry.lines(k)) {
        made.push((pair, make_game(state, &record, d, r, pair).await?));
    }
    // The pairs as the write found them, when they were not the pairs the games were made for.
    let mut changed: Option<Vec<Pair>> = None;
    let bound = events
        .once(&held, retry, |rec| {
            let entry = &mut rec.divisions[d];
            if !entry.started(k) {
                changed = None;
                let lines = entry.lines(k);
                let mut games = vec![String::new(); lines.len()];
                for (i, pair) in pairs(lines) {
                    match made.iter().find(|(p, _)| *p == pair) {
                        Some((_, id)) => games[i] = id.clone(),
                        None => {
                            changed = Some(pairs(lines).map(|(_, p)| p).collect());
                            return Err(EventsError::Aborted(format!(
                                "round {}'s pairings changed on another replica while it started: ask again",
                                r.round
                            )));
                        }
                    }
                }
                entry.games[k] = Some(games);
                rec.event(
                    "round_started",
                    &r.division,
                    r.round,
                    0,
                    format!("round {}: {} games", r.round, made.len()),
                );
            }
            Ok(pb::StartRoundResponse { round: Some(super::view::round(&rec.divisions[d], k)) })
        })
        .await
        .map_err(errors::events);
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
    let owners = super::super::directors::Forwarded { state, metadata };
    for id in orphans {
        let void = crate::game::ResultKind::Void {
            reason: "its tournament pairing changed before the round started".into(),
        };
        if let Err(e) = events.end_game(&owners, id, void, "", by).await {
            tracing::warn!(game = %id, error = %e, "a game made for a changed pairing was not voided");
        }
    }
    let answer = bound?;
    tracing::info!(tournament = %r.slug, division = %r.division, round = r.round, games = made.len(), "round started");
    Ok(answer)
}

/// The game of round `r.round`'s pair in division `d`, made (or found made by an earlier call:
/// its id is drawn from what it is), every seat named for its player and each human seat bound
/// to its player's token hash. Its id.
async fn make_game(
    state: &super::AppState,
    record: &dawgref_events::Record,
    d: usize,
    r: &pb::StartRoundRequest,
    pair: Pair,
) -> Result<String, Status> {
    let entry = &record.divisions[d];
    let id = game_id(&r.slug, &r.division, r.round, pair);
    let players = [pair.1, pair.2].map(|n| &entry.division.players()[n as usize - 1]);
    let seats: Vec<pb::SeatSpec> = players
        .iter()
        .map(|player| match super::view::level(player) {
            Some(level) => {
                pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(super::view::bot(level))), think_ms: None }
            }
            None => human_spec(&player.name),
        })
        .collect();
    let labels = game_labels(&r.slug, &r.division, r.round).into();
    let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed;
    let request = game_request(&record.game, seats, seed, labels);
    let (config, seats, _tokens, delay, labels) = new_game::new_game(state, &request)?;
    // Every seat carries its player's name; each human seat is its player's: the player's token
    // is the seat's.
    let seats: Vec<Seat> = seats
        .into_iter()
        .zip([pair.1, pair.2])
        .zip(players)
        .map(|((seat, n), player)| match seat.kind() {
            SeatKind::Human { .. } => {
                let hash = entry.tokens[n as usize - 1];
                Seat::new(player.name.clone(), SeatKind::Human { token: hash })
            }
            kind => Seat::new(player.name.clone(), kind.clone()),
        })
        .collect();
    let game = crate::game::Game::new(config).map_err(errors::game)?;
    match state.host.create(Some(id), game, seats, Some(delay), None, labels).await {
        Ok(_) | Err(HostError::GameExists(_)) => Ok(id.to_string()),
        Err(e) => Err(errors::host(e)),
    }
}
