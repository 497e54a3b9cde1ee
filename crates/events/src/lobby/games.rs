//! A challenge's game, from its making to its end: made through [`LobbyGames`] (the services'
//! one constructor of every game), and when it ends, rated (Glicko-2 per ruleset and time class,
//! `dawgref_tournament::ratings::glicko`, Woogles' constants) and told to its bots. The lobby's
//! round every second: open challenges past their time expired (both sides told), answered ones
//! an hour old let go, and the games whose end was not heard (a restart) settled.

use super::state::Draft;
use super::{BotEventKind, ChallengeState, Challenger, LobbyError, Rating};
use crate::{Events, EventsError, GameSettings};
use dawgref_host::TokenHash;
use dawgref_tournament::ratings::glicko::{self, WOOGLES};
use std::future::Future;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// A seat of a challenge's game: played with a token (a bot's account's, a person's), or by one
/// of the server's own bots at its level (`weak`, `greedy`, `strong`, `champion`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LobbySeat {
    Token { name: String, token: TokenHash },
    Server { name: String, level: String },
}

/// How a challenge's game is made: the services' one constructor of every game, its seats as
/// given (first to move first), its bag drawn from `seed`, with the labels given, its id `id` (a
/// game found made by an earlier call is kept).
pub trait LobbyGames: Sync {
    fn make(
        &self,
        id: uuid::Uuid,
        settings: &GameSettings,
        seats: [LobbySeat; 2],
        seed: u64,
        labels: Vec<(String, String)>,
    ) -> impl Future<Output = Result<(), EventsError>> + Send;
}

/// How long an answered challenge stays readable.
const CLOSED_KEPT_MS: u64 = 3_600_000;
/// How often the lobby's round runs, and every how many rounds it looks at every game in play.
const ROUND: Duration = Duration::from_secs(1);
const SWEEP_ROUNDS: u64 = 30;
/// How long an accept begun is left to its replica before the round finishes it, and how long
/// before an accept that cannot be finished expires.
const ACCEPT_LEFT_MS: u64 = 10_000;
const ACCEPT_GIVEN_UP_MS: u64 = 300_000;

/// The spread a rating reads from a game's end for seat 0: the scores' difference, except that a
/// game won against the scores (on time, by resignation, by forfeit) is a win by at least 1.
fn rated_spread(scores: &[i32], winners: &[usize]) -> Option<i32> {
    let [a, b] = scores else { return None };
    let diff = a - b;
    Some(match winners {
        [0] => diff.max(1),
        [1] => diff.min(-1),
        _ => 0,
    })
}

/// A game's end rated and told: each seat's rating in its ruleset and time class (a rated game
/// of two seats with scores), its bots told the scores, the game let go of the lobby.
fn settle(d: &mut Draft, id: &str, scores: &[i32], winners: &[usize], voided: bool) {
    let Some(game) = d.state.games.get(id).cloned() else { return };
    let mut after: [Option<Rating>; 2] = [None, None];
    if game.rated
        && !voided
        && let Some(spread) = rated_spread(scores, winners)
    {
        let keys = game.seats.clone().map(|who| {
            super::state::LobbyState::rating_key(&who.rating_key(), &game.ruleset, game.time_class)
        });
        let fresh = Rating {
            rating: WOOGLES.start.rating,
            deviation: WOOGLES.start.deviation,
            volatility: WOOGLES.start.volatility,
            games: 0,
            last_unix_ms: 0,
        };
        let before = keys.clone().map(|k| d.state.ratings.get(&k).copied().unwrap_or(fresh));
        for seat in 0..2 {
            let (me, them) = (before[seat], before[1 - seat]);
            let idle_s =
                if me.games == 0 { 0.0 } else { d.now_ms.saturating_sub(me.last_unix_ms) as f64 / 1000.0 };
            let mine = if seat == 0 { spread } else { -spread };
            let g = glicko::rate_game(me.glicko(), them.glicko(), mine, idle_s, &WOOGLES);
            let rating = Rating {
                rating: g.rating,
                deviation: g.deviation,
                volatility: g.volatility,
                games: me.games + 1,
                last_unix_ms: d.now_ms,
            };
            d.put_rating(keys[seat].clone(), rating);
            after[seat] = Some(rating);
        }
    }
    for (seat, who) in game.seats.iter().enumerate() {
        if let Challenger::Bot(name) = who {
            let ended = BotEventKind::GameEnded {
                game: id.to_string(),
                seat: seat as u32,
                scores: scores.to_vec(),
                winners: winners.iter().map(|&w| w as u32).collect(),
                ruleset: game.ruleset.clone(),
                time_class: game.time_class,
                rating: after[seat],
            };
            d.tell(name, ended);
        }
    }
    d.remove_game(id);
}

impl Events {
    /// The accepts a replica began and did not finish (it fell over between the challenge taken
    /// and its game accepted): each finished, its game made once; one that cannot be finished
    /// within [`ACCEPT_GIVEN_UP_MS`] expires, visibly.
    async fn finish_accepts<G: LobbyGames>(
        &self,
        state: &super::state::LobbyState,
        now: u64,
        games: &G,
    ) -> Result<(), LobbyError> {
        let stuck: Vec<super::Challenge> = (state.challenges.values())
            .filter(|c| {
                matches!(c.state, ChallengeState::Accepting { .. })
                    && now >= c.closed_unix_ms + ACCEPT_LEFT_MS
            })
            .cloned()
            .collect();
        for c in stuck {
            if let Err(e) = self.finish_accept(&c, games).await {
                tracing::warn!(challenge = %c.id, error = %e, "an accept left unfinished is not finished yet");
                if now >= c.closed_unix_ms + ACCEPT_GIVEN_UP_MS {
                    self.0
                        .lobby
                        .change(|d| {
                            if let Some(c) = d.state.challenges.get(&c.id).cloned()
                                && matches!(c.state, ChallengeState::Accepting { .. })
                            {
                                d.close(c, ChallengeState::Expired);
                            }
                            Ok(())
                        })
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// Settle the lobby's game `id` if it is one and is over.
    async fn settle_game(&self, id: &str) -> Result<(), LobbyError> {
        if !self.0.lobby.read().await?.games.contains_key(id) {
            return Ok(());
        }
        let snapshot = self.0.host.snapshot(id).await?;
        let Some(outcome) = snapshot.game().outcome() else { return Ok(()) };
        let voided = outcome.reason == dawgref_engine::game::EndReason::Voided;
        let (scores, winners) = (outcome.scores.clone(), outcome.winners.clone());
        self.0
            .lobby
            .change(|d| {
                settle(d, id, &scores, &winners, voided);
                Ok(())
            })
            .await
    }

    /// The lobby's life beside the server's: each game that ends here settled as it ends, and
    /// every [`ROUND`] the open challenges past their time expired, answered ones an hour old
    /// let go, and games whose end went unheard settled. Ends on shutdown.
    pub async fn run_lobby<G: LobbyGames>(
        self,
        mut ended: tokio::sync::broadcast::Receiver<uuid::Uuid>,
        games: G,
    ) {
        let mut shutdown = self.0.host.shutdown();
        let mut round = tokio::time::interval(ROUND);
        let mut unheard = true;
        let mut rounds = 0u64;
        loop {
            tokio::select! {
                id = ended.recv() => match id {
                    Ok(id) => {
                        if let Err(e) = self.settle_game(&id.to_string()).await {
                            tracing::warn!(game = %id, error = %e, "a lobby game's end waits for the next round");
                            unheard = true;
                        }
                    }
                    Err(RecvError::Lagged(_)) => unheard = true,
                    Err(RecvError::Closed) => return,
                },
                _ = round.tick() => {
                    // Every half minute, the games in play looked at whatever was heard: one
                    // whose end another replica heard before it died is settled here.
                    rounds += 1;
                    unheard |= rounds.is_multiple_of(SWEEP_ROUNDS);
                    if let Err(e) = self.lobby_round(std::mem::take(&mut unheard), &games).await {
                        tracing::warn!(error = %e, "the lobby's round failed; the next one tries again");
                        unheard = true;
                    }
                }
                _ = shutdown.changed() => return,
            }
        }
    }

    /// One round: expire, let go, and (when `unheard`) settle every game that ended unheard.
    async fn lobby_round<G: LobbyGames>(&self, unheard: bool, games: &G) -> Result<(), LobbyError> {
        let state = self.0.lobby.read().await?;
        let now = super::now_unix_ms();
        // The presence of the bots streaming here renewed before it runs out.
        let lobby = &self.0.lobby;
        let renew: Vec<String> = (lobby.streaming_here().into_iter())
            .filter(|bot| {
                let until =
                    state.present.get(bot).and_then(|on| on.get(&lobby.replica)).copied().unwrap_or(0);
                until < now + super::state::RENEW_BEFORE_MS
            })
            .collect();
        if !renew.is_empty() {
            self.0
                .lobby
                .change(|d| {
                    for bot in &renew {
                        if lobby.streams_here(bot) {
                            d.present(bot, &lobby.replica, d.now_ms + super::state::PRESENCE_MS);
                        }
                    }
                    Ok(())
                })
                .await?;
        }
        self.finish_accepts(&state, now, games).await?;
        let closed = |c: &super::Challenge| {
            !matches!(c.state, ChallengeState::Open | ChallengeState::Accepting { .. })
        };
        let due = state.challenges.values().any(|c| {
            (c.state == ChallengeState::Open && now >= c.expires_unix_ms)
                || (closed(c) && now >= c.closed_unix_ms + CLOSED_KEPT_MS)
        });
        if due {
            self.0
                .lobby
                .change(|d| {
                    let now = d.now_ms;
                    let all: Vec<_> = d.state.challenges.values().cloned().collect();
                    for c in all {
                        if c.state == ChallengeState::Open && now >= c.expires_unix_ms {
                            d.close(c, ChallengeState::Expired);
                        } else if closed(&c) && now >= c.closed_unix_ms + CLOSED_KEPT_MS {
                            d.remove_challenge(&c.id);
                        }
                    }
                    Ok(())
                })
                .await?;
        }
        if unheard {
            for id in state.games.keys() {
                match self.settle_game(id).await {
                    Ok(()) => {}
                    // A game made but gone (its store lost it): nothing to wait for.
                    Err(LobbyError::Host(dawgref_host::HostError::NoGame(_))) => {
                        self.0
                            .lobby
                            .change(|d| {
                                d.remove_game(id);
                                Ok(())
                            })
                            .await?;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::rated_spread;

    #[test]
    fn a_game_won_against_the_scores_is_rated_a_win_by_one() {
        assert_eq!(rated_spread(&[400, 350], &[0]), Some(50));
        assert_eq!(rated_spread(&[300, 350], &[0]), Some(1), "seat 0 won on time while behind");
        assert_eq!(rated_spread(&[400, 350], &[1]), Some(-1), "seat 1 won on time while behind");
        assert_eq!(rated_spread(&[350, 350], &[0, 1]), Some(0));
        assert_eq!(rated_spread(&[1, 2, 3], &[2]), None);
    }
}
