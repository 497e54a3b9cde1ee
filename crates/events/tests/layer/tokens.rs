//! ReissuePlayerToken: a player's token made anew, the old one no longer theirs on the
//! tournament or in their games in play (here, or at the owner on another replica), noted once
//! per request id; a bot has none.

use crate::fakes::*;
use dawgref_events::Actor;
use dawgref_host::{Route, hash};
use dawgref_tournament::{Method, PlayerId};

const FOUR: &[&str] = &["Ann", "Bo", "Cy", "Di"];

/// Tournament `t` of division "A", its round 1 (Ann–Bo, Cy–Di) paired by hand; each player's
/// token `old-<n>`.
async fn made(layer: &Layer) {
    let mut t = tournament("t", &[("A", FOUR, &[Method::Manual, Method::Manual])]);
    t.divisions[0].tokens = (1..=4).map(|n| Some(hash(&format!("old-{n}")))).collect();
    layer.events.create_tournament(&Actor::Root, t).await.unwrap();
    layer.set_pairings("t", "A", 1, &[(1, 2), (3, 4)]).await;
}

#[tokio::test]
async fn a_players_new_token_finds_them_the_old_does_not_and_a_retry_makes_no_other() {
    let layer = Layer::new();
    made(&layer).await;
    let owners = FakeOwners::default();
    let ann = Actor::Key("ann".into());
    let first =
        layer.events.reissue_token("t", &ann, "r1", "A", 3, "new-3", &owners, said("first")).await.unwrap();
    assert_eq!((first.tag.as_str(), first.did), ("first", Did::Player { division: 0, player: 2 }));
    let record = layer.record_of("t").await;
    assert_eq!(record.player_of_token("new-3").map(|(_, p, _)| p), Some(PlayerId(2)));
    assert_eq!(record.player_of_token("old-3"), None);
    assert_eq!(record.player_of_token("old-4").map(|(_, p, _)| p), Some(PlayerId(3)));
    // A retry answers the first answer and makes no other token.
    let again =
        layer.events.reissue_token("t", &ann, "r1", "A", 3, "newer-3", &owners, said("again")).await.unwrap();
    assert_eq!(again.tag, "first");
    let record = layer.record_of("t").await;
    assert_eq!(record.player_of_token("newer-3"), None);
    assert!(record.player_of_token("new-3").is_some());
    assert_eq!(
        layer.events_from("t", 2).await,
        [ev(2, "token_reissued", "A", 0, 0, "Cy's token made anew", "ann", &[3])]
    );
    assert!(owners.token_calls().is_empty());
}

#[tokio::test]
async fn a_bot_or_no_such_player_has_no_token_to_make_and_nothing_is_written() {
    let layer = Layer::new();
    let mut t = tournament("t", &[("A", FOUR, &[Method::Manual])]);
    t.divisions[0].players[1].bot = Some("strong".into());
    t.divisions[0].tokens[1] = None;
    layer.events.create_tournament(&Actor::Root, t).await.unwrap();
    let owners = FakeOwners::default();
    let bot = layer.events.reissue_token("t", &Actor::Root, "", "A", 2, "x", &owners, said("")).await;
    assert_eq!(refused(bot), precondition("player 2 (Bo) is the server's strong bot: a bot has no token"));
    let fifth = layer.events.reissue_token("t", &Actor::Root, "", "A", 5, "x", &owners, said("")).await;
    assert_eq!(
        refused(fifth),
        invalid(
            dawgref_events::Invalid::NoSuchPlayer {
                player: 5,
                players: 4,
                by: dawgref_events::PlayerNamed::Player
            },
            "5: the division has players 1 to 4"
        )
    );
    let player = Actor::Player { division: "A".into(), player: 1 };
    let own = layer.events.reissue_token("t", &player, "", "A", 1, "x", &owners, said("")).await;
    assert_eq!(
        refused(own),
        Refused::NotDirector("player 1 of A may not ReissuePlayerToken: a director's command".into())
    );
    assert_eq!((layer.version("t").await, layer.events_of("t").await.len()), (1, 1));
}

#[tokio::test]
async fn a_players_game_in_play_here_takes_the_new_token_and_no_longer_the_old() {
    let layer = Layer::new();
    made(&layer).await;
    let games = FakeGames::on(&layer.host);
    let ids: Vec<String> =
        layer.start("t", "", ("A", 1), &games).await.unwrap().games.into_iter().map(|g| g.unwrap()).collect();
    let seat_tokens = |id: String| {
        let host = layer.host.clone();
        async move { host.snapshot(&id).await.unwrap().tokens() }
    };
    assert_eq!(seat_tokens(ids[1].clone()).await, [Some(hash("old-3")), Some(hash("old-4"))]);
    let owners = FakeOwners::default();
    layer.events.reissue_token("t", &Actor::Root, "", "A", 4, "new-4", &owners, said("")).await.unwrap();
    // Di is the second seat of round 1's second game; the first game is not theirs.
    assert_eq!(seat_tokens(ids[1].clone()).await, [Some(hash("old-3")), Some(hash("new-4"))]);
    assert_eq!(seat_tokens(ids[0].clone()).await, [Some(hash("old-1")), Some(hash("old-2"))]);
    // Durable: the game read back from the store has it too.
    let Ok(Route::Local(_)) = layer.host.route(&ids[1], false).await else { panic!("here") };
    assert_eq!(layer.beside().host.snapshot(&ids[1]).await.unwrap().tokens()[1], Some(hash("new-4")));
    assert!(owners.token_calls().is_empty());
}

#[tokio::test]
async fn a_players_game_held_by_another_replica_is_given_the_token_at_its_owner_first() {
    let layer = Layer::replica();
    made(&layer).await;
    let games = FakeGames::noted();
    let ids: Vec<String> =
        layer.start("t", "", ("A", 1), &games).await.unwrap().games.into_iter().map(|g| g.unwrap()).collect();
    let owners = FakeOwners::default();
    layer.events.reissue_token("t", &Actor::Root, "", "A", 1, "new-1", &owners, said("")).await.unwrap();
    assert_eq!(
        owners.token_calls(),
        [TokenCall { owner: OTHER_REPLICA.into(), game_id: ids[0].clone(), seat: 0, token: "new-1".into() }]
    );
    // An owner that refuses: no token is made.
    let refusing = FakeOwners::refusing("the owner is shutting down");
    let refused_there =
        layer.events.reissue_token("t", &Actor::Root, "", "A", 2, "new-2", &refusing, said("")).await;
    assert_eq!(refused(refused_there), Refused::Owner("the owner is shutting down".into()));
    let record = layer.record_of("t").await;
    assert!(record.player_of_token("old-2").is_some());
    assert_eq!(record.player_of_token("new-2"), None);
}

/// A player found by their token through the version's index (`Events::read_as`, what every
/// player's call does) is the player `Record::player_of_token` finds by comparing every hash,
/// for every token, on this replica and on another reading the same store, after every reissue:
/// tokens shared by two players (the first division's, then a division's last seat, win), bots
/// with none, tokens no one has.
#[test]
fn a_player_found_by_their_tokens_index_is_the_one_every_hash_compared_finds() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    const POOL: u32 = 6;
    let token = |n: u32| format!("tok-{n}");
    // Each division's players' tokens (None: a bot), then the reissues (division, player, token).
    let divisions =
        prop::collection::vec(prop::collection::vec(prop::option::weighted(0.8, 0..POOL), 2..6), 1..4);
    let reissues = prop::collection::vec((0..4usize, 1..7u32, 0..POOL), 0..8);
    let mut runner = TestRunner::new(Config { cases: 64, ..Config::default() });
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runner
        .run(&(divisions, reissues), |(divisions, reissues)| {
            rt.block_on(async {
                let layer = Layer::new();
                let names: Vec<String> = (0..6).map(|i| format!("P{i}")).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                let shape: Vec<(String, usize)> =
                    divisions.iter().enumerate().map(|(d, ps)| (format!("D{d}"), ps.len())).collect();
                let specs: Vec<(&str, &[&str], &[Method])> = shape
                    .iter()
                    .map(|(name, n)| (name.as_str(), &names[..*n], &[Method::Manual][..]))
                    .collect();
                let mut t = tournament("t", &specs);
                for (d, players) in divisions.iter().enumerate() {
                    for (i, tok) in players.iter().enumerate() {
                        t.divisions[d].tokens[i] = tok.map(|n| hash(&token(n)));
                        if tok.is_none() {
                            t.divisions[d].players[i].bot = Some("strong".into());
                        }
                    }
                }
                layer.events.create_tournament(&Actor::Root, t).await.unwrap();
                let owners = FakeOwners::default();
                let beside = layer.beside();
                for step in 0..=reissues.len() {
                    if step > 0 {
                        let (d, player, n) = reissues[step - 1];
                        let division = format!("D{}", d % divisions.len());
                        // Refused for a bot or no such player: the tournament stays as it was.
                        let _ = (layer.events)
                            .reissue_token(
                                "t",
                                &Actor::Root,
                                "",
                                &division,
                                player,
                                &token(n),
                                &owners,
                                said(""),
                            )
                            .await;
                    }
                    let record = layer.record_of("t").await;
                    for n in 0..=POOL {
                        let expected = record.player_of_token(&token(n));
                        for (who, events) in [("here", &layer.events), ("beside", &beside.events)] {
                            let (_, found) = events.read_as("t", &token(n)).await.unwrap();
                            prop_assert_eq!(&found, &expected, "{} at step {}, token {}", who, step, n);
                        }
                    }
                }
                Ok::<(), TestCaseError>(())
            })
        })
        .unwrap();
}
