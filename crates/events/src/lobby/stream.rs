//! A bot's stream of events: what is kept from the number asked, then each new event as it is
//! written here (or, written by another replica, found within [`POLL`]). While a stream is open
//! its bot is online on this replica.

use super::state::Told;
use super::{BotEvent, LobbyActor, LobbyError};
use crate::Events;
use futures_util::Stream;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// How often a stream looks for events another replica wrote.
const POLL: Duration = Duration::from_secs(2);

/// A bot's open stream: its events in order; its bot online until it is dropped.
pub struct BotEvents {
    events: Pin<Box<dyn Stream<Item = Result<BotEvent, LobbyError>> + Send>>,
    _online: Online,
}

impl Stream for BotEvents {
    type Item = Result<BotEvent, LobbyError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.events.as_mut().poll_next(cx)
    }
}

/// A bot counted online while this lives.
struct Online {
    events: Events,
    bot: String,
}

impl Drop for Online {
    fn drop(&mut self) {
        let last = self.events.0.lobby.closed(&self.bot);
        // Its last stream here closed: its presence let go (unless one opened meanwhile).
        if last && let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (events, bot) = (self.events.clone(), self.bot.clone());
            runtime.spawn(async move {
                let lobby = &events.0.lobby;
                let gone = lobby
                    .change(|d| {
                        let mine =
                            d.state.present.get(&bot).is_some_and(|on| on.contains_key(&lobby.replica));
                        if !lobby.streams_here(&bot) && mine {
                            d.present(&bot, &lobby.replica, 0);
                        }
                        Ok(())
                    })
                    .await;
                if let Err(e) = gone {
                    tracing::warn!(bot = %bot, error = %e, "a bot's presence runs out by itself");
                }
            });
        }
    }
}

struct Reading {
    events: Events,
    bot: String,
    /// The token the stream was opened with: it ends once that is no longer the bot's.
    hash: dawgref_host::TokenHash,
    ended: bool,
    next: u64,
    kept: VecDeque<BotEvent>,
    /// Whether every event up to `next` is known (heard from this replica's changes, in order),
    /// so the store need not be read before waiting; false after a gap, a lag, or a wait that
    /// heard nothing (another replica's events are found in the store).
    current: bool,
    /// Whether the account must be looked at again (a suspension or a new token may end it).
    look: bool,
    told: tokio::sync::broadcast::Receiver<Arc<Told>>,
}

impl Events {
    /// WatchBotEvents: the calling bot's events from number `from` on (0: from the next one
    /// written), kept ones first. UNAUTHENTICATED for a token no bot has, FAILED_PRECONDITION for
    /// a suspended bot.
    pub async fn bot_events(&self, by: &LobbyActor, from: u64) -> Result<BotEvents, LobbyError> {
        let LobbyActor::Bot(hash) = by else {
            return Err(LobbyError::Unknown("a bot's stream needs its token".into()));
        };
        let state = self.0.lobby.read().await?;
        let bot = state.bot_of(hash)?;
        if bot.suspended {
            return Err(LobbyError::Precondition(format!("{} is suspended", bot.name)));
        }
        let next = if from == 0 { bot.last_event + 1 } else { from };
        let name = bot.name.clone();
        // Heard from here on; what was written between the read and now is in the store, which
        // the stream reads first.
        let told = self.0.lobby.opened(&name);
        let online = Online { events: self.clone(), bot: name.clone() };
        // Online on every replica: its presence written before the stream is answered.
        let lobby = &self.0.lobby;
        lobby
            .change(|d| {
                d.present(&name, &lobby.replica, d.now_ms + super::state::PRESENCE_MS);
                Ok(())
            })
            .await?;
        let reading = Reading {
            events: self.clone(),
            bot: name,
            hash: *hash,
            ended: false,
            next,
            kept: VecDeque::new(),
            current: false,
            look: true,
            told,
        };
        let events = futures_util::stream::unfold(reading, |mut r| async move {
            loop {
                if r.ended {
                    return None;
                }
                if let Some(event) = r.kept.pop_front() {
                    r.next = event.number + 1;
                    return Some((Ok(event), r));
                }
                // A bot suspended, or its token rotated, since the stream opened: it ends.
                if std::mem::take(&mut r.look) {
                    match r.events.0.lobby.read().await {
                        Ok(state) => {
                            let gone = match state.bots.get(&r.bot) {
                                Some(bot) if bot.token_hash != r.hash => Some(LobbyError::Unknown(format!(
                                    "{}'s token was rotated: open the stream with the new one",
                                    r.bot
                                ))),
                                Some(bot) if bot.suspended => {
                                    Some(LobbyError::Precondition(format!("{} is suspended", r.bot)))
                                }
                                _ => None,
                            };
                            if let Some(e) = gone {
                                r.ended = true;
                                return Some((Err(e), r));
                            }
                        }
                        Err(e) => return Some((Err(e.into()), r)),
                    }
                }
                if !r.current {
                    match r.events.0.lobby.events(&r.bot, r.next).await {
                        Ok(events) => {
                            r.current = true;
                            if !events.is_empty() {
                                r.kept.extend(events);
                                continue;
                            }
                        }
                        Err(e) => return Some((Err(e.into()), r)),
                    }
                }
                let mut shutdown = r.events.0.host.shutdown();
                // Wait for what this replica's changes tell the bot, or a while for another
                // replica's events.
                tokio::select! {
                    told = r.told.recv() => match told {
                        Ok(told) if told.account != Some((r.hash, false)) => {
                            r.look = true;
                            r.current = false;
                        }
                        Ok(told) => {
                            // Its events from the next one on, served as written: no store read
                            // unless they do not follow on.
                            let fresh = told.events.iter().filter(|e| e.number >= r.next);
                            for (event, number) in fresh.zip(r.next..) {
                                if event.number != number {
                                    r.current = false;
                                    break;
                                }
                                r.kept.push_back(event.clone());
                            }
                        }
                        Err(RecvError::Lagged(_)) => {
                            r.current = false;
                            r.look = true;
                        }
                        Err(RecvError::Closed) => return None,
                    },
                    _ = tokio::time::sleep(POLL) => {
                        r.current = false;
                        r.look = true;
                    }
                    _ = shutdown.changed() => return None,
                }
            }
        });
        Ok(BotEvents { events: Box::pin(events), _online: online })
    }
}
