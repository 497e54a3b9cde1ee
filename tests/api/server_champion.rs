//! The champion's analyses over the wire: InferRack (on a game's past turn, public only; on a
//! CGP and an action), SolvePreEndgame (a stream ending `done`, every candidate's record), the
//! endgame's several lines, Simulate drawing the opponent's rack from an inference, and a
//! champion seat's think time; bad input gets a typed error.

use crate::common;

use common::lexicon;
use common::server::*;
use dawgref::bot::{BotLevel, play_while};
use dawgref::game::{ChallengeRule, Game, GameConfig};
use dawgref::notation::cgp as cgp_text;
use dawgref::proto::v1 as pb;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::timeout;
use tonic::Code;

/// A strong-bot game from `seed` stopped once the bag holds `bag` tiles, as a CGP line showing
/// only the mover's rack.
fn with_bag(kind: RulesetKind, seed: u64, bag: usize) -> Option<(Game, String)> {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(Arc::new(Ruleset::new(kind)), lex, seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    play_while(&mut game, &[BotLevel::Strong], 1000, |g| g.bag_len() > bag).unwrap();
    if game.is_over() || game.bag_len() != bag {
        return None;
    }
    let me = game.to_move();
    let scores = [game.scores()[me], game.scores()[1 - me]];
    let ops = cgp_text::Ops { lex: Some(Ruleset::new(kind).default_lexicon.into()), ..Default::default() };
    let line = cgp_text::write(&cgp_text::from_board(
        game.board(),
        &[*game.rack(me).unwrap(), Rack::new()],
        &scores,
        game.scoreless_turns(),
        ops,
    ));
    Some((game, line))
}

fn infer_turn(game_id: &str, turn: u32) -> pb::InferRackRequest {
    pb::InferRackRequest { game_id: game_id.into(), turn, budget_ms: 500, ..Default::default() }
}

#[tokio::test]
async fn a_past_turn_is_explained_from_what_was_public_and_a_future_one_is_refused() {
    let srv = start().await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let c = two_humans(&mut g, 4).await;
    // Seat 0 plays its best move.
    let best = best_move(&mut a, &c.game_id, &c.seat_tokens[0]).await.expect("a play");
    g.submit_turn(authed(
        turn(&c.game_id, 0, Some(pb::submit_turn_request::Action::Play(best.play.unwrap()))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    let public = a.infer_rack(infer_turn(&c.game_id, 0)).await.unwrap().into_inner();
    assert_eq!(public.seat, 0);
    assert!(!public.leaves.is_empty() && public.leaves.len() <= 20);
    let listed: f64 = public.leaves.iter().map(|l| l.probability).sum();
    assert!(listed > 0.0 && listed <= 1.0 + 1e-9, "{listed}");
    for pair in public.leaves.windows(2) {
        assert!(pair[0].probability >= pair[1].probability, "most likely first");
    }
    for l in &public.leaves {
        assert_eq!(l.leave.chars().count() as u32, public.leave_size);
    }
    // 26 letters and the blank, each a probability.
    assert_eq!(public.letters.len(), 27);
    assert_eq!(public.letters.last().unwrap().letter, "?");
    assert!(public.letters.iter().all(|l| (0.0..=1.0 + 1e-9).contains(&l.probability)));
    // A person's play: the default model.
    assert_eq!((public.tolerance, public.spread, public.floor), (0.5, 1.0, 0.01));
    // Only what was public is used: a seat's token (its own rack then) changes nothing.
    let with_token =
        a.infer_rack(authed(infer_turn(&c.game_id, 0), &c.seat_tokens[1])).await.unwrap().into_inner();
    let with_own =
        a.infer_rack(authed(infer_turn(&c.game_id, 0), &c.seat_tokens[0])).await.unwrap().into_inner();
    assert_eq!(with_token, public);
    assert_eq!(with_own, public);
    // The turn now being played (seat 1's rack) has not been taken: nothing to say about it.
    assert_eq!(code(a.infer_rack(infer_turn(&c.game_id, 1)).await), Code::FailedPrecondition);
    assert_eq!(code(a.infer_rack(infer_turn(&c.game_id, 50)).await), Code::FailedPrecondition);
    assert_eq!(
        code(a.infer_rack(infer_turn("9b2f4ae6-1c1f-4d44-9e0a-0a4bd1f7c0de", 0)).await),
        Code::NotFound
    );
    let mut too_long = infer_turn(&c.game_id, 0);
    too_long.budget_ms = 60_001;
    assert_eq!(code(a.infer_rack(too_long).await), Code::InvalidArgument);
    // A list longer than the most served is served as the most (AIP-158), not refused.
    let mut too_many = infer_turn(&c.game_id, 0);
    too_many.limit = 1_000_000;
    let answer = a.infer_rack(too_many).await.unwrap().into_inner();
    assert!(!answer.leaves.is_empty() && answer.leaves.len() <= 1000, "{}", answer.leaves.len());
}

/// The `strong` bot chooses by static equity, so its plays are judged by the tight model: its
/// true leave is among the likeliest.
#[tokio::test]
async fn a_strong_bots_play_is_judged_as_a_static_players() {
    let srv = start().await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let req =
        create(pb::Ruleset::English, pb::ChallengeRule::Void, vec![bot(pb::BotLevel::Strong), human("b")], 5);
    let c = g.create_game(req).await.unwrap().into_inner();
    srv.settled(&c.game_id).await;
    let answer = a.infer_rack(infer_turn(&c.game_id, 0)).await.unwrap().into_inner();
    assert_eq!(answer.seat, 0);
    assert_eq!((answer.tolerance, answer.spread, answer.floor), (0.1, 0.5, 0.01));
}

#[tokio::test]
async fn a_cgp_and_an_action_are_explained_and_malformed_ones_refused() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let empty = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 / 0/0 0 lex en;";
    let play = |notation: &str| pb::InferRackRequest {
        cgp: empty.into(),
        play: notation_play(notation),
        budget_ms: 300,
        ..Default::default()
    };
    let answer = a.infer_rack(play("8D WINDY")).await.unwrap().into_inner();
    assert_eq!((answer.seat, answer.leave_size), (0, 2));
    assert!(!answer.leaves.is_empty());
    // A pass keeps all seven; an exchange of three keeps four.
    let pass = pb::InferRackRequest { cgp: empty.into(), pass: true, budget_ms: 200, ..Default::default() };
    assert_eq!(a.infer_rack(pass).await.unwrap().into_inner().leave_size, 7);
    let exchange = pb::InferRackRequest {
        cgp: empty.into(),
        exchange: Some("QVW".into()),
        budget_ms: 200,
        ..Default::default()
    };
    assert_eq!(a.infer_rack(exchange).await.unwrap().into_inner().leave_size, 4);
    // No action, two actions, a play off the board, both a game and a CGP: INVALID_ARGUMENT.
    let none = pb::InferRackRequest { cgp: empty.into(), ..Default::default() };
    assert_eq!(code(a.infer_rack(none).await), Code::InvalidArgument);
    let two = pb::InferRackRequest { pass: true, ..play("8D WINDY") };
    assert_eq!(code(a.infer_rack(two).await), Code::InvalidArgument);
    assert_eq!(code(a.infer_rack(play("8M WINDY")).await), Code::InvalidArgument);
    let both = pb::InferRackRequest { game_id: "x".into(), ..play("8D WINDY") };
    assert_eq!(code(a.infer_rack(both).await), Code::InvalidArgument);
    let neither = pb::InferRackRequest::default();
    assert_eq!(code(a.infer_rack(neither).await), Code::InvalidArgument);
}

fn peg_request(line: &str, budget_ms: u32) -> pb::SolvePreEndgameRequest {
    pb::SolvePreEndgameRequest { position: cgp(line), candidates: 4, budget_ms, ..Default::default() }
}

#[tokio::test]
async fn a_pre_endgame_streams_every_candidates_record_until_done() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    for kind in RulesetKind::classic() {
        let (_, line) = (1..60).find_map(|seed| with_bag(kind, seed, 1)).expect("one tile in the bag");
        let mut stream = a.solve_pre_endgame(peg_request(&line, 1500)).await.unwrap().into_inner();
        let mut updates = Vec::new();
        timeout(Duration::from_secs(60), async {
            while let Some(u) = stream.message().await.unwrap() {
                updates.push(u);
            }
        })
        .await
        .expect("the search ends");
        let last = updates.last().expect("an update");
        assert!(last.done, "{kind}");
        assert!(updates[..updates.len() - 1].iter().all(|u| !u.done));
        // Four plays and the pass; one scenario per distinct unseen tile, all of them orders.
        assert_eq!(last.candidates.len(), 5, "{kind}");
        assert_eq!(last.candidates.iter().filter(|c| c.pass).count(), 1);
        assert!(last.every_order && last.scenarios >= 1 && last.scenarios <= 8, "{kind}: {last:?}");
        assert!(last.scenarios_done >= 1);
        for c in &last.candidates {
            assert_eq!(c.scenarios, last.scenarios_done);
            assert!((c.wins + c.draws + c.losses - 1.0).abs() < 1e-9, "{kind}: {c:?}");
            assert!((c.win_percent - 100.0 * (c.wins + c.draws / 2.0)).abs() < 1e-6);
        }
        // Best first.
        for c in &last.candidates[1..] {
            assert!(c.win_percent <= last.candidates[0].win_percent + 1e-9, "{kind}");
        }
    }
}

#[tokio::test]
async fn a_bag_too_full_or_empty_for_the_pre_endgame_is_refused() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let (_, full) = (1..60).find_map(|seed| with_bag(RulesetKind::english(), seed, 30)).unwrap();
    assert_eq!(code(a.solve_pre_endgame(peg_request(&full, 1000)).await), Code::FailedPrecondition);
    let (_, empty) = (1..60).find_map(|seed| with_bag(RulesetKind::english(), seed, 0)).unwrap();
    assert_eq!(code(a.solve_pre_endgame(peg_request(&empty, 1000)).await), Code::FailedPrecondition);
    let (_, one) = (1..60).find_map(|seed| with_bag(RulesetKind::english(), seed, 1)).unwrap();
    assert_eq!(code(a.solve_pre_endgame(peg_request(&one, 60_001)).await), Code::InvalidArgument);
    let mut many = peg_request(&one, 1000);
    many.candidates = 31;
    assert_eq!(code(a.solve_pre_endgame(many).await), Code::InvalidArgument);
    let mut scenarios = peg_request(&one, 1000);
    scenarios.max_scenarios = 10_001;
    assert_eq!(code(a.solve_pre_endgame(scenarios).await), Code::InvalidArgument);
}

#[tokio::test]
async fn an_endgame_answers_its_best_lines() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let (_, line) = (1..60).find_map(|seed| with_bag(RulesetKind::english(), seed, 0)).unwrap();
    let request =
        |lines| pb::SolveEndgameRequest { position: cgp(&line), rack: None, budget_ms: 3000, lines };
    let one = a.solve_endgame(request(0)).await.unwrap().into_inner();
    assert_eq!(one.lines.len(), 1);
    assert_eq!(
        (one.lines[0].value, &one.lines[0].principal_variation),
        (one.value, &one.principal_variation)
    );
    let three = a.solve_endgame(request(3)).await.unwrap().into_inner();
    assert!(!three.lines.is_empty() && three.lines.len() <= 3);
    assert_eq!(three.lines[0].value, three.value);
    for pair in three.lines.windows(2) {
        assert!(pair[0].value >= pair[1].value);
    }
    for l in &three.lines {
        assert_eq!(l.final_spread - l.value, three.final_spread - three.value);
    }
    assert_eq!(code(a.solve_endgame(request(11)).await), Code::InvalidArgument);
}

#[tokio::test]
async fn a_simulation_can_draw_the_opponents_rack_from_an_inference() {
    let srv = start().await;
    let (mut g, mut a) = (srv.games().await, srv.analysis().await);
    let c = two_humans(&mut g, 6).await;
    let best = best_move(&mut a, &c.game_id, &c.seat_tokens[0]).await.expect("a play");
    g.submit_turn(authed(
        turn(&c.game_id, 0, Some(pb::submit_turn_request::Action::Play(best.play.unwrap()))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    let live = Some(pb::Position {
        source: Some(pb::position::Source::GameId(c.game_id.clone())),
        lexicon: String::new(),
    });
    let request = pb::SimulateRequest {
        position: live,
        candidates: 3,
        budget_ms: 300,
        infer_opponent: true,
        ..Default::default()
    };
    let mut stream = a.simulate(authed(request, &c.seat_tokens[1])).await.unwrap().into_inner();
    let mut last = None;
    while let Some(u) = stream.message().await.unwrap() {
        last = Some(u);
    }
    let last = last.unwrap();
    assert!(last.done && last.inferred);
    // A CGP has no history to infer from.
    let on_cgp = pb::SimulateRequest {
        position: cgp("15/15/15/15/15/15/15/3WINDY7/15/15/15/15/15/15/15 AEINRST/ 32/0 0 lex en;"),
        budget_ms: 100,
        infer_opponent: true,
        ..Default::default()
    };
    assert_eq!(code(a.simulate(on_cgp).await), Code::InvalidArgument);
}

#[tokio::test]
async fn a_champion_seat_thinks_as_long_as_it_is_told_and_only_a_champion_may_be_told() {
    let srv = start().await;
    let mut g = srv.games().await;
    let champion = |ms| pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Champion as i32)),
        think_ms: ms,
    };
    let c = g
        .create_game(create(
            pb::Ruleset::Russian,
            pb::ChallengeRule::Single,
            vec![human("p"), champion(Some(50))],
            3,
        ))
        .await
        .unwrap()
        .into_inner();
    // The champion answers the person's pass within its think time.
    g.submit_turn(authed(
        turn(&c.game_id, 0, Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))),
        &c.seat_tokens[0],
    ))
    .await
    .unwrap();
    srv.settled(&c.game_id).await;
    let view = view_of(&mut g, pb::GetGameRequest { game_id: c.game_id.clone() }).await;
    assert_eq!(view.turn, 2);
    for (think, seat) in [(Some(49), champion(Some(49))), (Some(60_001), champion(Some(60_001)))] {
        let e = g
            .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("p"), seat], 1))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{think:?}");
        assert!(e.message().contains("think_ms"), "{}", e.message());
    }
    let strong = pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Bot(pb::BotLevel::Strong as i32)),
        think_ms: Some(500),
    };
    let person = pb::SeatSpec { think_ms: Some(500), ..human("q") };
    for seat in [strong, person] {
        let e = g
            .create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("p"), seat], 1))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument);
    }
}
