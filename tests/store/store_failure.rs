//! A turn the store cannot make durable is not acknowledged and leaves no trace: the client gets
//! UNAVAILABLE, watchers see nothing, and the next request finds the game as it was at its last
//! durable turn (rebuilt from the log), ready to take the turn again.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::rules::RulesetKind;
use dawgref::server;
use dawgref::store::{
    BroadcastStore, DirectorKey, DirectorKeyStore, FinishedReview, GamePage, GameQuery, GameStore, Labels,
    LobbyChange, LobbyStore, MemoryStore, Pending, Reading, ReviewJob, ReviewJobStore, ReviewStore,
    StoreError, StoredBroadcast, StoredGame, StoredLobby, StoredTournament, TournamentChange,
    TournamentStore,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tonic::Code;
use uuid::Uuid;

/// A memory store whose appends fail while `failing` is set (a full disk, say).
#[derive(Default)]
struct FlakyStore {
    inner: MemoryStore,
    failing: AtomicBool,
}

impl GameStore for FlakyStore {
    fn create(
        &self,
        id: Uuid,
        created: u64,
        record: Vec<u8>,
        first: Vec<u8>,
        finished: bool,
        labels: Labels,
    ) -> Pending {
        self.inner.create(id, created, record, first, finished, labels)
    }

    fn append(&self, id: Uuid, seq: u64, row: Vec<u8>, finished: bool) -> Pending {
        if self.failing.load(Ordering::SeqCst) {
            return Pending::ready(Err(StoreError::Io("no space left on device".into())));
        }
        self.inner.append(id, seq, row, finished)
    }

    fn quarantine(&self, id: Uuid, reason: &str) -> Pending {
        self.inner.quarantine(id, reason)
    }

    fn unfinished(&self) -> Reading<'_, Vec<StoredGame>> {
        self.inner.unfinished()
    }

    fn load(&self, id: Uuid) -> Reading<'_, Option<StoredGame>> {
        self.inner.load(id)
    }

    fn games(&self, query: GameQuery) -> Reading<'_, GamePage> {
        self.inner.games(query)
    }
}

impl ReviewStore for FlakyStore {
    fn save_review(&self, id: Uuid, key: String, body: Vec<u8>) -> Pending {
        self.inner.save_review(id, key, body)
    }

    fn review(&self, id: Uuid, key: String) -> Reading<'_, Option<Vec<u8>>> {
        self.inner.review(id, key)
    }
}

impl DirectorKeyStore for FlakyStore {
    fn add_director_key(&self, key: DirectorKey) -> Pending {
        self.inner.add_director_key(key)
    }

    fn revoke_director_key(&self, name: String, at_unix_ms: u64) -> Pending {
        self.inner.revoke_director_key(name, at_unix_ms)
    }

    fn director_keys(&self) -> Reading<'_, Vec<DirectorKey>> {
        self.inner.director_keys()
    }
}

impl TournamentStore for FlakyStore {
    fn put_tournament(&self, change: TournamentChange) -> Pending {
        self.inner.put_tournament(change)
    }

    fn tournament_events(&self, slug: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        self.inner.tournament_events(slug, from)
    }

    fn tournament_answers(&self, slug: String, keys: Vec<String>) -> Reading<'_, HashMap<String, Vec<u8>>> {
        self.inner.tournament_answers(slug, keys)
    }

    fn tournament(&self, slug: String) -> Reading<'_, Option<StoredTournament>> {
        self.inner.tournament(slug)
    }

    fn tournament_version(&self, slug: String) -> Reading<'_, Option<u64>> {
        self.inner.tournament_version(slug)
    }

    fn tournaments(&self) -> Reading<'_, Vec<StoredTournament>> {
        self.inner.tournaments()
    }
}

impl BroadcastStore for FlakyStore {
    fn put_broadcast(&self, broadcast: StoredBroadcast) -> Pending {
        self.inner.put_broadcast(broadcast)
    }

    fn broadcasts(&self) -> Reading<'_, Vec<StoredBroadcast>> {
        self.inner.broadcasts()
    }
}

impl LobbyStore for FlakyStore {
    fn put_lobby(&self, change: LobbyChange) -> Pending {
        self.inner.put_lobby(change)
    }

    fn lobby(&self) -> Reading<'_, StoredLobby> {
        self.inner.lobby()
    }

    fn lobby_version(&self) -> Reading<'_, u64> {
        self.inner.lobby_version()
    }

    fn bot_events(&self, bot: String, from: u64) -> Reading<'_, Vec<(u64, Vec<u8>)>> {
        self.inner.bot_events(bot, from)
    }
}

impl ReviewJobStore for FlakyStore {
    fn claim_review_job(&self, owner: Uuid) -> Reading<'_, Option<ReviewJob>> {
        self.inner.claim_review_job(owner)
    }

    fn finish_review_job(&self, finished: FinishedReview) -> Pending {
        self.inner.finish_review_job(finished)
    }

    fn review_jobs(&self, slug: String) -> Reading<'_, Vec<ReviewJob>> {
        self.inner.review_jobs(slug)
    }

    fn order_reviews(&self, slug: String, orders: Vec<dawgref::store::ReviewOrder>) -> Pending {
        self.inner.order_reviews(slug, orders)
    }
}

#[tokio::test]
async fn a_turn_that_cannot_be_stored_is_refused_and_forgotten() {
    let store = Arc::new(FlakyStore::default());
    let lexicons = RulesetKind::classic().iter().map(|&k| common::lexicon(k).clone()).collect();
    let (handle, _) = server::Builder::new(lexicons).store(store.clone()).start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    handle.spawn(listener);
    let srv = TestServer { url, handle };
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let game = two_humans(&mut g, 17).await;
    let (id, tokens) = (game.game_id.clone(), game.seat_tokens.clone());
    let get = |seat: usize| authed(pb::GetGameRequest { game_id: id.clone() }, &tokens[seat]);

    let first = best_move(&mut a, &id, &tokens[0]).await.unwrap().play.unwrap();
    g.submit_turn(authed(turn(&id, 0, Some(pb::submit_turn_request::Action::Play(first))), &tokens[0]))
        .await
        .unwrap();
    let durable = view_of(&mut g, get(1)).await;
    let mut watcher = g
        .watch_game(pb::WatchGameRequest { game_id: id.clone(), from_event: durable.events })
        .await
        .unwrap()
        .into_inner();

    store.failing.store(true, Ordering::SeqCst);
    let second = best_move(&mut a, &id, &tokens[1]).await.unwrap().play.unwrap();
    let refused = g
        .submit_turn(authed(
            turn(&id, 1, Some(pb::submit_turn_request::Action::Play(second.clone()))),
            &tokens[1],
        ))
        .await;
    let status = refused.unwrap_err();
    assert_eq!(status.code(), Code::Unavailable);
    assert!(status.message().contains("could not be stored"), "{}", status.message());
    store.failing.store(false, Ordering::SeqCst);

    // The game is as it was: same turn, same rack, same board, same scores.
    assert_eq!(view_of(&mut g, get(1)).await, durable);
    // The turn can be taken again, and this time it stands.
    let r = g
        .submit_turn(authed(turn(&id, 1, Some(pb::submit_turn_request::Action::Play(second))), &tokens[1]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.view.unwrap().turn, 2);
    // Watchers never saw the refused turn: the next event they get is the accepted one.
    // (The bound only turns a hang into a failure; the event is already there.)
    let next = tokio::time::timeout(std::time::Duration::from_secs(60), watcher.message());
    let e = next.await.expect("the watcher gets the accepted turn").unwrap().unwrap();
    assert_eq!((e.number, e.seat, e.kind.as_str(), e.points), (durable.events, 1, "play", r.points));
    let stored = store.inner.load(Uuid::parse_str(&id).unwrap()).await.unwrap().unwrap();
    assert_eq!(stored.log.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(), vec![0, 1, 2]);
}
