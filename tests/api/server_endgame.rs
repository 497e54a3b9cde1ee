//! AnalysisService/SolveEndgame over the wire: on a CGP endgame it answers minimax's exact value, the
//! final spread from the CGP's scores and a line that starts with a legal move; positions that
//! are not endgames, and budgets out of range, get typed errors.

use crate::common;

use common::lexicon;
use common::server::*;
use dawgref::bot::{BotLevel, play_while};
use dawgref::endgame::{Position, minimax};
use dawgref::game::{ChallengeRule, Game, GameConfig};
use dawgref::notation::cgp;
use dawgref::proto::v1 as pb;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use std::sync::Arc;
use tonic::Code;

/// A greedy game from `seed` played on past the empty bag until both racks hold at most three
/// tiles, as a CGP line that shows only the mover's rack.
fn small_endgame(kind: RulesetKind, seed: u64) -> Option<(Game, String)> {
    let lex = Arc::new(lexicon(kind).clone());
    let mut config = GameConfig::new(Arc::new(Ruleset::new(kind)), lex, seed);
    config.challenge = ChallengeRule::Void;
    let mut game = Game::new(config).unwrap();
    let small = |g: &Game| g.bag_len() == 0 && (0..2).all(|s| g.rack(s).unwrap().len() <= 3);
    play_while(&mut game, &[BotLevel::Greedy], 1000, |g| !small(g)).unwrap();
    if game.is_over() {
        return None;
    }
    let me = game.to_move();
    let scores = [game.scores()[me], game.scores()[1 - me]];
    let lex = Ruleset::new(kind).default_lexicon;
    let ops = cgp::Ops { lex: Some(lex.into()), ..Default::default() };
    let line = cgp::write(&cgp::from_board(
        game.board(),
        &[*game.rack(me).unwrap(), Rack::new()],
        &scores,
        game.scoreless_turns(),
        ops,
    ));
    Some((game, line))
}

fn solve_request(position: Option<pb::Position>, budget_ms: u32) -> pb::SolveEndgameRequest {
    pb::SolveEndgameRequest { position, rack: None, budget_ms, lines: 0 }
}

#[tokio::test]
async fn a_cgp_endgame_is_solved_exactly() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    let mut solved = 0;
    for kind in RulesetKind::classic() {
        let (game, line) = (1..50).find_map(|seed| small_endgame(kind, seed)).expect("a small endgame");
        let position = Position::from_game(&game).unwrap();
        let exact = minimax(&position, game.config().lexicon.dawg(), 1_000_000).expect("a small endgame");
        let answer = a.solve_endgame(solve_request(cgp(&line), 30_000)).await.unwrap().into_inner();
        let me = game.to_move();
        let spread = game.scores()[me] - game.scores()[1 - me];
        assert!(answer.exact, "{kind}: {line}");
        assert_eq!(answer.value, exact, "{kind}: {line}");
        assert_eq!(answer.final_spread, spread + exact, "{kind}: {line}");
        assert!(answer.depth >= 1 && answer.nodes >= 1);
        // The line's first move is legal for the mover (or a pass).
        let first = answer.principal_variation.first().expect("a move");
        if let Some(play) = &first.play {
            let v = a
                .validate_play(pb::ValidatePlayRequest {
                    position: cgp(&line),
                    play: notation_play(&play.notation),
                    rack: None,
                })
                .await
                .unwrap()
                .into_inner();
            assert!(v.valid, "{kind}: {}", play.notation);
            assert_eq!(v.evaluation.unwrap().total, first.score);
        } else {
            assert!(first.pass);
        }
        solved += 1;
    }
    assert_eq!(solved, 3);
}

#[tokio::test]
async fn what_is_not_an_endgame_is_refused() {
    let srv = start().await;
    let mut a = srv.analysis().await;
    // A mid-game position: tiles are still in the bag.
    let mid = "11KATI/9H3U1/2U5CATGUT1/2N6R3O1/2F6I3Y1/2IT5J3E1/2XI5A3R1/3MIDNOON3S1/3E1EYEN6/3WAVE8/3O11/3R11/3N11/15/15 LLRRTWZ/ 168/297 0 lex en; ld english;";
    let err = a.solve_endgame(solve_request(cgp(mid), 100)).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition);
    assert!(err.message().contains("the bag is not empty"), "{}", err.message());
    // The budget is bounded.
    let err = a.solve_endgame(solve_request(cgp(mid), 60_001)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert!(err.message().starts_with("budget_ms:"), "{}", err.message());
    // Three players.
    let three = "15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 DOG// 5/0/0 0 lex en;";
    assert_eq!(code(a.solve_endgame(solve_request(cgp(three), 100)).await), Code::FailedPrecondition);
    // A live game at its start, from a seat and from a watcher (who has no rack).
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 7).await;
    let by_id = Some(pb::Position {
        source: Some(pb::position::Source::GameId(created.game_id.clone())),
        lexicon: String::new(),
    });
    let token = &created.seat_tokens[0];
    let err = a.solve_endgame(authed(solve_request(by_id.clone(), 100), token)).await.unwrap_err();
    assert_eq!(err.code(), Code::FailedPrecondition, "{}", err.message());
    let err = a.solve_endgame(solve_request(by_id, 100)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{}", err.message());
    assert!(err.message().starts_with("rack:"), "{}", err.message());
}
