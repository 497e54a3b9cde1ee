//! A player's token made anew (ReissuePlayerToken), for a player who lost theirs, or a bot's
//! entered by its account when its token is rotated (RotateBotToken): the old one stops working
//! at once, on the tournament's page and in every game of theirs in play (each seat given the
//! new token through its session here, or at its owner through `Owners`).

use super::change::{Answer, Read, Retry};
use super::command::Outcome;
use super::direct::Owners;
use super::event::{Actor, EventKind};
use super::record::Record;
use crate::Events;
use crate::error::EventsError;
use dawgref_engine::game::GameError;
use dawgref_host::{HostError, Route};
use dawgref_tournament::PlayerId;

/// A rotation's answer in each tournament: nothing (it is not kept: a rotation has no request id).
struct Done;

impl Answer for Done {
    fn write(&self) -> Vec<u8> {
        Vec::new()
    }

    fn read(_: &[u8]) -> Result<Done, String> {
        Ok(Done)
    }
}

impl Events {
    /// ReissuePlayerToken: player `number` (from 1) of `division` of tournament `slug` keeps
    /// `token` (made by the caller, shown once) in place of the one they had, by `actor`, once
    /// per `request_id`; answered with `answer` of the tournament it left. A bot has no token;
    /// a bot entered by its account has its own (RotateBotToken makes it anew).
    #[allow(clippy::too_many_arguments)]
    pub async fn reissue_token<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        division: &str,
        number: u32,
        token: &str,
        owners: &impl Owners,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        actor.directs("ReissuePlayerToken")?;
        let retry = Retry { method: "ReissuePlayerToken", request_id };
        self.token_anew(slug, actor, retry, division, number, token, false, owners, answer).await
    }

    /// The bot `account`'s new `token` given to it wherever it is entered by its account: in every
    /// tournament, its player's token and its seats in their games in play (a rotation by
    /// `actor`: a director, or the bot itself, then the player it is in each).
    pub(crate) async fn account_token_anew(
        &self,
        account: &str,
        actor: Option<&Actor>,
        token: &str,
        owners: &impl Owners,
    ) -> Result<(), EventsError> {
        for record in self.all().await? {
            for d in record.division_ids() {
                let players = record.division_at(d).players();
                let Some(number) = players.iter().position(|p| p.account.as_deref() == Some(account)) else {
                    continue;
                };
                // Given it already (a rotation looks again once the account has it).
                if record.entry(d).tokens().get(number).copied().flatten() == Some(dawgref_host::hash(token))
                {
                    continue;
                }
                let (number, division) = (number as u32 + 1, record.division_at(d).name());
                let player = record.player_actor(d, PlayerId(number - 1));
                let actor = actor.unwrap_or(&player);
                let retry = Retry { method: "RotateBotToken", request_id: "" };
                let done = |_: &Record, _| Done;
                self.token_anew(record.slug(), actor, retry, division, number, token, true, owners, done)
                    .await?;
            }
        }
        Ok(())
    }

    /// Player `number` of `division` given `token`: each of their games in play first, then the
    /// tournament (`account`: the bot's account's token made anew, which only a rotation does).
    #[allow(clippy::too_many_arguments)]
    async fn token_anew<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        retry: Retry<'_>,
        division: &str,
        number: u32,
        token: &str,
        account: bool,
        owners: &impl Owners,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        let held = self.hold(slug).await;
        let (Read { record: rec, .. }, kept) = self.kept::<A>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let d = rec.division(division)?;
        rec.player(d, number)?;
        let player = PlayerId(number - 1);
        let entered = &rec.division_at(d).players()[player.index()];
        if let Some(level) = &entered.bot {
            let name = rec.player_name(d, number).to_string();
            return Err(EventsError::BotHasNoToken { player: number, name, level: level.clone() });
        }
        if entered.account.is_some() && !account {
            let name = rec.player_name(d, number).to_string();
            return Err(EventsError::AccountHasItsToken { player: number, name });
        }
        // Each game of theirs in play: their seat in it given the new token first, so that no
        // moment has the tournament on the new token and a game on the old.
        let entry = rec.entry(d);
        for k in entry.round_ids().filter(|&k| entry.started(k)) {
            for (i, line) in entry.pairings(k).filter(|(_, line)| !line.is_done()) {
                let (Some(seat), Some(game_id)) =
                    (line.players().position(|p| p == player), entry.game_id(k, i))
                else {
                    continue;
                };
                self.new_seat_token(owners, game_id, seat, token).await?;
            }
        }
        let hash = dawgref_host::hash(token);
        self.once(&held, retry, |rec| {
            rec.by = actor.name().to_string();
            let d = rec.division(division)?;
            rec.player(d, number)?;
            rec.divisions[d].tokens[player.index()] = Some(hash);
            let name = rec.player_name(d, number);
            let detail = if account {
                format!("{name}'s token made anew (its bot account's, rotated)")
            } else {
                format!("{name}'s token made anew")
            };
            rec.event(EventKind::TokenReissued, division, 0, 0, detail).players = vec![number];
            Ok(answer(rec, Outcome::Player { division: d, player }))
        })
        .await
    }

    /// Seat `seat` of game `game_id` given `token`: on its session here, or at its owner. A game
    /// over keeps its seats' tokens (nothing is left to play in it).
    pub(crate) async fn new_seat_token(
        &self,
        owners: &impl Owners,
        game_id: &str,
        seat: usize,
        token: &str,
    ) -> Result<(), EventsError> {
        let host = &self.0.host;
        let given = match host.route(game_id, false).await? {
            Route::Local(session) => {
                let hash = dawgref_host::hash(token);
                host.on_session(game_id, session, |s| async move { s.new_token(seat, hash).await }).await
            }
            Route::Remote(owner) => return owners.new_token(&owner, game_id, seat, token).await,
        };
        match given {
            Ok(()) | Err(HostError::Game(GameError::GameOver)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
