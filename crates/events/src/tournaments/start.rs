//! StartRound: a round's games made, each with an id drawn from what it is (asked twice, none is
//! made twice), then bound to the pairs they were made for, durably; games made for pairs that
//! changed meanwhile are voided. Making a game is the services' ([`RoundGames`]): the checks of a
//! new game and its seats are theirs.

use super::change::{Answer, Retry};
use super::command::Outcome;
use super::direct::Owners;
use super::event::{Actor, EventKind};
use super::record::{DivisionId, Record};
use crate::Events;
use crate::error::EventsError;
use dawgref_engine::game::ResultKind;
use dawgref_tournament::{Pairing, PairingId, PlayerId, RoundId};
use sha2::{Digest, Sha256};
use std::future::Future;
use uuid::Uuid;

/// A line of a round as its game is made for it: the pairing, and its players in seat order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pair {
    pairing: PairingId,
    players: [PlayerId; 2],
}

/// The services' half of StartRound: a pairing's game made through the checks of any new game.
pub trait RoundGames: Sync {
    /// Make the game of `players` (first to move first) in round `round` of division `d` of
    /// `record`, its id `id` (a game found made by an earlier call is kept).
    fn make(
        &self,
        record: &Record,
        d: DivisionId,
        round: RoundId,
        players: [PlayerId; 2],
        id: Uuid,
    ) -> impl Future<Output = Result<(), EventsError>> + Send;
}

/// The id of a pairing's game: drawn from the tournament, division, round, pairing and players
/// (all numbered from 1), so that StartRound asked again (after a crash between its games and
/// its record, say) names the same games and makes none twice.
fn game_id(slug: &str, division: &str, round: RoundId, pair: Pair) -> Uuid {
    let (round, number) = (round.number(), pair.pairing.number());
    let [first, second] = pair.players.map(|p| p.0 + 1);
    let digest = Sha256::digest(format!("{slug}\n{division}\n{round}\n{number}\n{first}\n{second}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// The games a round's lines are to have: each line with a game to play, as its pair.
fn pairs(lines: &[Pairing]) -> impl Iterator<Item = Pair> + '_ {
    lines.iter().enumerate().filter_map(|(i, line)| match *line {
        Pairing::Game { first, second, result: None } => {
            Some(Pair { pairing: PairingId::at(i), players: [first, second] })
        }
        _ => None,
    })
}

impl Events {
    /// StartRound: every game of round `round` of `division` made (a game made by an earlier
    /// call is kept), then the round marked started with each game bound to the pair it was made
    /// for, durably (once per request id). The tournament is held throughout, so no change of
    /// this replica's falls between the pairs read and the games bound; pairs another replica
    /// changed meanwhile are refused (ABORTED) and the games made for the old pairs voided,
    /// signed by `actor`. Answered with `answer` of the round.
    #[allow(clippy::too_many_arguments)]
    pub async fn start_round<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        division: &str,
        round: u32,
        owners: &impl Owners,
        games: &impl RoundGames,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("StartRound")?;
        let retry = Retry { method: "StartRound", request_id };
        let held = self.hold(slug).await;
        let (read, kept) = self.kept(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let record = read.record;
        let d = record.division(division)?;
        let k = record.round(d, round)?;
        let entry = &record.divisions[d];
        if entry.started(k) {
            return Ok(answer(&record, Outcome::Round { division: d, round: k }));
        }
        if entry.division.rounds()[k.index()].pairings.is_none() {
            return Err(dawgref_tournament::Error::NotPaired { round: round as usize }.into());
        }
        // Each pair → the game made for it.
        let mut made: Vec<(Pair, String)> = Vec::new();
        for pair in pairs(entry.lines(k)) {
            let id = game_id(slug, division, k, pair);
            games.make(&record, d, k, pair.players, id).await?;
            made.push((pair, id.to_string()));
        }
        // The pairs as the write found them, when they were not the pairs the games were made for.
        let mut changed: Option<Vec<Pair>> = None;
        // Whether this call's write started the round (not a first attempt elsewhere).
        let mut started_here = false;
        let bound = self
            .once(&held, retry, |rec| {
                rec.by = actor.name().to_string();
                let entry = &mut rec.divisions[d];
                started_here = !entry.started(k);
                if !entry.started(k) {
                    changed = None;
                    let lines = entry.lines(k);
                    let mut bound = vec![String::new(); lines.len()];
                    for pair in pairs(lines) {
                        match made.iter().find(|(p, _)| *p == pair) {
                            Some((_, id)) => bound[pair.pairing.index()] = id.clone(),
                            None => {
                                changed = Some(pairs(lines).collect());
                                return Err(EventsError::Aborted(format!(
                                    "round {round}'s pairings changed on another replica while it started: ask again"
                                )));
                            }
                        }
                    }
                    // A line given a game is played on the server: its result enters from it, and
                    // a report made before is no longer one (played over the board, it is kept).
                    entry.reports.retain(|&(round, i), _| round != k.index() || bound[i].is_empty());
                    entry.games[k.index()] = Some(bound);
                    let what = format!("round {round}: {} games", made.len());
                    rec.event(EventKind::RoundStarted, division, round, 0, what);
                }
                Ok(answer(rec, Outcome::Round { division: d, round: k }))
            })
            .await;
        // A game made here that no pairing holds (its pair changed, or the round was started
        // elsewhere with other games) is voided: no live game is without its pairing.
        // (Any other failure leaves them: the call asked again binds them.)
        let orphans: Vec<&String> = match (&bound, &changed) {
            (Ok(_), _) => {
                // The round's games as written (here, or by a first attempt elsewhere), read
                // under the hold.
                // A record that cannot be read voids nothing.
                match self.load(slug).await {
                    Ok((record, _)) => {
                        let games = record.divisions[d].games.get(k.index()).cloned();
                        let held = games.flatten().unwrap_or_default();
                        made.iter().map(|(_, id)| id).filter(|id| !held.contains(id)).collect()
                    }
                    Err(_) => Vec::new(),
                }
            }
            (Err(_), Some(pairs)) => {
                made.iter().filter(|(pair, _)| !pairs.contains(pair)).map(|(_, id)| id).collect()
            }
            (Err(_), None) => Vec::new(),
        };
        let voided: Vec<String> = orphans.iter().map(|id| id.to_string()).collect();
        for id in orphans {
            let void =
                ResultKind::Void { reason: "its tournament pairing changed before the round started".into() };
            if let Err(e) = self.end_game(owners, id, void, "", actor).await {
                tracing::warn!(game = %id, error = %e, "a game made for a changed pairing was not voided");
            }
        }
        let answer = bound?;
        if started_here {
            let bound = made.iter().filter(|(_, id)| !voided.contains(id));
            let games: Vec<_> = bound.map(|(pair, id)| (pair.players, id.clone())).collect();
            self.tell_round(&record, d, k, &games).await;
        }
        tracing::info!(tournament = %slug, division = %division, round, games = made.len(), "round started");
        Ok(answer)
    }
}
