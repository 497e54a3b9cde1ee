//! The lobby's side of a bots' arena, a tournament that enters registered bots by their
//! accounts (they play through the public API with their own tokens, not as the server's bots):
//! the token an account's entry plays with, the games of a round told on each bot's stream, and
//! each game's end once its result is entered (`tournaments::results`). (A rotated token reaches
//! the bot's tournaments through `tournaments::tokens`.)

use super::{BotEventKind, TimeClass};
use crate::error::EventsError;
use crate::{DivisionId, Events, Record};
use dawgref_engine::rules::RulesetKind;
use dawgref_host::TokenHash;
use dawgref_tournament::{PairingId, PlayerId, RoundId};

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
        self.tell_bots(&told, "a round's games").await;
    }

    /// Each event told on its bot's stream, in one change; a failure logged as `what` untold.
    async fn tell_bots(&self, told: &[(String, BotEventKind)], what: &str) {
        if told.is_empty() {
            return;
        }
        let result = self
            .0
            .lobby
            .change(|draft| {
                for (bot, kind) in told {
                    draft.tell(bot, kind.clone());
                }
                Ok(())
            })
            .await;
        if let Err(e) = result {
            tracing::warn!(error = %e, "{what} were not told to the bots");
        }
    }

    /// The end of game `game` of round `k`'s line `i` of division `d` (its result just entered
    /// from it), told to each bot that played it by its account: the scores seat by seat, the
    /// winners, the tournament's ruleset and time class (no rating: a tournament's are its own).
    /// A failure to tell is logged: the result is the tournament's, on WatchTournament.
    pub(crate) async fn tell_game_end(
        &self,
        record: &Record,
        d: DivisionId,
        k: RoundId,
        i: PairingId,
        game: &str,
        outcome: &dawgref_engine::game::Outcome,
    ) {
        let Some(Some(line)) = record.entry(d).lines(k).get(i.index()).map(|l| match *l {
            dawgref_tournament::Pairing::Game { first, second, .. } => Some([first, second]),
            _ => None,
        }) else {
            return;
        };
        let players = record.division_at(d).players();
        // As the game's constructor reads the settings: English unless they name one.
        let ruleset = record.game().ruleset.unwrap_or_else(RulesetKind::english).name().to_string();
        let time_class = TimeClass::of(record.game());
        let told: Vec<(String, BotEventKind)> = (line.iter().enumerate())
            .filter_map(|(seat, p)| {
                let account = players.get(p.index())?.account.clone()?;
                let kind = BotEventKind::GameEnded {
                    game: game.to_string(),
                    seat: seat as u32,
                    scores: outcome.scores.clone(),
                    winners: outcome.winners.iter().map(|&w| w as u32).collect(),
                    ruleset: ruleset.clone(),
                    time_class,
                    rating: None,
                };
                Some((account, kind))
            })
            .collect();
        self.tell_bots(&told, &format!("game {game}'s end and its scores")).await;
    }
}
