//! Director keys over the wire: the root director's token makes keys; a key acts on the games
//! carrying all of its labels and nowhere else (every Directors RPC, GetGame, ListGames,
//! ExportResults); labels are reserved to directors at CreateGame; each action names its key in
//! the event and the GCG; a revoked key is refused; keys outlive a restart.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use std::collections::HashMap;
use tonic::Code;

const ROOT: &str = "root-director-token";

fn labels(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn labelled_game(seed: u64, pairs: &[(&str, &str)]) -> pb::CreateGameRequest {
    let mut request =
        create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("ann"), human("bob")], seed);
    request.clock = Some(pb::ClockSpec { initial_ms: 1_500_000, ..Default::default() });
    request.labels = labels(pairs);
    request
}

type Directors = pb::directors_service_client::DirectorsServiceClient<tonic::transport::Channel>;

async fn make_key(d: &mut Directors, name: &str, pairs: &[(&str, &str)]) -> pb::CreateDirectorKeyResponse {
    let request = pb::CreateDirectorKeyRequest { name: name.into(), labels: labels(pairs) };
    d.create_director_key(authed(request, ROOT)).await.unwrap().into_inner()
}

/// The status code of an answer, OK included.
fn answer<T>(r: Result<T, tonic::Status>) -> Code {
    r.map_or_else(|s| s.code(), |_| Code::Ok)
}

/// Every Directors action on `game` as `token`: the status codes, in a fixed order.
async fn every_action(d: &mut Directors, game: &str, token: &str) -> Vec<Code> {
    let g = game.to_string();
    vec![
        answer(d.pause_game(authed(pause(&g, ""), token)).await),
        answer(d.resume_game(authed(resume(&g, ""), token)).await),
        answer(
            d.adjust_score(authed(
                pb::AdjustScoreRequest {
                    game_id: g.clone(),
                    seat: 0,
                    points: 5,
                    reason: "r".into(),
                    ..Default::default()
                },
                token,
            ))
            .await,
        ),
        answer(
            d.adjust_clock(authed(
                pb::AdjustClockRequest {
                    game_id: g.clone(),
                    seat: 0,
                    delta_ms: 1000,
                    reason: "r".into(),
                    ..Default::default()
                },
                token,
            ))
            .await,
        ),
        answer(d.undo_turn(authed(undo(&g, ""), token)).await),
        answer(
            d.add_note(authed(
                pb::AddNoteRequest { game_id: g.clone(), text: "n".into(), ..Default::default() },
                token,
            ))
            .await,
        ),
        answer(
            d.set_result(authed(
                pb::SetResultRequest {
                    game_id: g.clone(),
                    result: Some(pb::set_result_request::Result::Void(pb::Void {})),
                    reason: "r".into(),
                    ..Default::default()
                },
                token,
            ))
            .await,
        ),
    ]
}

#[tokio::test]
async fn a_key_directs_only_the_games_carrying_its_labels() {
    let srv = start_directed(ROOT).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let made = make_key(&mut d, "spring-td", &[("tournament", "spring")]).await;
    assert_eq!(made.token.len(), 32);
    let key = made.key.unwrap();
    assert_eq!(
        (key.name.as_str(), key.labels.clone(), key.revoked_unix_ms),
        ("spring-td", labels(&[("tournament", "spring")]), 0)
    );
    let td = made.token.as_str();

    // Labels are a director's word: the key makes games with its labels (and more), the root
    // with any; nobody without a director's token.
    let spring = g
        .create_game(authed(labelled_game(1, &[("tournament", "spring"), ("round", "1")]), td))
        .await
        .unwrap()
        .into_inner();
    let refused =
        g.create_game(authed(labelled_game(2, &[("tournament", "autumn"), ("round", "1")]), td)).await;
    assert_eq!(refused.as_ref().map_err(|s| s.code()).unwrap_err(), Code::PermissionDenied);
    assert!(
        refused.unwrap_err().message().contains("tournament=spring"),
        "the message names the key's labels"
    );
    assert_eq!(
        code(g.create_game(labelled_game(2, &[("tournament", "spring")])).await),
        Code::Unauthenticated
    );
    let seat = &spring.seat_tokens[0];
    assert_eq!(
        code(g.create_game(authed(labelled_game(2, &[("tournament", "spring")]), seat)).await),
        Code::PermissionDenied
    );
    let autumn = g
        .create_game(authed(labelled_game(3, &[("tournament", "autumn"), ("round", "1")]), ROOT))
        .await
        .unwrap()
        .into_inner();
    // A game without labels needs no token.
    let open = two_humans(&mut g, 4).await;

    // Every action on a game outside the key's labels is refused and changes nothing.
    for other in [&autumn.game_id, &open.game_id] {
        assert_eq!(every_action(&mut d, other, td).await, vec![Code::PermissionDenied; 7], "{other}");
        let view = view_of(&mut g, pb::GetGameRequest { game_id: other.clone() }).await;
        assert_eq!((view.events, view.paused, view.over), (0, false, false));
        assert_eq!(
            code(g.get_game(authed(pb::GetGameRequest { game_id: other.clone() }, td)).await),
            Code::PermissionDenied
        );
    }
    // On its own game every action is the director's: each in turn (the undo finds no turn,
    // the void ends the game).
    assert_eq!(
        every_action(&mut d, &spring.game_id, td).await,
        vec![Code::Ok, Code::Ok, Code::Ok, Code::Ok, Code::FailedPrecondition, Code::Ok, Code::Ok]
    );
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: spring.game_id.clone() }, td)).await;
    assert_eq!((view.my_rack.as_str(), view.over), ("", true), "a key sees its games as the director does");

    // The key's name goes with each of its actions: in the events and in the record.
    let mut watch = g
        .watch_game(pb::WatchGameRequest { game_id: spring.game_id.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let mut signed = Vec::new();
    while let Some(e) = watch.message().await.unwrap() {
        signed.push((e.kind.clone(), e.director.clone()));
        if e.kind == "game_over" {
            break;
        }
    }
    // (A result's reason is a note before its game_over.)
    let td_name = "spring-td".to_string();
    assert_eq!(
        signed,
        ["paused", "resumed", "score_adjusted", "clock_adjusted", "note", "note", "game_over"]
            .iter()
            .map(|k| (k.to_string(), td_name.clone()))
            .collect::<Vec<_>>()
    );
    let gcg = g
        .export_gcg(pb::ExportGcgRequest { game_id: spring.game_id.clone() })
        .await
        .unwrap()
        .into_inner()
        .gcg;
    for line in [
        "#note director (spring-td): game paused\n",
        "#note director (spring-td): game resumed\n",
        "#note director (spring-td): ann score +5 (r), total 5\n",
        "#note director (spring-td): n\n",
    ] {
        assert!(gcg.contains(line), "{line:?} in\n{gcg}");
    }
    // The root's own actions name nobody.
    d.add_note(authed(
        pb::AddNoteRequest { game_id: autumn.game_id.clone(), text: "root".into(), ..Default::default() },
        ROOT,
    ))
    .await
    .unwrap();
    let gcg = g
        .export_gcg(pb::ExportGcgRequest { game_id: autumn.game_id.clone() })
        .await
        .unwrap()
        .into_inner()
        .gcg;
    assert!(gcg.contains("#note director: root\n"), "{gcg}");

    // Listings and exports hold the key's games only.
    let list = |state: pb::GameState, pairs: &[(&str, &str)]| pb::ListGamesRequest {
        page_size: 10,
        state: state as i32,
        labels: labels(pairs),
        ..Default::default()
    };
    let ids = |r: pb::ListGamesResponse| -> (Vec<String>, u32) {
        (r.games.into_iter().map(|v| v.game_id).collect(), r.total)
    };
    let all = g.list_games(authed(list(pb::GameState::All, &[]), td)).await.unwrap().into_inner();
    assert_eq!(ids(all), (vec![spring.game_id.clone()], 1));
    let live = g.list_games(authed(list(pb::GameState::Live, &[]), ROOT)).await.unwrap().into_inner();
    assert_eq!(live.total, 2, "the root sees every live game (the key's game is over)");
    let live = g.list_games(authed(list(pb::GameState::Live, &[]), td)).await.unwrap().into_inner();
    assert_eq!(ids(live), (vec![], 0));
    let theirs =
        g.list_games(authed(list(pb::GameState::All, &[("tournament", "autumn")]), td)).await.unwrap();
    assert_eq!(ids(theirs.into_inner()), (vec![], 0));
    let export = |key: &str, value: &str| pb::ExportResultsRequest { key: key.into(), value: value.into() };
    let round1 = d.export_results(authed(export("round", "1"), td)).await.unwrap().into_inner();
    assert_eq!(
        round1.rows.iter().map(|r| r.game_id.clone()).collect::<Vec<_>>(),
        vec![spring.game_id.clone()]
    );
    assert_eq!(
        d.export_results(authed(export("round", "1"), ROOT)).await.unwrap().into_inner().rows.len(),
        2
    );
    assert!(
        d.export_results(authed(export("tournament", "autumn"), td))
            .await
            .unwrap()
            .into_inner()
            .rows
            .is_empty()
    );

    // Keys are the root's alone to make, list and revoke.
    let another =
        pb::CreateDirectorKeyRequest { name: "mine".into(), labels: labels(&[("tournament", "spring")]) };
    assert_eq!(code(d.create_director_key(authed(another, td)).await), Code::PermissionDenied);
    assert_eq!(
        code(d.list_director_keys(authed(pb::ListDirectorKeysRequest {}, td)).await),
        Code::PermissionDenied
    );
    let revoke = |name: &str| pb::RevokeDirectorKeyRequest { name: name.into() };
    assert_eq!(code(d.revoke_director_key(authed(revoke("spring-td"), td)).await), Code::PermissionDenied);
    assert_eq!(code(d.revoke_director_key(authed(revoke("spring-td"), seat)).await), Code::PermissionDenied);
    assert_eq!(code(d.list_director_keys(pb::ListDirectorKeysRequest {}).await), Code::Unauthenticated);
}

#[tokio::test]
async fn keys_are_checked_named_once_and_revoked_for_good() {
    let ask = |name: &str, pairs: &[(&str, &str)]| pb::CreateDirectorKeyRequest {
        name: name.into(),
        labels: labels(pairs),
    };
    // No root token: nobody may make keys.
    let bare = start().await;
    assert_eq!(
        code(bare.directors().await.create_director_key(authed(ask("a", &[("t", "x")]), ROOT)).await),
        Code::FailedPrecondition
    );
    let srv = start_directed(ROOT).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    for (bad, pairs) in [
        ("", &[("t", "x")][..]),
        ("Upper", &[("t", "x")]),
        ("has space", &[("t", "x")]),
        (&"k".repeat(41), &[("t", "x")]),
        ("no-labels", &[]),
        ("bad-label", &[("T!", "x")]),
    ] {
        let status = d.create_director_key(authed(ask(bad, pairs), ROOT)).await.unwrap_err();
        assert_eq!(status.code(), Code::InvalidArgument, "{bad:?}: {status:?}");
    }
    let first = make_key(&mut d, "club", &[("club", "chess-hall")]).await;
    let again = d.create_director_key(authed(ask("club", &[("club", "other")]), ROOT)).await.unwrap_err();
    assert_eq!(again.code(), Code::AlreadyExists);
    assert!(again.message().contains("\"club\""), "{again:?}");
    make_key(&mut d, "another", &[("club", "other")]).await;

    let game = g
        .create_game(authed(labelled_game(5, &[("club", "chess-hall")]), &first.token))
        .await
        .unwrap()
        .into_inner();
    d.pause_game(authed(pause(&game.game_id, ""), &first.token)).await.unwrap();
    let revoked = d
        .revoke_director_key(authed(pb::RevokeDirectorKeyRequest { name: "club".into() }, ROOT))
        .await
        .unwrap()
        .into_inner()
        .key
        .unwrap();
    assert!(revoked.revoked_unix_ms >= revoked.created_unix_ms && revoked.revoked_unix_ms > 0);
    // Revoking again keeps the first time.
    let twice = d
        .revoke_director_key(authed(pb::RevokeDirectorKeyRequest { name: "club".into() }, ROOT))
        .await
        .unwrap()
        .into_inner()
        .key
        .unwrap();
    assert_eq!(twice, revoked);
    let status = d.resume_game(authed(resume(&game.game_id, ""), &first.token)).await.unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (Code::PermissionDenied, "director key \"club\" was revoked")
    );
    assert_eq!(
        code(g.create_game(authed(labelled_game(6, &[("club", "chess-hall")]), &first.token)).await),
        Code::PermissionDenied
    );
    assert_eq!(
        code(g.get_game(authed(pb::GetGameRequest { game_id: game.game_id.clone() }, &first.token)).await),
        Code::PermissionDenied
    );
    // The root still directs the game.
    d.resume_game(authed(resume(&game.game_id, ""), ROOT)).await.unwrap();
    let keys =
        d.list_director_keys(authed(pb::ListDirectorKeysRequest {}, ROOT)).await.unwrap().into_inner().keys;
    assert_eq!(
        keys.iter().map(|k| (k.name.as_str(), k.revoked_unix_ms > 0)).collect::<Vec<_>>(),
        vec![("another", false), ("club", true)]
    );
    assert_eq!(
        code(
            d.revoke_director_key(authed(pb::RevokeDirectorKeyRequest { name: "nobody".into() }, ROOT)).await
        ),
        Code::NotFound
    );
    // A made-up token is no director's.
    assert_eq!(
        code(d.pause_game(authed(pause(&game.game_id, ""), "0123456789abcdef0123456789abcdef")).await),
        Code::PermissionDenied
    );
    // Nor anybody's in a game: a view with it is UNAUTHENTICATED, as on a server with no director.
    let stranger =
        authed(pb::GetGameRequest { game_id: game.game_id.clone() }, "0123456789abcdef0123456789abcdef");
    assert_eq!(code(g.get_game(stranger).await), Code::Unauthenticated);
}

#[tokio::test]
async fn keys_outlive_a_restart() {
    let dir = TempDir::new("director-keys");
    let (srv, _) = start_stored_directed(&dir.0, ROOT).await;
    let mut d = srv.directors().await;
    let kept = make_key(&mut d, "kept", &[("event", "open")]).await;
    let gone = make_key(&mut d, "gone", &[("event", "open")]).await;
    d.revoke_director_key(authed(pb::RevokeDirectorKeyRequest { name: "gone".into() }, ROOT)).await.unwrap();
    srv.stop().await;

    // Started again without the root token: the keys it made still hold, and only they.
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let game = g
        .create_game(authed(labelled_game(7, &[("event", "open")]), &kept.token))
        .await
        .unwrap()
        .into_inner();
    let mut d = srv.directors().await;
    d.pause_game(authed(pause(&game.game_id, ""), &kept.token)).await.unwrap();
    assert_eq!(
        code(d.resume_game(authed(resume(&game.game_id, ""), &gone.token)).await),
        Code::PermissionDenied
    );
    assert_eq!(code(d.resume_game(authed(resume(&game.game_id, ""), ROOT)).await), Code::FailedPrecondition);
}

#[tokio::test]
async fn an_imported_record_takes_labels_from_a_director_only() {
    let srv = start_directed(ROOT).await;
    let (mut g, mut d) = (srv.games().await, srv.directors().await);
    let key = make_key(&mut d, "club", &[("club", "hall")]).await;
    let gcg =
        std::fs::read_to_string(format!("{}/tests/data/gcg/doug_v_emely.gcg", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    let ask = |pairs: &[(&str, &str)]| pb::ImportGcgRequest {
        gcg: gcg.clone(),
        labels: labels(pairs),
        ..Default::default()
    };
    assert_eq!(code(g.import_gcg(ask(&[("club", "hall")])).await), Code::Unauthenticated);
    assert_eq!(
        code(g.import_gcg(authed(ask(&[("club", "other")]), &key.token)).await),
        Code::PermissionDenied
    );
    assert_eq!(code(g.import_gcg(authed(ask(&[("Bad!", "x")]), &key.token)).await), Code::InvalidArgument);
    let imported = g
        .import_gcg(authed(ask(&[("club", "hall"), ("round", "2")]), &key.token))
        .await
        .unwrap()
        .into_inner();
    let export = pb::ExportResultsRequest { key: "round".into(), value: "2".into() };
    let rows = d.export_results(authed(export, &key.token)).await.unwrap().into_inner().rows;
    assert_eq!(rows.iter().map(|r| r.game_id.clone()).collect::<Vec<_>>(), vec![imported.game_id]);
    assert_eq!(rows[0].labels, labels(&[("club", "hall"), ("round", "2")]));
}
