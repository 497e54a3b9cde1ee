//! The lobby's side of a bots' arena, a tournament that enters registered bots by their
//! accounts (they play through the public API with their own tokens, not as the server's bots):
//! the token an account's entry plays with, and the games of a round told on each bot's stream.
//! (A rotated token reaches the bot's tournaments through `tournaments::tokens`.)

use super::BotEventKind;
use crate::error::EventsError;
use crate::{DivisionId, Events, Record};
use dawgref_host::TokenHash;
use dawgref_tournament::{PlayerId, RoundId};

/// A game of a round as StartRound made it: its players in seat order, and its id.
pub(crate) type RoundGame = ([PlayerId; 2], String);

impl Events {
    /// The token a player entered by the bot `name`'s account plays with: the account's own.
    /// NOT_FOUND for no such bot; FAILED_PRECONDITION for a suspended one.
    pub(crate) async fn account_token(&self, name: &str) -> Result<TokenHash, EventsError> {
        let state = self.0.lobby.read().await?;
        let Some(bot) = state.bots.get(name) else {
            return Err(EventsError::NotFound(format!(
                "no bot named {:?} (BotsService.RegisterBot registers one)",
                dawgref_engine::text::clip(name)
            )));
        };
        if bot.suspended {
            return Err(EventsError::BotSuspended { name: name.to_string() });
        }
        Ok(bot.token_hash)
    }

    /// Each game of round `k` of division `d` of `record` (just started) that a bot plays by its
    /// account, told on that bot's stream: the tournament, the round, the game, its seat and
    /// whom it plays. A failure to tell is logged, never the round's: the bot finds its game on
    /// the tournament (its token makes it the player).
    pub(crate) async fn tell_round(&self, record: &Record, d: DivisionId, k: RoundId, games: &[RoundGame]) {
        let players = record.division_at(d).players();
        let mut told = Vec::new();
        for (pair, game) in games {
            for seat in 0..2 {
                let (me, them) = (pair[seat], pair[1 - seat]);
                let Some(account) = &players[me.index()].account else { continue };
                let kind = BotEventKind::TournamentGame {
                    tournament: record.slug().to_string(),
                    division: record.division_at(d).name().to_string(),
                    round: k.number(),
                    game: game.clone(),
                    seat: seat as u32,
                    opponent: players[them.index()].name.clone(),
                    opponent_number: them.0 + 1,
                };
                told.push((account.clone(), kind));
            }
        }
        if told.is_empty() {
            return;
        }
        let result = self
            .0
            .lobby
            .change(|draft| {
                for (bot, kind) in &told {
                    draft.tell(bot, kind.clone());
                }
                Ok(())
            })
            .await;
        if let Err(e) = result {
            tracing::warn!(tournament = %record.slug(), round = k.number(), error = %e, "a round's games were not told to its bots");
        }
    }
}
