//! The limits a bot plays within: its games against bots in a UTC day (a count kept with its
//! account) and the challenges it may send (a bucket of a minute's worth, filled at the limit's
//! pace), the refusal of a game past the day's count, and GetBotLimits.

use super::state::LobbyState;
use super::{BotAccount, Challenge, Challenger, LIMIT_BOT_GAMES, LobbyActor, LobbyError};
use crate::Events;
use std::time::Duration;

pub(super) const DAY_MS: u64 = 86_400_000;
const MINUTE_MS: u64 = 60_000;

/// What a bot may still do now: games against bots left today (and when the day ends), and
/// challenges it may send at once (and when the next comes back: 0 when it has them all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotLimits {
    pub bot_games_left: u32,
    pub bot_games_reset_unix_ms: u64,
    pub challenges_left: u32,
    pub next_challenge_unix_ms: u64,
}

impl BotAccount {
    /// Games against bots begun today, as of `now_ms`.
    pub(super) fn games_on(&self, now_ms: u64) -> u32 {
        if self.day == now_ms / DAY_MS { self.games_today } else { 0 }
    }

    /// Challenges it may send at `now_ms`: its bucket filled at `per_minute` a minute since it
    /// was counted, to a minute's worth at most.
    pub(super) fn challenge_tokens(&self, now_ms: u64, per_minute: u32) -> f64 {
        let filled =
            now_ms.saturating_sub(self.counted_unix_ms) as f64 * f64::from(per_minute) / MINUTE_MS as f64;
        (self.challenge_tokens + filled).min(f64::from(per_minute))
    }

    /// How long until a whole challenge is in the bucket, holding `tokens`.
    pub(super) fn until_next_challenge(tokens: f64, per_minute: u32) -> Duration {
        if per_minute == 0 {
            return Duration::from_secs(3600);
        }
        // The part of a challenge missing before the next whole one.
        let missing = 1.0 - tokens.fract();
        Duration::from_millis((missing * MINUTE_MS as f64 / f64::from(per_minute)).ceil() as u64)
    }
}

impl Events {
    /// GetBotLimits: what the calling bot may still do now.
    pub async fn bot_limits(&self, by: &LobbyActor) -> Result<BotLimits, LobbyError> {
        let LobbyActor::Bot(hash) = by else {
            return Err(LobbyError::Unknown("this call needs a bot's token".into()));
        };
        let state = self.0.lobby.read().await?;
        let bot = state.bot_of(hash)?;
        let now = super::now_unix_ms();
        let limits = self.0.lobby.limits;
        let tokens = bot.challenge_tokens(now, limits.challenges_per_minute);
        // None a minute: never full, the next one an hour away (the refusal's own hint).
        let full = limits.challenges_per_minute > 0 && tokens >= f64::from(limits.challenges_per_minute);
        Ok(BotLimits {
            bot_games_left: limits.bot_games_per_day.saturating_sub(bot.games_on(now)),
            bot_games_reset_unix_ms: (now / DAY_MS + 1) * DAY_MS,
            challenges_left: tokens.floor() as u32,
            next_challenge_unix_ms: if full {
                0
            } else {
                now + BotAccount::until_next_challenge(tokens, limits.challenges_per_minute).as_millis()
                    as u64
            },
        })
    }
}

/// The accounts whose games against bots a challenge's game counts: both bots', or the bot
/// challenged by one of the server's (none for a person's challenge).
pub(super) fn bots_counted(c: &Challenge) -> Vec<&str> {
    match &c.from {
        Challenger::Bot(sender) => vec![sender.as_str(), c.to.as_str()],
        Challenger::Server(_) => vec![c.to.as_str()],
        Challenger::Person { .. } => vec![],
    }
}

/// A bot's games against bots left today, or the limit's refusal.
pub(super) fn bot_games_left(
    state: &LobbyState,
    name: &str,
    now: u64,
    per_day: u32,
) -> Result<u32, LobbyError> {
    let bot = state.bot(name)?;
    let played = bot.games_on(now);
    if played >= per_day {
        let next = (now / DAY_MS + 1) * DAY_MS;
        return Err(LobbyError::Limit {
            limit: LIMIT_BOT_GAMES,
            what: format!("{name} has begun its {per_day} games against bots today (UTC)"),
            retry: Duration::from_millis(next - now),
        });
    }
    Ok(per_day - played)
}
