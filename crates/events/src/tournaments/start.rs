//! StartRound: a round's games made, each with an id drawn from what it is (asked twice, none is
//! made twice), then bound to the pairs they were made for, durably; games made for pairs that
//! changed meanwhile are voided. Making a game is the services' ([`RoundGames`]): the checks of a
//! new game and its seats are theirs.

use super::change::Retry;
use super::direct::{By, Owners};
use super::record::{DivisionRecord, Record};
use crate::Events;
use crate::error::EventsError;
use dawgref_engine::game::ResultKind;
use dawgref_tournament::Pairing;
use sha2::{Digest, Sha256};
use std::future::Future;
use uuid::Uuid;

/// A line of a round as its game is made for it: its number, first and second player (from 1).
pub type Pair = (u32, u32, u32);

/// The services' half of StartRound: a pairing's game made, and the call's answer.
pub trait RoundGames: Sync {
    /// The call's answer (kept for a retry of the same request id).
    type Answer: prost::Message + Default;

    /// Make the game of `pair` in round `round` of division `d` of `record`, its id `id` (a game
    /// found made by an earlier call is kept).
    fn make(
        &self,
        record: &Record,
        d: usize,
        round: u32,
        pair: Pair,
        id: Uuid,
    ) -> impl Future<Output = Result<(), EventsError>> + Send;

    /// The answer for round `k` of `entry`, started.
    fn answer(&self, entry: &DivisionRecord, k: usize) -> Self::Answer;

    /// The games an answer names, bound to their pairs.
    fn games(answer: &Self::Answer) -> Vec<String>;
}

/// The id of a pairing's game: drawn from the tournament, division, round, pairing and players
/// (all numbered from 1), so that StartRound asked again (after a crash between its games and
/// its record, say) names the same games and makes none twice.
fn game_id(slug: &str, division: &str, round: u32, (number, first, second): Pair) -> Uuid {
    let digest = Sha256::digest(format!("{slug}\n{division}\n{round}\n{number}\n{first}\n{second}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// The games a round's lines are to have: each line with a game to play, as its pair.
fn pairs(lines: &[Pairing]) -> impl Iterator<Item = (usize, Pair)> + '_ {
    lines.iter().enumerate().filter_map(|(i, line)| match *line {
        Pairing::Game { first, second, result: None } => Some((i, (i as u32 + 1, first.0 + 1, second.0 + 1))),
        _ => None,
    })
}

impl Events {
    /// StartRound: every game of round `round` of `division` made (a game made by an earlier
    /// call is kept), then the round marked started with each game bound to the pair it was made
    /// for, durably (once per request id). The tournament is held throughout, so no change of
    /// this replica's falls between the pairs read and the games bound; pairs another replica
    /// changed meanwhile are refused (ABORTED) and the games made for the old pairs voided,
    /// signed `by` the calling director's key.
    #[allow(clippy::too_many_arguments)]
    pub async fn start_round<G: RoundGames>(
        &self,
        slug: &str,
        division: &str,
        round: u32,
        request_id: &str,
        by: By<'_>,
        owners: &impl Owners,
        games: &G,
    ) -> Result<G::Answer, EventsError> {
        let retry: Retry<'_> = ("StartRound", request_id);
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
            return Ok(games.answer(entry, k));
        }
        if entry.division.rounds()[k].pairings.is_none() {
            return Err(EventsError::Precondition(format!("round {round} is not paired yet")));
        }
        // Each pair → the game made for it.
        let mut made: Vec<(Pair, String)> = Vec::new();
        for (_, pair) in pairs(entry.lines(k)) {
            let id = game_id(slug, division, round, pair);
            games.make(&record, d, round, pair, id).await?;
            made.push((pair, id.to_string()));
        }
        // The pairs as the write found them, when they were not the pairs the games were made for.
        let mut changed: Option<Vec<Pair>> = None;
        let bound = self
            .once(&held, retry, |rec| {
                rec.by = super::event::actor(by);
                let entry = &mut rec.divisions[d];
                if !entry.started(k) {
                    changed = None;
                    let lines = entry.lines(k);
                    let mut bound = vec![String::new(); lines.len()];
                    for (i, pair) in pairs(lines) {
                        match made.iter().find(|(p, _)| *p == pair) {
                            Some((_, id)) => bound[i] = id.clone(),
                            None => {
                                changed = Some(pairs(lines).map(|(_, p)| p).collect());
                                return Err(EventsError::Aborted(format!(
                                    "round {round}'s pairings changed on another replica while it started: ask again"
                                )));
                            }
                        }
                    }
                    entry.games[k] = Some(bound);
                    let what = format!("round {round}: {} games", made.len());
                    rec.event("round_started", division, round, 0, what);
                }
                Ok(games.answer(&rec.divisions[d], k))
            })
            .await;
        // A game made here that no pairing holds (its pair changed, or the round was started
        // elsewhere with other games) is voided: no live game is without its pairing.
        // (Any other failure leaves them: the call asked again binds them.)
        let orphans: Vec<&String> = match (&bound, &changed) {
            (Ok(answer), _) => {
                let held = G::games(answer);
                made.iter().map(|(_, id)| id).filter(|id| !held.contains(id)).collect()
            }
            (Err(_), Some(pairs)) => {
                made.iter().filter(|(pair, _)| !pairs.contains(pair)).map(|(_, id)| id).collect()
            }
            (Err(_), None) => Vec::new(),
        };
        for id in orphans {
            let void =
                ResultKind::Void { reason: "its tournament pairing changed before the round started".into() };
            if let Err(e) = self.end_game(owners, id, void, "", by).await {
                tracing::warn!(game = %id, error = %e, "a game made for a changed pairing was not voided");
            }
        }
        let answer = bound?;
        tracing::info!(tournament = %slug, division = %division, round, games = made.len(), "round started");
        Ok(answer)
    }
}
