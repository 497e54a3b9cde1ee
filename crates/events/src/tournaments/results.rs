//! Results that enter by themselves: a game of a tournament that ends here is entered in its
//! round at once (`follow_results`, from the host's ended games); one that ended elsewhere (on
//! another replica, or while this server was down) is entered the next time the tournament is
//! read for its standings (`reconcile`). Either way the game's end, durable in its log, is the
//! fact, and its entry is made from it at most once (a pairing with its result is left alone).
//! And WatchTournament's stream.

use super::event::{Actor, TournamentEvent};
use super::held::GameLink;
use super::record::{self, DivisionId, Record, Source};
use crate::Events;
use crate::error::EventsError;
use dawgref_host::Residence;
use dawgref_tournament::{Division, Pairing, PairingId, RoundId};
use std::collections::HashMap;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// How often an open WatchTournament stream looks again at the delay of a result it holds back
/// (a broadcast changes on every replica within a second).
const HELD_LOOK: Duration = Duration::from_secs(1);

/// How often an open WatchTournament stream reads its tournament again, for what another
/// replica changed.
const WATCH_POLL: Duration = Duration::from_secs(2);

impl Events {
    /// Enter the result of every tournament game that ends on this server, until shutdown.
    pub async fn follow_results(self, mut ended: tokio::sync::broadcast::Receiver<uuid::Uuid>) {
        let mut shutdown = self.0.host.shutdown();
        loop {
            let id = tokio::select! {
                id = ended.recv() => id,
                _ = shutdown.changed() => return,
            };
            match id {
                Ok(id) => {
                    if let Err(e) = self.enter_game(id).await {
                        tracing::warn!(game = %id, error = %e, "a tournament game's result waits for the next reading");
                    }
                }
                // Missed some: every tournament is reconciled when next read.
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "tournament results wait for the next reading")
                }
                Err(RecvError::Closed) => return,
            }
        }
    }

    /// Enter one ended game's result, if it is a tournament's and its pairing has none yet, by
    /// the game ([`Actor::Game`]) through the one door a director's result takes. A game a
    /// director's RecordResult is ending is no exception: that call holds the tournament until
    /// its result is written, so this finds the pairing's result in and enters nothing.
    async fn enter_game(&self, game: uuid::Uuid) -> Result<(), EventsError> {
        let id = game.to_string();
        let snapshot = self.0.host.snapshot(&id).await?;
        let Some(GameLink { slug, .. }) = GameLink::of(&snapshot) else { return Ok(()) };
        let Some(result) = snapshot.game().outcome().and_then(record::game_result) else { return Ok(()) };
        // Looked at before the hold (as last read or written here: a version read, no more): a
        // result in already is not waited for.
        let (record, _) = self.load(&slug).await?;
        if !waits_for(&record, &id) {
            return self.review_again(&slug, game).await;
        }
        let held = self.hold(&slug).await;
        // Again under the hold: a call of this replica's that held it meanwhile (RecordResult
        // ending this very game) may have entered it; then nothing is written.
        let (record, _) = self.load(&slug).await?;
        if !waits_for(&record, &id) {
            drop(held);
            return self.review_again(&slug, game).await;
        }
        let entered = self
            .change(&held, |rec| {
                rec.by = Actor::Game.name().to_string();
                enter(rec, &id, result)
            })
            .await?;
        drop(held);
        if entered
            && let (Some((d, k, i)), Some(outcome)) = (line_of(&record, &id), snapshot.game().outcome())
        {
            self.tell_game_end(&record, d, k, i, &id, outcome).await;
        }
        Ok(())
    }
}

/// Where the game `game_id` is paired: (division, round, line).
fn line_of(rec: &Record, game_id: &str) -> Option<(DivisionId, RoundId, PairingId)> {
    rec.divisions.iter().enumerate().find_map(|(d, entry)| {
        entry.games.iter().enumerate().find_map(|(k, games)| {
            let i = games.as_ref()?.iter().position(|g| g == game_id)?;
            Some((DivisionId(d), RoundId::at(k), PairingId::at(i)))
        })
    })
}

/// Whether the pairing whose game is `game_id` waits for its result.
fn waits_for(rec: &Record, game_id: &str) -> bool {
    line_of(rec, game_id).is_some_and(|(d, k, i)| !rec.divisions[d].line(k, i).is_some_and(Pairing::is_done))
}

/// Enter `result` for the pairing whose game is `game_id`, unless it has its result already.
fn enter(
    rec: &mut Record,
    game_id: &str,
    result: dawgref_tournament::GameResult,
) -> Result<bool, EventsError> {
    let Some((d, k, i)) = line_of(rec, game_id) else { return Ok(false) };
    if rec.divisions[d].line(k, i).is_some_and(Pairing::is_done) {
        return Ok(false);
    }
    rec.enter_result(d, k, i, result, Source::Game)?;
    Ok(true)
}

/// Enter the results of the tournament's games that ended without this server hearing it: a
/// game neither held here nor over yet is left alone. The tournament as it then stands.
impl Events {
    pub async fn reconcile(&self, slug: &str) -> Result<Record, EventsError> {
        let (record, _) = self.load(slug).await?;
        let mut found = Vec::new();
        for entry in &record.divisions {
            for (k, games) in entry.round_ids().zip(&entry.games) {
                let waiting = games.iter().flatten().enumerate().filter(|(i, game)| {
                    !game.is_empty() && !entry.line(k, PairingId::at(*i)).is_some_and(Pairing::is_done)
                });
                for (_, game) in waiting {
                    let Ok(id) = uuid::Uuid::parse_str(game) else { continue };
                    // A game held here tells of its end itself.
                    if self.0.host.residence(&id) == Residence::Live {
                        continue;
                    }
                    let Ok(snapshot) = self.0.host.snapshot(game).await else { continue };
                    if let Some(result) = snapshot.game().outcome().and_then(record::game_result) {
                        found.push((game.clone(), result));
                    }
                }
            }
        }
        if found.is_empty() {
            return Ok(record);
        }
        let held = self.hold(slug).await;
        self.change(&held, |rec| {
            rec.by = Actor::Game.name().to_string();
            for (id, result) in &found {
                enter(rec, id, *result)?;
            }
            Ok(rec.clone())
        })
        .await
    }

    /// WatchTournament: the events from `from`, then each as it comes (heard here, or read again
    /// every [`WATCH_POLL`] for another replica's), until the caller leaves or the server stops. To a
    /// spectator (`held`), a result comes no sooner than a broadcast's delay of its games after it
    /// came in (and what follows it, after it). The last of a division's results among the events
    /// sent together carries the division as of it, as the caller may see it.
    pub async fn watch(
        &self,
        slug: String,
        from: u64,
        held: bool,
    ) -> Result<tokio_stream::wrappers::ReceiverStream<Result<Watched, EventsError>>, EventsError> {
        // Subscribe before the first read, so no change falls between them.
        let mut changes = self.0.changes.subscribe();
        let first = self.tournament_events(&slug, from).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        let layer = self.clone();
        tokio::spawn(async move {
            let mut next = from;
            let mut first = Some(first);
            let mut shutdown = layer.0.host.shutdown();
            loop {
                let events = match first.take() {
                    Some(events) => events,
                    None => match layer.tournament_events(&slug, next).await {
                        Ok(events) => events,
                        Err(e) => {
                            let _ = tx.send(Err(e)).await;
                            return;
                        }
                    },
                };
                let from = next;
                // A player's report is the directors' alone.
                let events: Vec<TournamentEvent> = events
                    .into_iter()
                    .filter(|e| e.number >= from && !(held && e.is_directors_only()))
                    .collect();
                // Each division's last result among these: it carries the standings.
                let mut last_results = HashMap::new();
                for e in events.iter().filter(|e| e.is_result()) {
                    last_results.insert(e.division.clone(), e.number);
                }
                for e in events {
                    // The delay as it stands each time it is looked at: a broadcast ended or made
                    // shorter releases what it held at once.
                    loop {
                        let delay = if held { layer.delay_of(&slug, &e) } else { 0 };
                        let wait = e.unix_ms.saturating_add(delay).saturating_sub(dawgref_host::unix_ms());
                        if wait == 0 {
                            break;
                        }
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_millis(wait).min(HELD_LOOK)) => {}
                            _ = tx.closed() => return,
                            _ = shutdown.changed() => return,
                        }
                    }
                    next = e.number + 1;
                    let division = match last_results.get(&e.division) {
                        Some(&last) if last == e.number => {
                            layer.division_seen(&slug, &e.division, held).await
                        }
                        _ => None,
                    };
                    if tx.send(Ok(Watched { event: e, division })).await.is_err() {
                        return;
                    }
                }
                // Wait for a change to this tournament, the poll, the caller leaving or shutdown.
                let wait = async {
                    loop {
                        match changes.recv().await {
                            Ok(s) if s == slug => return,
                            Ok(_) => {}
                            Err(RecvError::Lagged(_)) => return,
                            Err(RecvError::Closed) => std::future::pending::<()>().await,
                        }
                    }
                };
                tokio::select! {
                    _ = wait => {}
                    _ = tokio::time::sleep(WATCH_POLL) => {}
                    _ = tx.closed() => return,
                    _ = shutdown.changed() => return,
                }
            }
        });
        Ok(tokio_stream::wrappers::ReceiverStream::new(rx))
    }
}

/// An event as WatchTournament sends it.
pub struct Watched {
    pub event: TournamentEvent,
    /// The event's division as of it, on the last of its results sent together.
    pub division: Option<Division>,
}

impl Events {
    /// Division `name` of tournament `slug` as it stands now, to a spectator if `held` (None:
    /// not there, or not read).
    async fn division_seen(&self, slug: &str, name: &str, held: bool) -> Option<Division> {
        let (mut record, _) = self.load(slug).await.ok()?;
        if held {
            record = self.spectators(record, None).await.ok()?;
        }
        let d = record.division(name).ok()?;
        Some(record.division_at(d).clone())
    }
}
