//! One contract, three stores: what the server relies on from `GameStore` holds for the memory
//! store, SQLite and PostgreSQL alike (rows in order, duplicates refused, finished and
//! quarantined games left out of recovery, many games' writes committed together). Then what
//! only the shared store does: leases, takeover, and fencing of a replica that lost its game.

use crate::common;

use common::postgres::Postgres;
use common::server::TempDir;
use dawgref::store::Claim;
use dawgref::store::postgres::Replica;
use dawgref::store::{
    DirectorKey, FinishedReview, GameStore, LobbyChange, MemoryStore, PgStore, ReviewJobEnd, ReviewJobState,
    ReviewOrder, SqliteStore, Store, StoreError, StoredBroadcast, StoredLobby, StoredTournament,
    TournamentChange,
};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// A read, awaited as the server awaits it.
async fn load(store: &Arc<dyn Store>, id: Uuid) -> Option<dawgref::store::StoredGame> {
    store.load(id).await.unwrap()
}

async fn unfinished(store: &Arc<dyn Store>) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = store.unfinished().await.unwrap().iter().map(|g| g.id).collect();
    ids.sort();
    ids
}

/// `me`: the claims' owner, alive for as long as the store is (a PostgreSQL store's replica).
async fn contract(store: Arc<dyn Store>, me: Uuid) {
    let a = Uuid::new_v4();
    store.create(a, 1, b"record-a".to_vec(), b"row0".to_vec(), false, vec![]).wait().await.unwrap();
    let got = load(&store, a).await.unwrap();
    assert_eq!(
        (got.record.as_slice(), got.log.clone(), got.finished),
        (&b"record-a"[..], vec![(0, b"row0".to_vec())], false)
    );
    assert!(matches!(
        store.create(a, 2, b"again".to_vec(), b"x".to_vec(), false, vec![]).wait().await,
        Err(StoreError::Conflict { seq: 0, .. })
    ));
    for seq in 1..=3u64 {
        store.append(a, seq, format!("row{seq}").into_bytes(), false).wait().await.unwrap();
    }
    assert!(matches!(
        store.append(a, 2, b"dup".to_vec(), false).wait().await,
        Err(StoreError::Conflict { seq: 2, .. })
    ));
    let got = load(&store, a).await.unwrap();
    assert_eq!(got.log.iter().map(|(s, _)| *s).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    assert_eq!(got.log[2].1, b"row2");

    // A finished game and a quarantined one are not recovered; a live one is.
    let (b, c) = (Uuid::new_v4(), Uuid::new_v4());
    store.create(b, 3, b"b".to_vec(), b"0".to_vec(), false, vec![]).wait().await.unwrap();
    store.create(c, 4, b"c".to_vec(), b"0".to_vec(), false, vec![]).wait().await.unwrap();
    store.append(b, 1, b"last".to_vec(), true).wait().await.unwrap();
    store.quarantine(c, "bad row 0").wait().await.unwrap();
    assert!(load(&store, b).await.unwrap().finished);
    assert_eq!(load(&store, c).await.unwrap().quarantined.as_deref(), Some("bad row 0"));
    assert_eq!(unfinished(&store).await, vec![a]);
    assert!(load(&store, Uuid::new_v4()).await.is_none());

    // 200 games written at once: each row lands once, in its game, in order.
    let ids: Vec<Uuid> = (0..200).map(|_| Uuid::new_v4()).collect();
    let creates: Vec<_> = ids
        .iter()
        .map(|id| store.create(*id, 5, id.as_bytes().to_vec(), b"0".to_vec(), false, vec![]))
        .collect();
    for p in creates {
        p.wait().await.unwrap();
    }
    for seq in 1..=5u64 {
        let rows: Vec<_> = ids.iter().map(|id| store.append(*id, seq, vec![seq as u8], seq == 5)).collect();
        for p in rows {
            p.wait().await.unwrap();
        }
    }
    for id in &ids[..20] {
        let got = load(&store, *id).await.unwrap();
        assert_eq!(
            got.log.iter().map(|(s, b)| (*s, b.clone())).collect::<Vec<_>>()[1..],
            [(1, vec![1]), (2, vec![2]), (3, vec![3]), (4, vec![4]), (5, vec![5])]
        );
        assert!(got.finished);
    }
    assert_eq!(unfinished(&store).await, vec![a]);

    // Listings by label and state, a page at a time in id order.
    let label = |k: &str, v: &str| (k.to_string(), v.to_string());
    let mut tagged: Vec<Uuid> = (0..5).map(|_| Uuid::new_v4()).collect();
    for (i, id) in tagged.iter().enumerate() {
        let labels = vec![label("event", "open"), label("round", if i < 3 { "1" } else { "2" })];
        store.create(*id, 6, b"t".to_vec(), b"0".to_vec(), false, labels).wait().await.unwrap();
    }
    store.append(tagged[0], 1, b"end".to_vec(), true).wait().await.unwrap();
    store.quarantine(tagged[4], "bad").wait().await.unwrap();
    let page = |labels: Vec<(String, String)>, state, after, limit| dawgref::store::GameQuery {
        labels,
        state,
        after,
        limit,
    };
    use dawgref::store::GameState::{Any, Finished, Live};
    let first = store.games(page(vec![label("event", "open")], Any, None, 2)).await.unwrap();
    let mut sorted = tagged.clone();
    sorted.sort();
    assert_eq!((first.ids.clone(), first.total), (sorted[..2].to_vec(), 5));
    let rest = store.games(page(vec![label("event", "open")], Any, Some(first.ids[1]), 10)).await.unwrap();
    assert_eq!(rest.ids, sorted[2..].to_vec());
    let round1 =
        store.games(page(vec![label("event", "open"), label("round", "1")], Any, None, 10)).await.unwrap();
    let mut want = tagged[..3].to_vec();
    want.sort();
    assert_eq!(round1.ids, want);
    assert_eq!(
        store.games(page(vec![label("round", "1")], Finished, None, 10)).await.unwrap().ids,
        vec![tagged[0]]
    );
    // A set-aside game is not live; a finished one neither.
    let live = store.games(page(vec![label("event", "open")], Live, None, 10)).await.unwrap();
    tagged = vec![tagged[1], tagged[2], tagged[3]];
    tagged.sort();
    assert_eq!((live.ids, live.total), (tagged, 3));
    assert!(store.games(page(vec![label("event", "closed")], Any, None, 10)).await.unwrap().ids.is_empty());

    // Reviews: kept per game and key, replaced under the same key, refused for no game.
    let g = sorted[0];
    assert_eq!(store.review(g, "v1 a".into()).await.unwrap(), None);
    store.save_review(g, "v1 a".into(), b"first".to_vec()).wait().await.unwrap();
    store.save_review(g, "v1 b".into(), b"other".to_vec()).wait().await.unwrap();
    store.save_review(g, "v1 a".into(), b"second".to_vec()).wait().await.unwrap();
    assert_eq!(store.review(g, "v1 a".into()).await.unwrap(), Some(b"second".to_vec()));
    assert_eq!(store.review(g, "v1 b".into()).await.unwrap(), Some(b"other".to_vec()));
    assert_eq!(store.review(sorted[1], "v1 a".into()).await.unwrap(), None);
    let nobody = Uuid::new_v4();
    assert!(matches!(
        store.save_review(nobody, "v1 a".into(), b"x".to_vec()).wait().await,
        Err(StoreError::NoGame(id)) if id == nobody
    ));

    // Director keys: kept by name with their hash and labels, names never used twice, a
    // revocation keeps its first time.
    assert_eq!(store.director_keys().await.unwrap(), vec![]);
    let key = |name: &str, byte: u8, labels: Vec<(String, String)>| DirectorKey {
        name: name.into(),
        token_hash: [byte; 32],
        labels,
        created_unix_ms: 1_700_000_000_000 + byte as u64,
        revoked_unix_ms: None,
    };
    let spring = key("spring-td", 1, vec![label("tournament", "spring open"), label("division", "a=b")]);
    let club = key("club", 2, vec![]);
    store.add_director_key(spring.clone()).wait().await.unwrap();
    store.add_director_key(club.clone()).wait().await.unwrap();
    assert!(matches!(
        store.add_director_key(key("spring-td", 3, vec![])).wait().await,
        Err(StoreError::KeyExists(name)) if name == "spring-td"
    ));
    assert_eq!(store.director_keys().await.unwrap(), vec![club.clone(), spring.clone()]);
    store.revoke_director_key("club".into(), 1_800_000_000_000).wait().await.unwrap();
    store.revoke_director_key("club".into(), 1_900_000_000_000).wait().await.unwrap();
    assert!(matches!(
        store.revoke_director_key("nobody".into(), 1).wait().await,
        Err(StoreError::NoKey(name)) if name == "nobody"
    ));
    let revoked = DirectorKey { revoked_unix_ms: Some(1_800_000_000_000), ..club };
    assert_eq!(store.director_keys().await.unwrap(), vec![revoked, spring]);

    // Tournaments: each state written one version after the one read, with the events and
    // answers that version adds.
    let t = |slug: &str, version: u64, body: &[u8]| StoredTournament {
        slug: slug.into(),
        version,
        body: body.to_vec(),
        parts: Vec::new(),
    };
    let put = |tournament: StoredTournament, events: &[u64], answers: &[&str]| TournamentChange {
        events: events.iter().map(|&n| (n, format!("event {n}").into_bytes())).collect(),
        answers: answers
            .iter()
            .map(|k| (k.to_string(), format!("{k} at {}", tournament.version).into_bytes()))
            .collect(),
        tournament,
        reviews: vec![],
    };
    let answer = |store: &Arc<dyn Store>, slug: &str, key: &str| {
        let store = store.clone();
        let (slug, key) = (slug.to_string(), key.to_string());
        async move {
            let mut kept = store.tournament_answers(slug, vec![key.clone()]).await.unwrap();
            kept.remove(&key).map(|b| String::from_utf8(b).unwrap())
        }
    };
    assert_eq!(store.tournaments().await.unwrap(), vec![]);
    assert_eq!(store.tournament("spring".into()).await.unwrap(), None);
    assert_eq!(store.tournament_events("spring".into(), 0).await.unwrap(), vec![]);
    store.put_tournament(put(t("spring", 1, b"one"), &[0], &[])).wait().await.unwrap();
    store.put_tournament(put(t("club", 1, b"c1"), &[0, 1], &["Add:x"])).wait().await.unwrap();
    assert!(matches!(
        store.put_tournament(put(t("spring", 1, b"again"), &[0], &[])).wait().await,
        Err(StoreError::Stale(slug)) if slug == "spring"
    ));
    store.put_tournament(put(t("spring", 2, b"two"), &[1, 2], &["Pair:a"])).wait().await.unwrap();
    // A writer that read version 1 lost the race to the one that wrote 2, and wrote nothing.
    assert!(matches!(
        store.put_tournament(put(t("spring", 2, b"late"), &[3], &["Pair:b"])).wait().await,
        Err(StoreError::Stale(_))
    ));
    assert!(matches!(
        store.put_tournament(put(t("spring", 4, b"ahead"), &[3], &["Pair:b"])).wait().await,
        Err(StoreError::Stale(_))
    ));
    assert_eq!(store.tournament("spring".into()).await.unwrap(), Some(t("spring", 2, b"two")));
    assert_eq!(store.tournaments().await.unwrap(), vec![t("club", 1, b"c1"), t("spring", 2, b"two")]);
    assert_eq!(store.tournament_version("spring".into()).await.unwrap(), Some(2));
    assert_eq!(store.tournament_version("club".into()).await.unwrap(), Some(1));
    assert_eq!(store.tournament_version("autumn".into()).await.unwrap(), None);
    let events = |from: u64| {
        let store = store.clone();
        async move {
            let rows = store.tournament_events("spring".into(), from).await.unwrap();
            rows.into_iter().map(|(n, b)| (n, String::from_utf8(b).unwrap())).collect::<Vec<_>>()
        }
    };
    let event = |n: u64| (n, format!("event {n}"));
    assert_eq!(events(0).await, vec![event(0), event(1), event(2)]);
    assert_eq!(events(2).await, vec![event(2)]);
    assert_eq!(events(3).await, vec![]);
    assert_eq!(answer(&store, "spring", "Pair:a").await.as_deref(), Some("Pair:a at 2"));
    assert_eq!(answer(&store, "spring", "Pair:b").await, None);
    assert_eq!(answer(&store, "spring", "Add:x").await, None, "answers are the tournament's own");
    assert_eq!(answer(&store, "club", "Add:x").await.as_deref(), Some("Add:x at 1"));
    // Many keys in one read: those kept, by key; one asked twice answered once.
    let keys = ["Pair:a", "Pair:b", "Add:x", "Pair:a"].map(String::from).to_vec();
    let many = store.tournament_answers("spring".into(), keys).await.unwrap();
    assert_eq!(many, HashMap::from([("Pair:a".to_string(), b"Pair:a at 2".to_vec())]));
    assert_eq!(
        store.tournament_answers("nowhere".into(), vec!["Pair:a".into()]).await.unwrap(),
        HashMap::new()
    );
    // Answers reach back TOURNAMENT_ANSWERS_KEPT versions: the oldest let go first.
    let kept = dawgref::store::TOURNAMENT_ANSWERS_KEPT;
    for version in 3..=kept + 2 {
        store
            .put_tournament(put(t("spring", version, b"on"), &[], &[&format!("k{version}")]))
            .wait()
            .await
            .unwrap();
    }
    assert_eq!(answer(&store, "spring", "Pair:a").await, None, "version 2's answer let go");
    assert_eq!(answer(&store, "spring", "k3").await.as_deref(), Some("k3 at 3"));
    assert_eq!(
        answer(&store, "spring", &format!("k{}", kept + 2)).await,
        Some(format!("k{} at {}", kept + 2, kept + 2))
    );
    assert_eq!(events(0).await.len(), 3, "events are never let go");

    // A tournament's parts: each version writes those it changed; a read has every part, by key
    // (in byte order); a write that lost its race writes none.
    let parted = |version: u64, parts: &[(&str, &str)]| StoredTournament {
        parts: parts.iter().map(|(k, b)| (k.to_string(), b.as_bytes().to_vec())).collect(),
        ..t("parted", version, format!("head {version}").as_bytes())
    };
    store
        .put_tournament(put(parted(1, &[("0", "a1"), ("0.10", "b1"), ("0.2", "c1")]), &[], &[]))
        .wait()
        .await
        .unwrap();
    store.put_tournament(put(parted(2, &[("0.10", "b2"), ("1", "d2")]), &[], &[])).wait().await.unwrap();
    assert!(matches!(
        store.put_tournament(put(parted(2, &[("0", "lost"), ("2", "lost")]), &[], &[])).wait().await,
        Err(StoreError::Stale(_))
    ));
    store.put_tournament(put(parted(3, &[]), &[], &[])).wait().await.unwrap();
    let whole = parted(3, &[("0", "a1"), ("0.10", "b2"), ("0.2", "c1"), ("1", "d2")]);
    assert_eq!(store.tournament("parted".into()).await.unwrap(), Some(whole.clone()));
    let all = store.tournaments().await.unwrap();
    assert_eq!(all.iter().map(|t| t.slug.as_str()).collect::<Vec<_>>(), ["club", "parted", "spring"]);
    assert_eq!(all[1], whole);
    assert_eq!(all[0], t("club", 1, b"c1"), "no parts: none read");

    // Broadcasts: each written whole against its version, one writer at a time.
    let b = |slug: &str, version: u64, body: &[u8]| StoredBroadcast {
        slug: slug.to_string(),
        version,
        body: body.to_vec(),
    };
    assert_eq!(store.broadcasts().await.unwrap(), vec![]);
    store.put_broadcast(b("spring-live", 1, b"one")).wait().await.unwrap();
    store.put_broadcast(b("club-live", 1, b"c")).wait().await.unwrap();
    assert!(matches!(
        store.put_broadcast(b("spring-live", 1, b"again")).wait().await,
        Err(StoreError::BroadcastStale(slug)) if slug == "spring-live"
    ));
    store.put_broadcast(b("spring-live", 2, b"two")).wait().await.unwrap();
    for stale in [2, 4] {
        assert!(matches!(
            store.put_broadcast(b("spring-live", stale, b"late")).wait().await,
            Err(StoreError::BroadcastStale(_))
        ));
    }
    assert_eq!(store.broadcasts().await.unwrap(), vec![b("club-live", 1, b"c"), b("spring-live", 2, b"two")]);
    assert_eq!(store.tournaments().await.unwrap().len(), 3, "broadcasts are not tournaments");

    // The bots' lobby: one state in parts against its version, each bot's events apart.
    assert_eq!(store.lobby().await.unwrap(), StoredLobby::default(), "never written: version 0");
    assert_eq!(store.lobby_version().await.unwrap(), 0);
    let part = |key: &str, body: Option<&[u8]>| (key.to_string(), body.map(<[u8]>::to_vec));
    let event = |bot: &str, n: u64, body: &[u8]| (bot.to_string(), n, body.to_vec());
    let first = LobbyChange {
        version: 1,
        tag: 11,
        base_tag: 0,
        parts: vec![part("bot/b", Some(b"b1")), part("bot/a", Some(b"a1")), part("challenge/1", Some(b"c"))],
        events: vec![event("a", 1, b"a-one"), event("b", 1, b"b-one"), event("a", 2, b"a-two")],
    };
    store.put_lobby(first.clone()).wait().await.unwrap();
    assert!(matches!(store.put_lobby(first).wait().await, Err(StoreError::LobbyStale)), "version 1 twice");
    let stale = LobbyChange {
        version: 3,
        tag: 13,
        base_tag: 11,
        parts: vec![part("bot/a", Some(b"lost"))],
        events: vec![],
    };
    assert!(matches!(store.put_lobby(stale).wait().await, Err(StoreError::LobbyStale)), "a version skipped");
    // Made on a version 1 that never landed (another writer's took its number): refused.
    let astray = LobbyChange {
        version: 2,
        tag: 14,
        base_tag: 99,
        parts: vec![part("bot/a", Some(b"lost"))],
        events: vec![],
    };
    assert!(matches!(store.put_lobby(astray).wait().await, Err(StoreError::LobbyStale)), "another lineage");
    let second = LobbyChange {
        version: 2,
        tag: 12,
        base_tag: 11,
        parts: vec![part("bot/a", Some(b"a2")), part("challenge/1", None)],
        events: vec![event("a", 3, b"a-three")],
    };
    store.put_lobby(second).wait().await.unwrap();
    let lobby = store.lobby().await.unwrap();
    assert_eq!((lobby.version, lobby.tag), (2, 12));
    assert_eq!(
        lobby.parts,
        vec![part("bot/a", Some(b"a2")), part("bot/b", Some(b"b1"))]
            .into_iter()
            .map(|(k, v)| (k, v.unwrap()))
            .collect::<Vec<_>>()
    );
    assert_eq!(store.lobby_version().await.unwrap(), 2);
    let numbers = |events: Vec<(u64, Vec<u8>)>| events.into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(numbers(store.bot_events("a".into(), 1).await.unwrap()), [1, 2, 3]);
    assert_eq!(store.bot_events("a".into(), 3).await.unwrap(), vec![(3, b"a-three".to_vec())]);
    assert_eq!(numbers(store.bot_events("b".into(), 0).await.unwrap()), [1]);
    assert_eq!(store.bot_events("c".into(), 1).await.unwrap(), vec![]);

    review_jobs(&store, me).await;
}

/// The review jobs: asked by a tournament's change (none by one that lost its race), claimed
/// oldest first by one owner at a time (a gone owner's job claimable again, given up after
/// `MAX_ATTEMPTS`), finished with the review in one write only while still the claim's.
async fn review_jobs(store: &Arc<dyn Store>, me: Uuid) {
    let (g1, g2, g3, g4) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    let mut version = 0;
    let ask = |version: u64, reviews: Vec<ReviewOrder>| TournamentChange {
        tournament: StoredTournament { slug: "rev".into(), version, body: b"r".to_vec(), parts: vec![] },
        events: vec![],
        answers: vec![],
        reviews,
    };
    let queue = |game: Uuid, round: u32| ReviewOrder::Queue { game, ms: 200, division: "A".into(), round };
    let mut next = |reviews: Vec<ReviewOrder>| {
        version += 1;
        ask(version, reviews)
    };
    store.put_tournament(next(vec![queue(g1, 1)])).wait().await.unwrap();
    // Queued a moment later: claimed after g1.
    tokio::time::sleep(Duration::from_millis(5)).await;
    store.put_tournament(next(vec![queue(g2, 2)])).wait().await.unwrap();
    let lost = store.put_tournament(ask(2, vec![queue(g4, 1)])).wait().await;
    assert!(matches!(lost, Err(StoreError::Stale(_))));
    let jobs = || async { store.review_jobs("rev".into()).await.unwrap() };
    let state = |game: Uuid| async move {
        let jobs = store.review_jobs("rev".into()).await.unwrap();
        let job = jobs.iter().find(|j| j.game == game).unwrap().clone();
        (job.state, job.generation, job.attempts)
    };
    let listed = jobs().await;
    assert_eq!(
        listed.iter().map(|j| (j.game, j.round, j.state)).collect::<Vec<_>>(),
        [(g1, 1, ReviewJobState::Queued), (g2, 2, ReviewJobState::Queued)]
    );
    assert!(listed.iter().all(|j| j.slug == "rev" && j.division == "A" && j.ms == 200 && j.generation == 1));
    assert_eq!(store.review_jobs("other".into()).await.unwrap(), vec![]);

    // A claim whose owner is gone is claimed again, before the younger job; finished only by
    // the claim that holds it, with its review in the same write.
    let reviewed = |body: Option<&[u8]>, fingerprint| ReviewJobEnd::Reviewed {
        key: "k200".into(),
        body: body.map(<[u8]>::to_vec),
        fingerprint,
    };
    let finish = |game, generation, owner, end| FinishedReview { game, ms: 200, generation, owner, end };
    let ghost = Uuid::new_v4();
    let first = store.claim_review_job(ghost).await.unwrap().unwrap();
    assert_eq!((first.game, first.attempts, first.owner), (g1, 1, Some(ghost)));
    let again = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((again.game, again.attempts, again.owner), (g1, 2, Some(me)));
    let moved = store.finish_review_job(finish(g1, 1, ghost, reviewed(Some(b"lost"), 1))).wait().await;
    assert!(matches!(moved, Err(StoreError::ReviewJobMoved(g)) if g == g1));
    assert_eq!(store.review(g1, "k200".into()).await.unwrap(), None);
    store.finish_review_job(finish(g1, 1, me, reviewed(Some(b"review"), 5))).wait().await.unwrap();
    assert_eq!(store.review(g1, "k200".into()).await.unwrap().as_deref(), Some(&b"review"[..]));
    let done = jobs().await.into_iter().find(|j| j.game == g1).unwrap();
    assert_eq!((done.state, done.fingerprint, done.owner), (ReviewJobState::Done, Some(5), Some(me)));
    // An owner works one job at a time: its own job left running is claimable again.
    let second = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((second.game, second.attempts), (g2, 1));
    let second = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((second.game, second.attempts), (g2, 2));
    store.finish_review_job(finish(g2, 1, me, ReviewJobEnd::Waiting)).wait().await.unwrap();
    assert_eq!(state(g2).await, (ReviewJobState::Waiting, 1, 2));
    assert_eq!(store.claim_review_job(me).await.unwrap(), None, "one done, one waiting");

    // A game changed: its jobs asked again. A claim of the generation before, asked again while
    // it runs, keeps nothing.
    store.put_tournament(next(vec![ReviewOrder::Redo { game: g1 }])).wait().await.unwrap();
    tokio::time::sleep(Duration::from_millis(5)).await;
    store.put_tournament(next(vec![ReviewOrder::Redo { game: g2 }])).wait().await.unwrap();
    assert_eq!(state(g1).await, (ReviewJobState::Queued, 2, 0));
    assert_eq!(state(g2).await, (ReviewJobState::Queued, 2, 0));
    let redo = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((redo.game, redo.generation, redo.fingerprint), (g1, 2, Some(5)));
    tokio::time::sleep(Duration::from_millis(5)).await;
    store.put_tournament(next(vec![queue(g1, 1)])).wait().await.unwrap();
    let moved = store.finish_review_job(finish(g1, 2, me, reviewed(Some(b"stale"), 6))).wait().await;
    assert!(matches!(moved, Err(StoreError::ReviewJobMoved(_))));
    let latest = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((latest.game, latest.generation), (g2, 2), "g2 was queued before g1 was asked again");
    store.finish_review_job(finish(g2, 2, me, ReviewJobEnd::Failed("no".into()))).wait().await.unwrap();
    let failed = jobs().await.into_iter().find(|j| j.game == g2).unwrap();
    assert_eq!((failed.state, failed.error.as_deref()), (ReviewJobState::Failed, Some("no")));
    let latest = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((latest.game, latest.generation), (g1, 3));
    // The game as the kept review judged it: the review stays, the job is done.
    store.finish_review_job(finish(g1, 3, me, reviewed(None, 5))).wait().await.unwrap();
    assert_eq!(store.review(g1, "k200".into()).await.unwrap().as_deref(), Some(&b"review"[..]));
    assert_eq!(state(g1).await, (ReviewJobState::Done, 3, 1));

    // Handed back (a failure that may pass): queued again, the attempt not counted.
    store
        .put_tournament(next(vec![ReviewOrder::Queue { game: g1, ms: 500, division: "A".into(), round: 1 }]))
        .wait()
        .await
        .unwrap();
    let handed = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((handed.game, handed.ms, handed.attempts), (g1, 500, 1));
    let back = FinishedReview { game: g1, ms: 500, generation: 1, owner: me, end: ReviewJobEnd::Released };
    store.finish_review_job(back.clone()).wait().await.unwrap();
    let released = jobs().await.into_iter().find(|j| (j.game, j.ms) == (g1, 500)).unwrap();
    assert_eq!((released.state, released.attempts, released.owner), (ReviewJobState::Queued, 0, None));
    let retaken = store.claim_review_job(me).await.unwrap().unwrap();
    assert_eq!((retaken.game, retaken.ms, retaken.attempts), (g1, 500, 1));
    let end = reviewed(Some(b"at 500"), 5);
    store.finish_review_job(FinishedReview { end, ..back }).wait().await.unwrap();
    // Asked apart from a change (a game ended again): every job of the game, done, asked again.
    store.order_reviews("rev".into(), vec![ReviewOrder::Redo { game: g1 }]).wait().await.unwrap();
    let again: Vec<_> =
        jobs().await.into_iter().filter(|j| j.game == g1).map(|j| (j.ms, j.state, j.generation)).collect();
    assert_eq!(again, [(200, ReviewJobState::Queued, 4), (500, ReviewJobState::Queued, 2)]);
    for _ in 0..2 {
        let j = store.claim_review_job(me).await.unwrap().unwrap();
        let end = reviewed(None, 5);
        let f = FinishedReview { game: j.game, ms: j.ms, generation: j.generation, owner: me, end };
        store.finish_review_job(f).wait().await.unwrap();
    }

    // A job left unfinished MAX_ATTEMPTS times is given up.
    store.put_tournament(next(vec![queue(g3, 3)])).wait().await.unwrap();
    for attempt in 1..=dawgref::store::MAX_ATTEMPTS {
        let claimed = store.claim_review_job(Uuid::new_v4()).await.unwrap().unwrap();
        assert_eq!((claimed.game, claimed.attempts), (g3, attempt));
    }
    assert_eq!(store.claim_review_job(me).await.unwrap(), None);
    let given_up = jobs().await.into_iter().find(|j| j.game == g3).unwrap();
    assert_eq!(given_up.state, ReviewJobState::Failed);
    assert!(given_up.error.unwrap().starts_with("left unfinished 3 times"));
    assert!(jobs().await.iter().all(|j| j.game != g4), "a lost write asked for nothing");
}

fn replica(lease_ms: u64) -> Replica {
    Replica {
        id: Uuid::new_v4(),
        addr: format!("replica-{}", Uuid::new_v4()),
        lease: Duration::from_millis(lease_ms),
    }
}

#[tokio::test]
async fn the_memory_store_keeps_the_contract() {
    contract(Arc::new(MemoryStore::new()), Uuid::new_v4()).await;
}

#[tokio::test]
async fn sqlite_keeps_the_contract() {
    let dir = TempDir::new("contract");
    contract(Arc::new(SqliteStore::open(&dir.0).unwrap()), Uuid::new_v4()).await;
}

#[tokio::test]
async fn postgres_keeps_the_contract() {
    let pg = Postgres::start("contract", false);
    let url = pg.database("contract");
    let store = PgStore::open(&url, replica(5000)).await.unwrap();
    let me = store.replica().id;
    contract(Arc::new(store), me).await;
    // A second replica on the same database migrates nothing twice and sees the same games.
    let again = PgStore::open(&url, replica(5000)).await.unwrap();
    let again: Arc<dyn Store> = Arc::new(again);
    assert_eq!(
        unfinished(&again).await.len(),
        0,
        "the first replica's heartbeat is current: nothing to take"
    );
}

#[tokio::test]
async fn a_replica_that_lost_its_lease_can_never_write() {
    let pg = Postgres::start("fencing", false);
    let url = pg.database("fencing");
    let a = Arc::new(PgStore::open(&url, replica(400)).await.unwrap());
    let b = Arc::new(PgStore::open(&url, replica(400)).await.unwrap());
    let game = Uuid::new_v4();
    a.create(game, 1, b"r".to_vec(), b"0".to_vec(), false, vec![]).wait().await.unwrap();
    a.append(game, 1, b"a1".to_vec(), false).wait().await.unwrap();
    assert!(a.holds(&game));

    // While A's heartbeat is current, B is told where the game lives.
    assert_eq!(b.claim(game).await.unwrap(), Claim::Other(a.replica().addr.clone()));
    assert!(matches!(b.append(game, 2, b"b?".to_vec(), false).wait().await, Err(StoreError::Fenced(_))));

    // A stops beating (paused); after its lease B takes the game over and plays on.
    tokio::time::sleep(Duration::from_millis(600)).await;
    b.heartbeat().await.unwrap();
    assert_eq!(b.claim(game).await.unwrap(), Claim::TakenOver);
    // Asking again is no takeover (the metric counts only these).
    assert_eq!(b.claim(game).await.unwrap(), Claim::Mine);
    b.append(game, 2, b"b2".to_vec(), false).wait().await.unwrap();

    // A wakes up: its next write is refused, and its heartbeat reports the game lost.
    assert!(matches!(a.append(game, 3, b"a3".to_vec(), false).wait().await, Err(StoreError::Fenced(_))));
    assert!(a.holds(&game), "A has not heard yet");
    assert_eq!(a.heartbeat().await.unwrap(), vec![game]);
    assert!(!a.holds(&game));
    assert_eq!(a.claim(game).await.unwrap(), Claim::Other(b.replica().addr.clone()));

    let store: Arc<dyn Store> = b.clone();
    let log = load(&store, game).await.unwrap().log;
    assert_eq!(
        log,
        vec![(0, b"0".to_vec()), (1, b"a1".to_vec()), (2, b"b2".to_vec())],
        "one history, no fork"
    );

    // Handing over: B ends its heartbeat and A may take the game at once.
    b.release_all().await.unwrap();
    assert_eq!(a.claim(game).await.unwrap(), Claim::TakenOver);
    a.append(game, 3, b"a3".to_vec(), true).wait().await.unwrap();
    assert_eq!(a.claim(game).await.unwrap(), Claim::NotLive, "a finished game has no owner");
}

/// A sleeping game's lease is let go with its clock: any replica may claim it (and reads the
/// clock as if the game never slept); the orphan sweep takes it only once its alarm is due. A
/// hand-over gives the lease to a named live replica at the next epoch, fencing the old owner.
#[tokio::test]
async fn released_and_handed_over_leases() {
    let pg = Postgres::start("release", false);
    let url = pg.database("release");
    let a = Arc::new(PgStore::open(&url, replica(5000)).await.unwrap());
    let b = Arc::new(PgStore::open(&url, replica(5000)).await.unwrap());
    let (quiet, alarmed) = (Uuid::new_v4(), Uuid::new_v4());
    for g in [quiet, alarmed] {
        a.create(g, 1, b"r".to_vec(), b"0".to_vec(), false, vec![]).wait().await.unwrap();
    }
    assert!(a.release(quiet, 10_000, None).await.unwrap());
    assert!(a.release(alarmed, 20_000, Some(Duration::from_millis(300))).await.unwrap());
    assert!(!a.holds(&quiet) && !a.holds(&alarmed));
    assert!(!a.release(quiet, 1, None).await.unwrap(), "released already: nothing to let go");
    assert!(matches!(a.append(quiet, 1, b"a1".to_vec(), false).wait().await, Err(StoreError::Fenced(_))));
    assert_eq!(b.orphans(Duration::ZERO, 10).await.unwrap(), Vec::<Uuid>::new(), "asleep, no alarm due");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(b.orphans(Duration::ZERO, 10).await.unwrap(), vec![alarmed], "its alarm is due");

    // B wakes the quiet game: its own now, and its clock reads on from 10 s.
    assert_eq!(b.claim(quiet).await.unwrap(), Claim::Mine);
    let reading = b.take_slept(&quiet).expect("the clock's reading at the claim");
    assert!((10_400..60_000).contains(&reading), "{reading} ms: 10 s plus the time asleep");
    assert_eq!(b.take_slept(&quiet), None, "asked once");
    b.append(quiet, 1, b"b1".to_vec(), false).wait().await.unwrap();
    assert_eq!(a.claim(quiet).await.unwrap(), Claim::Other(b.replica().addr.clone()));

    // B hands it to A: B's writes are fenced off, A's claim is already its own.
    assert!(!b.hand_over(quiet, "nowhere:1").await.unwrap(), "no live replica there");
    assert_eq!(b.claim(quiet).await.unwrap(), Claim::Mine);
    assert!(b.hand_over(quiet, &a.replica().addr).await.unwrap());
    assert!(!b.holds(&quiet));
    assert!(matches!(b.append(quiet, 2, b"b2".to_vec(), false).wait().await, Err(StoreError::Fenced(_))));
    assert_eq!(a.claim(quiet).await.unwrap(), Claim::Mine);
    assert_eq!(a.epoch(&quiet), Some(5), "created 1, B's claims 2 and 3, hand-over 4, A's claim 5");
    a.append(quiet, 2, b"a2".to_vec(), false).wait().await.unwrap();
    let store: Arc<dyn Store> = a.clone();
    let log = load(&store, quiet).await.unwrap().log;
    assert_eq!(log, vec![(0, b"0".to_vec()), (1, b"b1".to_vec()), (2, b"a2".to_vec())]);
}

/// The race the fencing exists for: appends in flight while another replica takes over. Every
/// append either lands before the takeover (and the new owner's log read has it) or is refused.
#[tokio::test]
async fn a_takeover_never_forks_a_history() {
    let pg = Postgres::start("race", false);
    let url = pg.database("race");
    let a = Arc::new(PgStore::open(&url, replica(200)).await.unwrap());
    let b = Arc::new(PgStore::open(&url, replica(200)).await.unwrap());
    let games: Vec<Uuid> = (0..50).map(|_| Uuid::new_v4()).collect();
    for g in &games {
        a.create(*g, 1, b"r".to_vec(), b"0".to_vec(), false, vec![]).wait().await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // A keeps appending while B takes every game over.
    let writer = {
        let (a, games) = (a.clone(), games.clone());
        tokio::spawn(async move {
            let mut landed = std::collections::HashMap::new();
            for seq in 1..=20u64 {
                for g in &games {
                    if a.append(*g, seq, b"a".to_vec(), false).wait().await.is_ok() {
                        landed.insert(*g, seq);
                    }
                }
            }
            landed
        })
    };
    b.heartbeat().await.unwrap();
    let mut taken = std::collections::HashMap::new();
    for g in &games {
        assert_eq!(b.claim(*g).await.unwrap(), Claim::TakenOver);
        let store: Arc<dyn Store> = b.clone();
        taken.insert(*g, load(&store, *g).await.unwrap().log.len() as u64);
    }
    let landed = writer.await.unwrap();
    for g in &games {
        let rows = taken[g];
        // The new owner's read holds every row A landed.
        assert_eq!(rows, landed.get(g).map_or(1, |s| s + 1), "game {g}");
        b.append(*g, rows, b"b".to_vec(), false).wait().await.unwrap();
    }
}
