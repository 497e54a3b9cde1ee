//! What the lobby answers without changing: a bot as anyone sees it ([`BotProfile`], with its
//! ratings), the bot a token names, a challenge as it stands, and the leaderboard.

use super::state::{LobbyState, rating_key_parts};
use super::{Accepts, BotAccount, Challenge, ChallengeState, LobbyError, Rated, Rating, TimeClass};
use crate::Events;
use dawgref_host::TokenHash;

/// A bot as anyone may see it: its account without its token, whether it is online here, and its
/// ratings.
#[derive(Clone, Debug)]
pub struct BotProfile {
    pub name: String,
    pub owner: String,
    pub accepts: Accepts,
    pub suspended: bool,
    pub online: bool,
    pub created_unix_ms: u64,
    pub ratings: Vec<Rated>,
}

/// A rating kept under `key` as the leaderboard names it: whose (a bot's or a person's name), the
/// ruleset and the time class.
fn rated_of(key: &str, rating: Rating) -> Option<Rated> {
    let (player, ruleset, class) = rating_key_parts(key)?;
    let time_class = TimeClass::ALL.into_iter().find(|c| c.name() == class)?;
    let (is_bot, name) = match player.split_once(':')? {
        ("bot", name) => (true, name),
        (_, name) => (false, name),
    };
    Some(Rated { player: name.to_string(), is_bot, ruleset: ruleset.to_string(), time_class, rating })
}

impl LobbyState {
    /// A bot as anyone may see it, `online` or not.
    pub(super) fn profile(&self, bot: &BotAccount, online: bool) -> BotProfile {
        let key = format!("bot:{}", bot.name);
        let ratings = (self.ratings.iter())
            .filter(|(k, _)| rating_key_parts(k).is_some_and(|(player, _, _)| player == key))
            .filter_map(|(k, r)| rated_of(k, *r))
            .collect();
        BotProfile {
            name: bot.name.clone(),
            owner: bot.owner.clone(),
            accepts: bot.accepts.clone(),
            suspended: bot.suspended,
            online,
            created_unix_ms: bot.created_unix_ms,
            ratings,
        }
    }
}

impl Events {
    /// ListBots: every bot, by name, with whether it is online here.
    pub async fn bots(&self) -> Result<Vec<BotProfile>, LobbyError> {
        let state = self.0.lobby.read().await?;
        let now = super::now_unix_ms();
        Ok(state
            .bots
            .values()
            .map(|b| state.profile(b, self.0.lobby.is_online(&state, &b.name, now)))
            .collect())
    }

    /// The bot a token makes its caller.
    pub async fn bot_named_by(&self, hash: &TokenHash) -> Result<BotAccount, LobbyError> {
        let state = self.0.lobby.read().await?;
        state.bot_of(hash).cloned()
    }

    /// A challenge as it stands (an open one past its time is shown expired, as the sweep will
    /// write it).
    pub async fn challenge_of(&self, id: &str) -> Result<Challenge, LobbyError> {
        let state = self.0.lobby.read().await?;
        let mut c = state.challenge(id)?.clone();
        if c.state == ChallengeState::Open && super::now_unix_ms() >= c.expires_unix_ms {
            c.state = ChallengeState::Expired;
            c.closed_unix_ms = c.expires_unix_ms;
        }
        Ok(c)
    }

    /// ListRatings: the leaderboard of a ruleset and time class (None: every one), best first,
    /// bots and people alike.
    pub async fn leaderboard(
        &self,
        ruleset: Option<&str>,
        class: Option<TimeClass>,
    ) -> Result<Vec<Rated>, LobbyError> {
        let state = self.0.lobby.read().await?;
        let mut all: Vec<Rated> = (state.ratings.iter())
            .filter_map(|(k, r)| rated_of(k, *r))
            .filter(|r| {
                ruleset.is_none_or(|rules| rules == r.ruleset) && class.is_none_or(|c| c == r.time_class)
            })
            .collect();
        all.sort_by(|a, b| b.rating.rating.total_cmp(&a.rating.rating).then_with(|| a.player.cmp(&b.player)));
        Ok(all)
    }
}
