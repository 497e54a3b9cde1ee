//! TournamentsService against the server users run: a club event from creation to standings and
//! TSH, results entering as games end (a director's result, a resignation, bots playing out),
//! player tokens that are the player's seat in their own games only, director keys scoped to
//! their tournament, StartRound made once however often asked, ImportTsh, and bad input named.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const DIRECTOR: &str = "tournament-director";

fn player(name: &str, rating: u32) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating,
        bot: None,
        lifetime_games: None,
    }
}

fn bot(name: &str, level: pb::BotLevel) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1000,
        bot: Some(level as i32),
        lifetime_games: None,
    }
}

fn rounds(methods: &[pb::PairingMethod]) -> Vec<pb::RoundSpec> {
    methods.iter().map(|&m| pb::RoundSpec { method: m as i32, ..Default::default() }).collect()
}

fn club(
    slug: &str,
    players: Vec<pb::TournamentPlayerSpec>,
    methods: &[pb::PairingMethod],
) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Thursday club".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings {
            challenge_rule: pb::ChallengeRule::Single as i32,
            bot_delay_ms: Some(0),
            ..Default::default()
        }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: rounds(methods),
            controls: Some(pb::DivisionControls { spread_cap: 250, ..Default::default() }),
            result_reports: 0,
        }],
        seed: Some(7),
    }
}

fn pair(slug: &str, round: u32) -> pb::PairRoundRequest {
    pb::PairRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() }
}

fn start(slug: &str, round: u32) -> pb::StartRoundRequest {
    pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() }
}

async fn get(t: &mut TournamentsServiceClient<Channel>, slug: &str) -> pb::Tournament {
    t.get_tournament(pb::GetTournamentRequest { slug: slug.into() })
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
}

/// Read the tournament's events from `from` until `n` of `kind` have come (the stream stays
/// open: it is dropped after).
async fn await_events(
    t: &mut TournamentsServiceClient<Channel>,
    slug: &str,
    from: u64,
    kind: &str,
    n: usize,
) -> Vec<pb::WatchTournamentResponse> {
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: slug.into(), from_event: from })
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while seen.iter().filter(|e: &&pb::WatchTournamentResponse| e.kind == kind).count() < n {
        let e = tokio::time::timeout(std::time::Duration::from_secs(60), stream.message())
            .await
            .expect("the tournament's events within a minute")
            .unwrap()
            .expect("the stream stays open");
        seen.push(e);
    }
    seen
}

/// Who has which token: player number (from 1) → token.
fn tokens(made: &pb::CreateTournamentResponse) -> std::collections::HashMap<u32, String> {
    made.player_tokens.iter().map(|t| (t.player, t.token.clone())).collect()
}

#[tokio::test]
async fn a_club_event_runs_from_pairing_to_standings_and_tsh() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g, mut d) = (srv.tournaments().await, srv.games().await, srv.directors().await);
    let players = vec![
        player("Ann Archer", 1800),
        player("Bo Baker", 1700),
        player("Cy Cole", 1600),
        player("Di Dunn", 1500),
    ];
    let methods = [pb::PairingMethod::KingOfTheHill, pb::PairingMethod::Swiss, pb::PairingMethod::Swiss];
    let made =
        t.create_tournament(authed(club("club", players, &methods), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(made.player_tokens.len(), 4);
    let tokens = tokens(&made);

    // Round 1, King of the Hill by seed: Ann v Bo, Cy v Di.
    let round = t.pair_round(authed(pair("club", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let meets: Vec<[u32; 2]> =
        round.pairings.iter().map(|p| [p.first.min(p.second), p.first.max(p.second)]).collect();
    assert_eq!(meets, [[1, 2], [3, 4]]);
    let round = t.start_round(authed(start("club", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    assert!(round.started && round.pairings.iter().all(|p| !p.game_id.is_empty()));

    // A player's token names their game, and is their seat in it.
    let ann = &tokens[&1];
    let you = t
        .get_tournament(authed(pb::GetTournamentRequest { slug: "club".into() }, ann))
        .await
        .unwrap()
        .into_inner()
        .tournament
        .unwrap()
        .you
        .unwrap();
    let game1 = &round.pairings[0];
    assert_eq!(
        (you.division.as_str(), you.player, you.current_game_id.as_str()),
        ("a", 1, game1.game_id.as_str())
    );
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game1.game_id.clone() }, ann)).await;
    assert_eq!(view.my_seat, Some(if game1.first == 1 { 0 } else { 1 }), "Ann's token is her seat");
    let labels = d
        .export_results(authed(
            pb::ExportResultsRequest { key: "tournament".into(), value: "club".into() },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(labels.rows.len(), 2, "the games carry the tournament's label");
    // Not Ann's game: her token proves nobody there.
    let game2 = &round.pairings[1];
    let e = g.get_game(authed(pb::GetGameRequest { game_id: game2.game_id.clone() }, ann)).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);

    // Results enter by themselves: the director adjudicates game 1 (first 420, second 380);
    // in game 2 the first player resigns at 0-0 (a forfeit: +50 / -50).
    d.set_result(authed(
        pb::SetResultRequest {
            game_id: game1.game_id.clone(),
            result: Some(pb::set_result_request::Result::Adjudicated(pb::Adjudicated {
                scores: vec![420, 380],
            })),
            reason: "adjourned".into(),
            ..Default::default()
        },
        DIRECTOR,
    ))
    .await
    .unwrap();
    let resign = pb::submit_turn_request::Action::Resign(pb::Resign {});
    g.submit_turn(authed(turn(&game2.game_id, 0, Some(resign)), &tokens[&game2.first])).await.unwrap();
    let events = await_events(&mut t, "club", 0, "result", 2).await;
    let results: Vec<&str> =
        events.iter().filter(|e| e.kind == "result").map(|e| e.detail.as_str()).collect();
    let name = |n: u32| ["Ann Archer", "Bo Baker", "Cy Cole", "Di Dunn"][n as usize - 1];
    assert!(
        results.contains(&format!("{} 420 – {} 380", name(game1.first), name(game1.second)).as_str()),
        "{results:?}"
    );
    assert!(
        results.contains(&format!("{} forfeits to {}", name(game2.first), name(game2.second)).as_str()),
        "{results:?}"
    );

    let division = get(&mut t, "club").await.divisions.remove(0);
    let standing: Vec<(u32, f64, u32, i64)> =
        division.standings.iter().map(|s| (s.player, s.wins, s.losses, s.spread)).collect();
    assert_eq!(
        standing,
        [
            (game2.second, 1.0, 0, 50),
            (game1.first, 1.0, 0, 40),
            (game1.second, 0.0, 1, -40),
            (game2.first, 0.0, 1, -50)
        ]
    );

    // Round 2, Swiss: the winners meet, and the losers; the games ended there are not the players' now.
    let round2 = t.pair_round(authed(pair("club", 2), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let meets: Vec<[u32; 2]> =
        round2.pairings.iter().map(|p| [p.first.min(p.second), p.first.max(p.second)]).collect();
    let mut winners = [game1.first, game2.second];
    winners.sort();
    assert!(meets.contains(&winners), "{meets:?}");

    // The TSH file: a line a player, round 1's opponents and scores, round 2's opponents.
    let tsh = t
        .export_tsh(pb::ExportTshRequest { slug: "club".into(), division: "a".into() })
        .await
        .unwrap()
        .into_inner()
        .text;
    assert_eq!(tsh.lines().count(), 4);
    let seat = |n: u32, p: &pb::TournamentPairing| if p.first == n { 1 } else { 2 };
    let line1 = tsh.lines().find(|l| l.starts_with(&format!("{} ", name(game1.first)))).unwrap();
    let opp2 = round2.pairings.iter().find(|p| p.first == game1.first || p.second == game1.first).unwrap();
    let opp2_number = if opp2.first == game1.first { opp2.second } else { opp2.first };
    let rating = [1800, 1700, 1600, 1500][game1.first as usize - 1];
    assert_eq!(
        line1,
        format!(
            "{} {rating} {} {opp2_number}; 420; p12 1 {}; board {} {}",
            name(game1.first),
            game1.second,
            seat(game1.first, opp2),
            game1.table,
            opp2.table
        )
    );
    let forfeiter = tsh.lines().find(|l| l.starts_with(&format!("{} ", name(game2.first)))).unwrap();
    assert!(forfeiter.contains(" 0 ") && forfeiter.contains("; -50; p12 0 "), "{forfeiter}");
}

#[tokio::test]
async fn a_round_of_bots_plays_itself_out_and_every_result_enters_once() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let players = vec![
        bot("Greedy One", pb::BotLevel::Greedy),
        bot("Greedy Two", pb::BotLevel::Greedy),
        bot("Weak Three", pb::BotLevel::Weak),
        bot("Weak Four", pb::BotLevel::Weak),
    ];
    let methods = [pb::PairingMethod::RoundRobin; 3];
    let made =
        t.create_tournament(authed(club("bots", players, &methods), DIRECTOR)).await.unwrap().into_inner();
    assert!(made.player_tokens.is_empty(), "bots have no tokens");
    let mut from = 0;
    for round in 1..=3 {
        t.pair_round(authed(pair("bots", round), DIRECTOR)).await.unwrap();
        let started =
            t.start_round(authed(start("bots", round), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
        // Asked again: the same games, none made twice.
        let again =
            t.start_round(authed(start("bots", round), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
        assert_eq!(again, started);
        let events = await_events(&mut t, "bots", from, "result", 2).await;
        from = events.last().unwrap().number + 1;
    }
    let division = get(&mut t, "bots").await.divisions.remove(0);
    // A round robin of four: each met the three others once; six games, six results.
    let wins: f64 = division.standings.iter().map(|s| s.wins).sum();
    assert_eq!(wins, 6.0);
    let spread: i64 = division.standings.iter().map(|s| s.spread).sum();
    assert_eq!(spread, 0);
    for p in 1..=4u32 {
        let mut met: Vec<u32> = division
            .rounds
            .iter()
            .flat_map(|r| r.pairings.iter())
            .filter(|x| x.first == p || x.second == p)
            .map(|x| if x.first == p { x.second } else { x.first })
            .collect();
        met.sort();
        assert_eq!(met, (1..=4).filter(|&q| q != p).collect::<Vec<_>>());
    }
    let mut g = srv.games().await;
    let listed = tournament_games(&mut g, "bots", DIRECTOR).await;
    assert_eq!(listed, 6, "StartRound asked twice made each game once");
}

#[tokio::test]
async fn a_director_key_directs_its_own_tournament_only() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut d) = (srv.tournaments().await, srv.directors().await);
    let key = d
        .create_director_key(authed(
            pb::CreateDirectorKeyRequest {
                name: "spring-td".into(),
                labels: [("tournament".into(), "spring".into())].into(),
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let two = || vec![player("Ann", 1500), player("Bo", 1400)];
    t.create_tournament(authed(club("spring", two(), &[pb::PairingMethod::Swiss]), &key)).await.unwrap();
    let e = t
        .create_tournament(authed(club("autumn", two(), &[pb::PairingMethod::Swiss]), &key))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::PermissionDenied, "{e:?}");
    t.create_tournament(authed(club("autumn", two(), &[pb::PairingMethod::Swiss]), DIRECTOR)).await.unwrap();
    assert_eq!(code(t.pair_round(authed(pair("autumn", 1), &key)).await), Code::PermissionDenied);
    t.pair_round(authed(pair("spring", 1), &key)).await.unwrap();
    assert_eq!(code(t.pair_round(pair("spring", 1)).await), Code::Unauthenticated);
    // Anyone reads; a token that is nobody's is refused rather than taken for a watcher.
    get(&mut t, "autumn").await;
    let e = t
        .get_tournament(authed(pb::GetTournamentRequest { slug: "autumn".into() }, "nobody"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated);
    let listed = t.list_tournaments(pb::ListTournamentsRequest {}).await.unwrap().into_inner();
    let slugs: Vec<&str> = listed.tournaments.iter().map(|x| x.slug.as_str()).collect();
    assert_eq!(slugs, ["autumn", "spring"]);
}

#[tokio::test]
async fn bad_input_is_refused_naming_what_was_wrong() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let four = || vec![player("Ann", 1500), player("Bo", 1400), player("Cy", 1300), player("Di", 1200)];
    let methods = [pb::PairingMethod::Swiss, pb::PairingMethod::Swiss, pb::PairingMethod::Manual];
    t.create_tournament(authed(club("open", four(), &methods), DIRECTOR)).await.unwrap();
    let e = refused(t.create_tournament(authed(club("open", four(), &methods), DIRECTOR)).await);
    assert_eq!(e.0, Code::AlreadyExists);
    let mut numbered = club("other", four(), &methods);
    numbered.divisions[0].players[1].name = "Bot 3".into();
    let e = refused(t.create_tournament(authed(numbered, DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::InvalidArgument,
            "divisions[0].players[1].name: no word of a name starts with a digit (TSH reads it as the rating)".into()
        )
    );
    let mut fontes = club("other", four(), &methods);
    fontes.divisions[0].rounds[0] =
        pb::RoundSpec { method: pb::PairingMethod::InitialFontes as i32, fontes_rounds: 2, factor: 0 };
    let e = refused(t.create_tournament(authed(fontes, DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::InvalidArgument,
            "divisions[0].rounds[0].fontes_rounds: 2: an odd number of rounds, at most 100".into()
        )
    );
    let e = refused(t.get_tournament(pb::GetTournamentRequest { slug: "nope".into() }).await);
    assert_eq!(e, (Code::NotFound, "no tournament \"nope\"".into()));
    let mut unknown = pair("open", 1);
    unknown.division = "z".into();
    let e = refused(t.pair_round(authed(unknown, DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "division: \"z\": no such division (there are a)".into()));
    let e = refused(t.pair_round(authed(pair("open", 2), DIRECTOR)).await);
    assert_eq!(e, (Code::FailedPrecondition, "round 2 cannot be paired before round 1".into()));
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "open".into(),
        division: "a".into(),
        player: 9,
        request_id: String::new(),
    };
    let e = refused(t.withdraw_player(authed(withdraw, DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "player: 9: the division has players 1 to 4".into()));
    let e = refused(t.pair_round(authed(pair("open", 9), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "round: 9: the division has rounds 1 to 3".into()));
    t.pair_round(authed(pair("open", 1), DIRECTOR)).await.unwrap();
    let e = refused(t.pair_round(authed(pair("open", 1), DIRECTOR)).await);
    assert_eq!(e, (Code::FailedPrecondition, "round 1 is paired already".into()));
    let e = refused(t.pair_round(authed(pair("open", 2), DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::FailedPrecondition,
            "round 2 is paired by the standings, and round 1 has results to come: pairing 1 (Cy – Ann) and 1 more".into()
        )
    );
    let e = refused(t.start_round(authed(start("open", 2), DIRECTOR)).await);
    assert_eq!(e, (Code::FailedPrecondition, "round 2 is not paired yet".into()));
    // Results by hand (over the board): the first in, then refused again, then corrected.
    let result = |pairing: u32, first: i32, correct: bool| pb::RecordResultRequest {
        slug: "open".into(),
        division: "a".into(),
        round: 1,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second: 300 })),
        correct,
        request_id: String::new(),
    };
    t.record_result(authed(result(1, 400, false), DIRECTOR)).await.unwrap();
    let e = refused(t.record_result(authed(result(1, 410, false), DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::FailedPrecondition,
            "round 1's pairing 1 has its result already: enter it again as a correction to replace it".into()
        )
    );
    t.record_result(authed(result(1, 410, true), DIRECTOR)).await.unwrap();
    let e = refused(t.record_result(authed(result(3, 410, false), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "pairing: 3: round 1 has pairings 1 to 2".into()));
    // The manual round: a player in two pairs, a player left out.
    t.record_result(authed(result(2, 350, false), DIRECTOR)).await.unwrap();
    t.pair_round(authed(pair("open", 2), DIRECTOR)).await.unwrap();
    let set = |pairings: Vec<(u32, u32)>| pb::SetPairingsRequest {
        slug: "open".into(),
        division: "a".into(),
        round: 3,
        pairings: pairings.into_iter().map(|(first, second)| pb::PairingSpec { first, second }).collect(),
        request_id: String::new(),
    };
    let e = refused(t.set_pairings(authed(set(vec![(1, 2), (2, 3)]), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "pairings: player 2 is in two pairings of round 3".into()));
    let e = refused(t.set_pairings(authed(set(vec![(1, 2)]), DIRECTOR)).await);
    assert_eq!(
        e,
        (Code::InvalidArgument, "pairings: player 3 is active but not in round 3's pairings".into())
    );
    let e = refused(t.set_pairings(authed(set(vec![(1, 2), (3, 3), (4, 0)]), DIRECTOR)).await);
    assert_eq!(
        e,
        (Code::InvalidArgument, "pairings: round 3's pairing 2 pairs player 3 with themself".into())
    );
    let e = refused(t.pair_round(authed(pair("open", 3), DIRECTOR)).await);
    assert_eq!(e.0, Code::FailedPrecondition, "{e:?}");
    t.set_pairings(authed(set(vec![(1, 4), (2, 3)]), DIRECTOR)).await.unwrap();
}

/// liwords' golden TSH output (pkg/tournament/testdata/wtf5-tsh.golden, its CSW division).
const LIWORDS_CSW: &str = "\
jellomochas 1111111 4 3 2 4; 473 561 478 460
xeroexpert 239842 3 4 1 3; 258 251 358 170
curtis_smith 8008 2 1 4 2; 359 294 393 370
nchagti 90 1 2 3 1; 309 437 453 327
";

#[tokio::test]
async fn a_tsh_file_starts_a_division_with_its_rounds_played() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let two = vec![player("Ann", 1500), player("Bo", 1400)];
    t.create_tournament(authed(club("wtf", two, &[pb::PairingMethod::Swiss]), DIRECTOR)).await.unwrap();
    let imported = t
        .import_tsh(authed(
            pb::ImportTshRequest {
                slug: "wtf".into(),
                division: "csw".into(),
                text: LIWORDS_CSW.into(),
                rounds_to_come: rounds(&[pb::PairingMethod::KingOfTheHill]),
                controls: None,
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(imported.player_tokens.len(), 4);
    let division = imported.division.unwrap();
    let standing: Vec<(u32, f64, i64)> =
        division.standings.iter().map(|s| (s.player, s.wins, s.spread)).collect();
    assert_eq!(standing, [(1, 4.0, 684), (3, 2.0, -26), (4, 2.0, -51), (2, 0.0, -607)]);
    // Round 5 is King of the Hill by those standings: 1 v 3, 4 v 2.
    let round = t
        .pair_round(authed(
            pb::PairRoundRequest {
                slug: "wtf".into(),
                division: "csw".into(),
                round: 5,
                ..Default::default()
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner()
        .round
        .unwrap();
    let meets: Vec<[u32; 2]> =
        round.pairings.iter().map(|p| [p.first.min(p.second), p.first.max(p.second)]).collect();
    assert_eq!(meets, [[1, 3], [2, 4]]);
    let text = t
        .export_tsh(pb::ExportTshRequest { slug: "wtf".into(), division: "csw".into() })
        .await
        .unwrap()
        .into_inner()
        .text;
    for (ours, theirs) in text.lines().zip(LIWORDS_CSW.lines()) {
        let (head, rest) = theirs.split_once(';').unwrap();
        assert!(ours.starts_with(head) && ours.contains(&format!(";{rest}; p12 ")), "{ours}");
    }
}

#[tokio::test]
async fn a_retried_request_answers_the_first_answer_and_changes_nothing() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let four = vec![player("Ann", 1500), player("Bo", 1400), player("Cy", 1300), player("Di", 1200)];
    t.create_tournament(authed(club("retry", four, &[pb::PairingMethod::Random; 2]), DIRECTOR))
        .await
        .unwrap();
    let pair = pb::PairRoundRequest {
        slug: "retry".into(),
        division: "a".into(),
        round: 1,
        request_id: "p1".into(),
    };
    let first = t.pair_round(authed(pair.clone(), DIRECTOR)).await.unwrap().into_inner();
    let again = t.pair_round(authed(pair, DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(first, again, "a lost answer asked again");
    let result = |first: i32| pb::RecordResultRequest {
        slug: "retry".into(),
        division: "a".into(),
        round: 1,
        pairing: 1,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second: 300 })),
        correct: false,
        request_id: "r1".into(),
    };
    let entered = t.record_result(authed(result(400), DIRECTOR)).await.unwrap().into_inner();
    // The same id with other scores: the first answer, nothing changed.
    let again = t.record_result(authed(result(500), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(entered, again);
    let tournament = get(&mut t, "retry").await;
    assert_eq!(tournament.divisions[0].rounds[0].pairings[0].scores, [400, 300]);
    let results = await_events(&mut t, "retry", 0, "pairings_made", 1).await;
    assert_eq!(results.len(), 2, "created, then paired once: {results:?}");
    assert_eq!(tournament.events, 3, "created, paired, one result");
}

/// Issue 82, item 1: a result of 0–0 (what a call with no scores sends) is refused naming
/// `scores`, before anything is entered: the pairing keeps no result and its game plays on.
#[tokio::test]
async fn a_result_of_no_scores_is_refused_and_the_game_in_play_goes_on() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let players = vec![player("Ann", 1800), player("Bo", 1700), player("Cy", 1600), player("Di", 1500)];
    let made = club("empty", players, &[pb::PairingMethod::KingOfTheHill]);
    t.create_tournament(authed(made, DIRECTOR)).await.unwrap();
    t.pair_round(authed(pair("empty", 1), DIRECTOR)).await.unwrap();
    let round = t.start_round(authed(start("empty", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let game_id = round.pairings[0].game_id.clone();
    for scores in [pb::FinalScores { first: 0, second: 0 }, pb::FinalScores::default()] {
        let request = pb::RecordResultRequest {
            slug: "empty".into(),
            division: "a".into(),
            round: 1,
            pairing: 1,
            result: Some(pb::record_result_request::Result::Scores(scores)),
            correct: false,
            request_id: String::new(),
        };
        let e = refused(t.record_result(authed(request, DIRECTOR)).await);
        assert_eq!(
            e,
            (
                Code::InvalidArgument,
                "scores: 0–0: no scores given (a forfeit is entered as one, naming who forfeited)".into()
            )
        );
    }
    let tournament = get(&mut t, "empty").await;
    let pairing = &tournament.divisions[0].rounds[0].pairings[0];
    assert!(!pairing.done && pairing.scores.is_empty(), "{pairing:?}");
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id }, DIRECTOR)).await;
    assert!(!view.over, "the game in play was not ended");
}

/// ReissuePlayerToken: the new token is the player's on the tournament and in their game in
/// play, the old one nobody's; a retry answers the same token; a bot has none; only a director
/// makes one; the log notes it.
#[tokio::test]
async fn a_reissued_token_is_the_players_everywhere_and_the_old_one_nobodys() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let players = vec![player("Ann Archer", 1800), player("Bo Baker", 1700), bot("Robo", pb::BotLevel::Weak)];
    let made = t
        .create_tournament(authed(club("lost", players, &[pb::PairingMethod::Manual]), DIRECTOR))
        .await
        .unwrap()
        .into_inner();
    let old = tokens(&made)[&1].clone();
    let set = pb::SetPairingsRequest {
        slug: "lost".into(),
        division: "a".into(),
        round: 1,
        pairings: vec![pb::PairingSpec { first: 1, second: 2 }, pb::PairingSpec { first: 3, second: 0 }],
        request_id: String::new(),
    };
    t.set_pairings(authed(set, DIRECTOR)).await.unwrap();
    let round = t.start_round(authed(start("lost", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let game_id = round.pairings[0].game_id.clone();
    let reissue = |player: u32, request_id: &str| pb::ReissuePlayerTokenRequest {
        slug: "lost".into(),
        division: "a".into(),
        player,
        request_id: request_id.into(),
    };
    let answer = t.reissue_player_token(authed(reissue(1, "r1"), DIRECTOR)).await.unwrap().into_inner();
    let new = answer.token.clone();
    assert_eq!(new.len(), 32);
    assert_ne!(new, old);
    assert_eq!(answer.player.as_ref().map(|p| (p.number, p.name.as_str())), Some((1, "Ann Archer")));
    // A retry answers the same token, and makes no other.
    let again = t.reissue_player_token(authed(reissue(1, "r1"), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(again.token, new);

    // The tournament knows Ann by the new token, and nobody by the old.
    let seen = |token: &str| authed(pb::GetTournamentRequest { slug: "lost".into() }, token);
    let you = t.get_tournament(seen(&new)).await.unwrap().into_inner().tournament.unwrap().you.unwrap();
    assert_eq!((you.player, you.current_game_id.as_str()), (1, game_id.as_str()));
    assert_eq!(
        refused(t.get_tournament(seen(&old)).await),
        (Code::Unauthenticated, "the token is no player's of this tournament and no director's".into())
    );
    // Her game in play: the new token is her seat, the old one no seat of it.
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game_id.clone() }, &new)).await;
    assert_eq!(view.my_seat, Some(0));
    let pass = Some(pb::submit_turn_request::Action::Pass(pb::Pass {}));
    let by_old = g.submit_turn(authed(turn(&game_id, 0, pass.clone()), &old)).await;
    assert_eq!(code(by_old), Code::Unauthenticated);
    g.submit_turn(authed(turn(&game_id, 0, pass), &new)).await.unwrap();

    // A bot has no token; a player's token makes none.
    assert_eq!(
        refused(t.reissue_player_token(authed(reissue(3, ""), DIRECTOR)).await),
        (Code::FailedPrecondition, "player 3 (Robo) is the server's weak bot: a bot has no token".into())
    );
    assert_eq!(code(t.reissue_player_token(authed(reissue(2, ""), &new)).await), Code::PermissionDenied);
    let log = pb::GetTournamentLogRequest {
        slug: "lost".into(),
        filter: Some(pb::TournamentLogFilter { kinds: vec!["token_reissued".into()], ..Default::default() }),
        ..Default::default()
    };
    let events = t.get_tournament_log(authed(log, DIRECTOR)).await.unwrap().into_inner().events;
    let noted: Vec<(&str, &str, &[u32])> =
        events.iter().map(|e| (e.detail.as_str(), e.by.as_str(), e.players.as_slice())).collect();
    assert_eq!(noted, [("Ann Archer's token made anew", "director", &[1][..])]);
}
