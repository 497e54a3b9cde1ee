//! Records the server writes read back, whoever downloaded them and whenever: a player's or a
//! watcher's record of a game in play (the other racks hidden) imports with those racks unknown;
//! a resignation is in the record and imports as one; a Super English record imports as Super
//! English without the importer naming it; Spanish bot games, whose racks and plays hold single
//! tiles that spell longer ones side by side (R R, C H, L L), import as themselves; and in every
//! shipped ruleset, generated games read back from every view.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::transport::Channel;

type Games = pb::games_service_client::GamesServiceClient<Channel>;

/// `turns` turns of a two-person game, each the best play (or a pass).
async fn play_turns(
    srv: &TestServer,
    g: &mut Games,
    c: &pb::CreateGameResponse,
    turns: usize,
) -> pb::GameView {
    let mut a = srv.analysis().await;
    for _ in 0..turns {
        let v = view_of(g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
        if v.over || v.awaiting_final_challenge {
            break;
        }
        let token = &c.seat_tokens[v.to_move as usize];
        let action = match best_move(&mut a, &c.game_id, token).await {
            Some(m) => pb::submit_turn_request::Action::Play(m.play.unwrap()),
            None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
        };
        g.submit_turn(authed(turn(&c.game_id, v.turn, Some(action)), token)).await.unwrap();
    }
    view_of(g, pb::GetGameRequest { game_id: c.game_id.clone() }).await
}

async fn export(g: &mut Games, game_id: &str, token: Option<&str>) -> String {
    let request = pb::ExportGcgRequest { game_id: game_id.into() };
    let request = match token {
        Some(t) => authed(request, t),
        None => tonic::Request::new(request),
    };
    g.export_gcg(request).await.unwrap().into_inner().gcg
}

async fn import(g: &mut Games, gcg: &str) -> pb::ImportGcgResponse {
    let r = g.import_gcg(pb::ImportGcgRequest { gcg: gcg.into(), ..Default::default() }).await;
    r.unwrap_or_else(|e| panic!("{e:?}\n{gcg}")).into_inner()
}

fn scores(v: &pb::GameView) -> Vec<i32> {
    v.seats.iter().map(|s| s.score).collect()
}

#[tokio::test]
async fn a_players_or_watchers_record_of_a_game_in_play_imports_with_the_hidden_racks_unknown() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 42).await;
    let now = play_turns(&srv, &mut g, &c, 8).await;
    assert!(!now.over);
    let views = [Some(c.seat_tokens[0].as_str()), Some(c.seat_tokens[1].as_str()), None];
    for (who, token) in views.into_iter().enumerate() {
        let gcg = export(&mut g, &c.game_id, token).await;
        let r = import(&mut g, &gcg).await;
        assert!(r.ok, "view {who}: {:?}\n{gcg}", r.mismatches);
        let v = r.view.unwrap();
        assert_eq!(v.board, now.board, "view {who}\n{gcg}");
        assert_eq!(scores(&v), scores(&now), "view {who}");
        assert_eq!((v.over, v.turn), (false, now.turn), "view {who}: the game goes on from where it stood");
    }
}

#[tokio::test]
async fn a_resignation_is_in_the_record_and_imports_as_one() {
    let srv = start().await;
    let mut g = srv.games().await;
    let c = two_humans(&mut g, 7).await;
    let v = play_turns(&srv, &mut g, &c, 3).await;
    let resign = pb::submit_turn_request::Action::Resign(pb::Resign {});
    let token = &c.seat_tokens[v.to_move as usize];
    g.submit_turn(authed(turn(&c.game_id, v.turn, Some(resign)), token)).await.unwrap();
    let end = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert!(end.over);
    let gcg = export(&mut g, &c.game_id, None).await;
    let resigner = if v.to_move == 0 { "a" } else { "b" };
    assert!(gcg.lines().any(|l| l == format!("#note {resigner} resigned")), "{gcg}");
    let r = import(&mut g, &gcg).await;
    let back = r.view.unwrap();
    assert_eq!(
        (back.over, back.end_reason.clone(), back.winners.clone(), scores(&back)),
        (true, end.end_reason.clone(), end.winners.clone(), scores(&end))
    );
}

#[tokio::test]
async fn a_super_english_record_imports_as_super_english_unasked() {
    let srv = start().await;
    let mut g = srv.games().await;
    let request = pb::CreateGameRequest {
        ruleset_name: "super-english".into(),
        ..create(pb::Ruleset::Unspecified, pb::ChallengeRule::Single, vec![human("a"), human("b")], 5)
    };
    let c = g.create_game(request).await.unwrap().into_inner();
    let now = play_turns(&srv, &mut g, &c, 4).await;
    let gcg = export(&mut g, &c.game_id, None).await;
    let r = import(&mut g, &gcg).await;
    let v = r.view.unwrap();
    assert_eq!(v.ruleset_name, "super-english", "{gcg}");
    assert_eq!(v.board, now.board);
    assert_eq!(scores(&v), scores(&now));
}

/// A server with Debian's Spanish word list as `spanish` (`scripts/test` installs it).
async fn spanish_server() -> TestServer {
    let spanish = dawgref::rules::RulesetKind::by_name("spanish").unwrap();
    let es = common::debian_lexicon(spanish).0.clone();
    let mut lexicons: Vec<_> =
        dawgref::rules::RulesetKind::classic().iter().map(|&k| common::lexicon(k).clone()).collect();
    lexicons.push(es);
    serve(dawgref::server::Builder::new(lexicons)).await.0
}

#[tokio::test]
async fn spanish_bot_games_export_records_that_import_as_themselves() {
    let srv = spanish_server().await;
    let mut g = srv.games().await;
    let mut spelled = 0;
    for seed in 1..=4u64 {
        let request = pb::CreateGameRequest {
            ruleset_name: "spanish".into(),
            lexicon: "spanish".into(),
            bot_delay_ms: Some(0),
            ..create(
                pb::Ruleset::Unspecified,
                pb::ChallengeRule::Single,
                vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Greedy)],
                seed,
            )
        };
        let c = g.create_game(request).await.unwrap().into_inner();
        watch_to_end(&mut g, &c.game_id, 0).await;
        let end = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
        let gcg = export(&mut g, &c.game_id, None).await;
        spelled += usize::from(["[R]R", "[C]H", "[L]L"].iter().any(|s| gcg.contains(s)));
        let r = import(&mut g, &gcg).await;
        assert!(r.ok, "seed {seed}: {:?}\n{gcg}", r.mismatches);
        let v = r.view.unwrap();
        assert_eq!(v.ruleset_name, "spanish");
        assert_eq!(v.board, end.board, "seed {seed}\n{gcg}");
        assert_eq!(scores(&v), scores(&end), "seed {seed}");
    }
    assert!(spelled > 0, "some game held single tiles that spell a longer one side by side");
}

/// Games per ruleset of the generated round trip (`DAWGREF_ROUND_TRIPS`, as the engine's).
fn round_trips() -> u64 {
    std::env::var("DAWGREF_ROUND_TRIPS").ok().and_then(|n| n.parse().ok()).unwrap_or(1)
}

/// In every shipped ruleset (all twelve; the nine without a lexicon of their own on Debian's
/// word lists), over the API: a finished bot game's record, and a game in play's records as each
/// player and a watcher download them (the others' racks hidden), import without being told the
/// ruleset to the same board and scores, the finished one to the same end.
#[tokio::test]
async fn every_rulesets_records_read_back_through_the_api_from_every_view() {
    use dawgref::rules::RulesetKind;
    let kinds: Vec<RulesetKind> =
        RulesetKind::all().into_iter().filter(|k| k.definition().source == "shipped").collect();
    assert_eq!(kinds.len(), 12);
    let mut lexicons: Vec<_> = RulesetKind::classic().iter().map(|&k| common::lexicon(k).clone()).collect();
    for kind in &kinds {
        if kind.definition().default_lexicon.is_empty() {
            lexicons.push(common::debian_lexicon(*kind).0.clone());
        }
    }
    let names: Vec<(RulesetKind, String)> = kinds
        .iter()
        .map(|&k| {
            let own = &k.definition().default_lexicon;
            let lex = lexicons
                .iter()
                .find(|l| if own.is_empty() { l.alphabet() == k.alphabet() } else { l.name() == own });
            (k, lex.unwrap_or_else(|| panic!("{k}: no lexicon")).name().to_string())
        })
        .collect();
    let srv = serve(dawgref::server::Builder::new(lexicons)).await.0;
    let mut g = srv.games().await;
    let (mut finished, mut views) = (0, 0);
    for (kind, lexicon) in names {
        for seed in 0..round_trips() {
            let game = |seats| pb::CreateGameRequest {
                ruleset_name: kind.to_string(),
                lexicon: lexicon.clone(),
                ..create(pb::Ruleset::Unspecified, pb::ChallengeRule::Single, seats, 900 + seed)
            };
            // A finished game, as anyone downloads it: every rack shown.
            let seats = vec![bot(pb::BotLevel::Strong), bot(pb::BotLevel::Greedy)];
            let c = g.create_game(game(seats)).await.unwrap().into_inner();
            watch_to_end(&mut g, &c.game_id, 0).await;
            let end = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
            assert!(end.over, "{kind} seed {seed}");
            let gcg = export(&mut g, &c.game_id, None).await;
            let r = import(&mut g, &gcg).await;
            assert!(r.ok, "{kind} seed {seed}: {:?}\n{gcg}", r.mismatches);
            let v = r.view.unwrap();
            assert_eq!(v.ruleset_name, kind.name(), "{gcg}");
            assert_eq!((&v.board, scores(&v)), (&end.board, scores(&end)), "{kind} seed {seed}\n{gcg}");
            assert_eq!((v.over, &v.end_reason, &v.winners), (true, &end.end_reason, &end.winners), "{kind}");
            finished += 1;
            // A game in play, as each player and a watcher download it.
            let c = g.create_game(game(vec![human("uno"), human("dos")])).await.unwrap().into_inner();
            let now = play_turns(&srv, &mut g, &c, 6).await;
            for (who, token) in [Some(c.seat_tokens[0].as_str()), Some(c.seat_tokens[1].as_str()), None]
                .into_iter()
                .enumerate()
            {
                let gcg = export(&mut g, &c.game_id, token).await;
                let r = import(&mut g, &gcg).await;
                assert!(r.ok, "{kind} seed {seed} view {who}: {:?}\n{gcg}", r.mismatches);
                let v = r.view.unwrap();
                assert_eq!(v.ruleset_name, kind.name(), "{gcg}");
                assert_eq!(
                    (&v.board, scores(&v)),
                    (&now.board, scores(&now)),
                    "{kind} seed {seed} view {who}\n{gcg}"
                );
                assert_eq!((v.over, v.turn), (now.over, now.turn), "{kind} seed {seed} view {who}");
                views += 1;
            }
        }
    }
    assert_eq!((finished, views), (12 * round_trips(), 36 * round_trips()));
    srv.stop().await;
}
