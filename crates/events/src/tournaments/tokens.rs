//! A player's token made anew (ReissuePlayerToken), for a player who lost theirs: the old one
//! stops working at once, on the tournament's page and in every game of theirs in play (each
//! seat given the new token through its session here, or at its owner through `Owners`).

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

impl Events {
    /// ReissuePlayerToken: player `number` (from 1) of `division` of tournament `slug` keeps
    /// `token` (made by the caller, shown once) in place of the one they had, by `actor`, once
    /// per `request_id`; answered with `answer` of the tournament it left. A bot has no token.
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
        let held = self.hold(slug).await;
        let (Read { record: rec, .. }, kept) = self.kept::<A>(&held, retry).await?;
        if let Some(answer) = kept {
            return answer;
        }
        let d = rec.division(division)?;
        rec.player(d, number)?;
        let player = PlayerId(number - 1);
        if let Some(level) = &rec.division_at(d).players()[player.index()].bot {
            let name = rec.player_name(d, number).to_string();
            return Err(EventsError::BotHasNoToken { player: number, name, level: level.clone() });
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
            let detail = format!("{}'s token made anew", rec.player_name(d, number));
            rec.event(EventKind::TokenReissued, division, 0, 0, detail).players = vec![number];
            Ok(answer(rec, Outcome::Player { division: d, player }))
        })
        .await
    }

    /// Seat `seat` of game `game_id` given `token`: on its session here, or at its owner. A game
    /// over keeps its seats' tokens (nothing is left to play in it).
    async fn new_seat_token(
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
