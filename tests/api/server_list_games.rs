//! GamesService.ListGames: every live game, in game id order, a page at a time, as a watcher sees it,
//! for the holder of the director's token only.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

const DIRECTOR: &str = "the-director-secret";

fn list(page_size: u32, page_token: &str, query: &str) -> pb::ListGamesRequest {
    pb::ListGamesRequest {
        page_size,
        page_token: page_token.into(),
        query: query.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn only_the_directors_token_lists_games() {
    // No director configured: the RPC cannot be used at all.
    let bare = start().await;
    let none = bare.games().await.list_games(authed(list(0, "", ""), DIRECTOR)).await;
    assert_eq!(code(none), Code::FailedPrecondition);
    let srv = start_directed(DIRECTOR).await;
    let mut g = srv.games().await;
    assert_eq!(code(g.list_games(list(0, "", "")).await), Code::Unauthenticated);
    assert_eq!(code(g.list_games(authed(list(0, "", ""), "wrong")).await), Code::PermissionDenied);
    // A seat's token is not the director's either.
    let c = two_humans(&mut g, 1).await;
    assert_eq!(code(g.list_games(authed(list(0, "", ""), &c.seat_tokens[0])).await), Code::PermissionDenied);
    let all = g.list_games(authed(list(0, "", ""), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(all.total, 1);
    assert_eq!(all.games[0].game_id, c.game_id);
}

#[tokio::test]
async fn pages_cover_every_live_game_once_without_racks() {
    let srv = start_directed(DIRECTOR).await;
    let mut g = srv.games().await;
    let mut ids = Vec::new();
    for seed in 0..7 {
        let c = g
            .create_game(create(
                pb::Ruleset::English,
                pb::ChallengeRule::Single,
                vec![human(&format!("player{seed}")), human("Zoë")],
                seed,
            ))
            .await
            .unwrap()
            .into_inner();
        ids.push(c.game_id);
    }
    // A finished game is not live: it is not listed.
    let over = two_humans(&mut g, 99).await;
    let resign = Some(pb::submit_turn_request::Action::Resign(pb::Resign {}));
    g.submit_turn(authed(turn(&over.game_id, 0, resign), &over.seat_tokens[0])).await.unwrap();
    ids.sort();

    let mut seen = Vec::new();
    let mut token = String::new();
    let mut pages = 0;
    loop {
        let page = g.list_games(authed(list(3, &token, ""), DIRECTOR)).await.unwrap().into_inner();
        pages += 1;
        assert_eq!(page.total, 7);
        for v in &page.games {
            assert_eq!(v.my_rack, "", "a director sees no rack");
            assert_eq!(v.my_seat, None);
            assert_eq!(v.seats.len(), 2);
            assert_eq!(v.seats[0].rack_size, 7);
            assert_eq!(v.board.as_ref().unwrap().rows.len(), 15);
        }
        seen.extend(page.games.into_iter().map(|v| v.game_id));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(pages, 3, "7 games in pages of 3");
    assert_eq!(seen, ids, "every live game once, in id order");
}

#[tokio::test]
async fn a_query_finds_games_by_id_prefix_or_player_name() {
    let srv = start_directed(DIRECTOR).await;
    let mut g = srv.games().await;
    let table = |name: &str, seed| {
        create(pb::Ruleset::Russian, pb::ChallengeRule::Single, vec![human(name), human("Борис")], seed)
    };
    let anna = g.create_game(table("Анна Каренина", 1)).await.unwrap().into_inner();
    let carl = g.create_game(table("Carl", 2)).await.unwrap().into_inner();
    let found = |r: pb::ListGamesResponse| r.games.into_iter().map(|v| v.game_id).collect::<Vec<_>>();
    let by_name = g.list_games(authed(list(0, "", "каренина"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(found(by_name), vec![anna.game_id.clone()], "a name's letters in any case");
    let both = g.list_games(authed(list(0, "", "борис"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(both.total, 2);
    let by_id = g.list_games(authed(list(0, "", &carl.game_id[..8]), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(found(by_id), vec![carl.game_id]);
    let nobody = g.list_games(authed(list(0, "", "nobody"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!((nobody.total, nobody.games.len(), nobody.next_page_token.as_str()), (0, 0, ""));
}

#[tokio::test]
async fn bad_paging_is_refused_by_field_and_a_big_page_served_as_the_largest() {
    let srv = start_directed(DIRECTOR).await;
    let mut g = srv.games().await;
    // A page larger than the largest (100) is served as the largest (AIP-158), not refused.
    for _ in 0..3 {
        two_humans(&mut g, 1).await;
    }
    let big = g.list_games(authed(list(1_000_000, "", ""), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!((big.total, big.games.len()), (3, 3));
    let token = g.list_games(authed(list(0, "not-a-token", ""), DIRECTOR)).await.unwrap_err();
    assert_eq!(token.code(), Code::InvalidArgument);
    assert!(token.message().contains("page_token"), "{}", token.message());
    let long = "x".repeat(101);
    let query = g.list_games(authed(list(0, "", &long), DIRECTOR)).await.unwrap_err();
    assert_eq!(query.code(), Code::InvalidArgument);
    assert!(query.message().contains("query"), "{}", query.message());
}
