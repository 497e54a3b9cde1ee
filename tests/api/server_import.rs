//! ImportGcg replays a record into a game: a finished record gives a finished game with the
//! record's spread; a record cut short gives a game its players can resume with their tokens.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;

fn record(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/data/gcg/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[tokio::test]
async fn a_finished_record_becomes_a_finished_game() {
    let srv = start().await;
    let mut g = srv.games().await;
    let r = g
        .import_gcg(pb::ImportGcgRequest { gcg: record("doug_v_emely.gcg"), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(r.ok, "{:?}", r.mismatches);
    assert_eq!(
        (r.players.clone(), r.final_scores.clone()),
        (vec!["doug".to_string(), "emely".to_string()], vec![451, 345])
    );
    let v = r.view.unwrap();
    assert!(v.over);
    // The engine's convention moves the rack value instead of doubling it: the same spread.
    assert_eq!(v.seats[0].score - v.seats[1].score, 451 - 345);
    let gcg = g.export_gcg(pb::ExportGcgRequest { game_id: r.game_id }).await.unwrap().into_inner().gcg;
    assert!(gcg.contains(">doug: DINNVWY 8D WINDY +32 32"), "{gcg}");
}

#[tokio::test]
async fn a_record_cut_short_can_be_resumed() {
    let srv = start().await;
    let mut g = srv.games().await;
    let text: String = record("josh2.gcg").lines().take(12).map(|l| format!("{l}\n")).collect();
    let r =
        g.import_gcg(pb::ImportGcgRequest { gcg: text, ..Default::default() }).await.unwrap().into_inner();
    assert!(r.ok, "{:?}", r.mismatches);
    let v = r.view.unwrap();
    assert!(!v.over);
    let seat = v.to_move as usize;
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    let after = g
        .submit_turn(authed(turn(&r.game_id, v.turn, pass), &r.seat_tokens[seat]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(after.view.unwrap().turn, v.turn + 1);
}

#[tokio::test]
async fn a_doctored_record_is_reported() {
    let srv = start().await;
    let mut g = srv.games().await;
    let text = record("vs_andy.gcg").replace("8G GYP +18 18", "8G GYP +19 19");
    let r =
        g.import_gcg(pb::ImportGcgRequest { gcg: text, ..Default::default() }).await.unwrap().into_inner();
    assert!(!r.ok);
    let m = &r.mismatches[0];
    assert_eq!((m.line, m.recorded_score, m.recomputed_score), (3, 19, 18));
    let bad = g.import_gcg(pb::ImportGcgRequest { gcg: ">x 8H".into(), ..Default::default() }).await;
    assert_eq!(code(bad), tonic::Code::InvalidArgument);
}

/// One importer: every record in the test data imports over ImportGcg to the game that
/// `game::record::import_setup` and `import_game` make of it (what `dawgref analyze`, the lab
/// and the fuzzer call), to the same scores and events.
#[tokio::test]
async fn every_record_imports_as_the_one_importer_makes_it() {
    use dawgref::game::record::{ImportAsk, import_game, import_setup};
    let srv = start().await;
    let mut g = srv.games().await;
    let dir = format!("{}/tests/data/gcg", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".gcg"))
        .collect();
    names.sort();
    let mut compared = 0;
    for name in names {
        let text = record(&name);
        let parsed = dawgref::notation::gcg::parse(&text).unwrap();
        let lexicons = srv.handle.host().lexicons().clone();
        let engine = import_setup(&parsed, &ImportAsk::default(), |l| lexicons.get(l).cloned())
            .ok()
            .and_then(|config| import_game(&parsed, config).ok());
        let served = g.import_gcg(pb::ImportGcgRequest { gcg: text, ..Default::default() }).await;
        let (game, served) = match (engine, served) {
            (Some(game), Ok(served)) => (game, served),
            (None, Err(_)) => continue,
            (engine, served) => panic!(
                "{name}: the engine made {:?}, ImportGcg {served:?}",
                engine.map(|g| g.scores().to_vec())
            ),
        };
        let view = view_of(&mut g, pb::GetGameRequest { game_id: served.into_inner().game_id }).await;
        let scores: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
        assert_eq!(scores, game.scores().to_vec(), "{name}");
        assert_eq!(view.events as usize, game.history().len(), "{name}");
        compared += 1;
    }
    assert_eq!(compared, 11, "every record imports");
}
