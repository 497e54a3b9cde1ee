//! One truth between a tournament and its games, over the server users run: a result entered
//! by hand ends the pairing's game with it; a withdrawal forfeits what is paired and ends what is
//! in play; bots play under their players' names; one replica's concurrent calls queue (never
//! ABORTED); StartRound racing RecordResult and SetPairings binds every game to the pair it was
//! made for; the bounds hold at every way in; a `.t` file read back is the same division.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const DIRECTOR: &str = "truth-director";

fn person(name: &str) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1500,
        bot: None,
        lifetime_games: None,
    }
}

fn people(n: usize) -> Vec<pb::TournamentPlayerSpec> {
    (0..n).map(|i| person(&format!("Player {}", name_of(i)))).collect()
}

/// A name without digits (TSH reads a word starting with one as the rating), each of the first
/// 17,576 its own (a division's players are named apart).
fn name_of(i: usize) -> String {
    let letters: Vec<char> = ('A'..='Z').collect();
    let lower = |n: usize| letters[n % 26].to_ascii_lowercase();
    format!("{}{}{}", letters[i % 26], lower(i / 26), lower(i / 676))
}

fn event(
    slug: &str,
    players: Vec<pb::TournamentPlayerSpec>,
    methods: &[pb::PairingMethod],
) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Truth open".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds: methods
                .iter()
                .map(|&m| pb::RoundSpec { method: m as i32, ..Default::default() })
                .collect(),
            controls: None,
            result_reports: 0,
        }],
        seed: Some(11),
    }
}

fn pair(slug: &str, round: u32) -> pb::PairRoundRequest {
    pb::PairRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() }
}

fn start(slug: &str, round: u32) -> pb::StartRoundRequest {
    pb::StartRoundRequest { slug: slug.into(), division: "a".into(), round, ..Default::default() }
}

fn scores(slug: &str, round: u32, pairing: u32, first: i32, second: i32) -> pb::RecordResultRequest {
    pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
        correct: false,
        request_id: String::new(),
    }
}

async fn division(t: &mut TournamentsServiceClient<Channel>, slug: &str) -> pb::TournamentDivision {
    let request = authed(pb::GetTournamentRequest { slug: slug.into() }, DIRECTOR);
    t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap().divisions.remove(0)
}

#[tokio::test]
async fn a_hand_result_ends_the_game_in_play_with_it_and_every_record_agrees() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g, mut d) = (srv.tournaments().await, srv.games().await, srv.directors().await);
    let made = t
        .create_tournament(authed(event("hand", people(2), &[pb::PairingMethod::RoundRobin]), DIRECTOR))
        .await
        .unwrap()
        .into_inner();
    t.pair_round(authed(pair("hand", 1), DIRECTOR)).await.unwrap();
    let round = t.start_round(authed(start("hand", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let line = round.pairings[0].clone();
    assert!(!line.game_id.is_empty());

    t.record_result(authed(scores("hand", 1, 1, 412, 388), DIRECTOR)).await.unwrap();

    // The game is over with the director's result, first's score in seat 0.
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: line.game_id.clone() }, DIRECTOR)).await;
    assert!(view.over, "the hand result ends the game");
    let seats: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
    assert_eq!(seats, [412, 388]);
    assert_eq!(view.winners, [0]);
    // Its player can play no more.
    let token = &made.player_tokens.iter().find(|p| p.player == line.first).unwrap().token;
    let pass = pb::submit_turn_request::Action::Pass(pb::Pass {});
    let e = g.submit_turn(authed(turn(&line.game_id, 0, Some(pass)), token)).await.unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    // The standings, the results export and the GCG say the same.
    let a = division(&mut t, "hand").await;
    let spread: Vec<(u32, i64)> = a.standings.iter().map(|s| (s.player, s.spread)).collect();
    assert_eq!(spread, [(line.first, 24), (line.second, -24)]);
    let rows = d
        .export_results(authed(
            pb::ExportResultsRequest { key: "tournament".into(), value: "hand".into() },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner()
        .rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].scores, [412, 388], "{rows:?}");
    let gcg = g
        .export_gcg(authed(pb::ExportGcgRequest { game_id: line.game_id.clone() }, DIRECTOR))
        .await
        .unwrap()
        .into_inner()
        .gcg;
    assert!(gcg.contains("the result the tournament's director entered"), "{gcg}");
    // The game's end, heard after, leaves the hand result as it is: one result event.
    let events = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "hand".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    let mut events = events;
    let mut results = Vec::new();
    while let Ok(Some(e)) = tokio::time::timeout(std::time::Duration::from_millis(500), events.message())
        .await
        .unwrap_or(Ok(None))
    {
        if e.kind.starts_with("result") {
            results.push(e.detail);
        }
    }
    assert_eq!(
        results,
        [format!(
            "Player {} 412 – Player {} 388",
            name_of(line.first as usize - 1),
            name_of(line.second as usize - 1)
        )]
    );

    // Entered again without `correct`: refused, the game being over; corrected, the tournament
    // takes the correction (a finished game's record is final).
    let mut forfeit = scores("hand", 1, 1, 0, 0);
    forfeit.result = Some(pb::record_result_request::Result::ForfeitedBy(line.second));
    let e = refused(t.record_result(authed(forfeit.clone(), DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::FailedPrecondition,
            "round 1's pairing 1 has its result already: enter it again as a correction to replace it".into()
        )
    );
    forfeit.correct = true;
    let answer = t.record_result(authed(forfeit, DIRECTOR)).await.unwrap().into_inner();
    let p = &answer.division.unwrap().rounds[0].pairings[0];
    assert_eq!((p.done, p.forfeited_by), (true, line.second));
}

#[tokio::test]
async fn a_withdrawal_forfeits_what_is_paired_and_ends_the_game_in_play() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let methods = [pb::PairingMethod::RoundRobin, pb::PairingMethod::RoundRobin];
    t.create_tournament(authed(event("quit", people(4), &methods), DIRECTOR)).await.unwrap();
    t.pair_round(authed(pair("quit", 1), DIRECTOR)).await.unwrap();
    let round1 = t.start_round(authed(start("quit", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    t.pair_round(authed(pair("quit", 2), DIRECTOR)).await.unwrap();

    let withdraw = pb::WithdrawPlayerRequest {
        slug: "quit".into(),
        division: "a".into(),
        player: 1,
        request_id: "w1".into(),
    };
    let a =
        t.withdraw_player(authed(withdraw.clone(), DIRECTOR)).await.unwrap().into_inner().division.unwrap();
    assert!(a.players[0].withdrawn);
    for k in 0..2 {
        let p = a.rounds[k].pairings.iter().find(|p| p.first == 1 || p.second == 1).unwrap();
        assert_eq!((p.done, p.forfeited_by), (true, 1), "round {}: {p:?}", k + 1);
    }
    // Round 1's game of theirs is over: they forfeited it.
    let game = round1.pairings.iter().find(|p| p.first == 1 || p.second == 1).unwrap();
    let view = view_of(&mut g, authed(pb::GetGameRequest { game_id: game.game_id.clone() }, DIRECTOR)).await;
    let their_seat = u32::from(game.second == 1);
    assert!(view.over);
    assert_eq!(view.winners, [1 - their_seat]);
    // Asked again, the same answer, and nothing more.
    let again = t.withdraw_player(authed(withdraw, DIRECTOR)).await.unwrap().into_inner().division.unwrap();
    assert_eq!(again.rounds, a.rounds);
    // Round 2 starts with one game: the withdrawn player's pairing is a forfeit, not a game.
    let round2 = t.start_round(authed(start("quit", 2), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let games: Vec<bool> = round2.pairings.iter().map(|p| !p.game_id.is_empty()).collect();
    let theirs = round2.pairings.iter().position(|p| p.first == 1 || p.second == 1).unwrap();
    assert_eq!(games.iter().filter(|&&g| g).count(), 1);
    assert!(!games[theirs]);
    assert_eq!(tournament_games(&mut g, "quit", DIRECTOR).await, 3, "two in round 1, one in round 2");
    // The standings: a forfeit loss each round, no bye.
    let a = division(&mut t, "quit").await;
    let s = a.standings.iter().find(|s| s.player == 1).unwrap();
    assert_eq!((s.wins, s.losses, s.spread, s.byes), (0.0, 2, -100, 0));
}

#[tokio::test]
async fn bot_players_play_under_their_players_names() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let bot = |name: &str| pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating: 1000,
        bot: Some(pb::BotLevel::Weak as i32),
        lifetime_games: None,
    };
    let players = vec![bot("Strongbot"), bot("Other Bot")];
    t.create_tournament(authed(event("bots", players, &[pb::PairingMethod::RoundRobin]), DIRECTOR))
        .await
        .unwrap();
    t.pair_round(authed(pair("bots", 1), DIRECTOR)).await.unwrap();
    let round = t.start_round(authed(start("bots", 1), DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let line = &round.pairings[0];
    let view = view_of(&mut g, pb::GetGameRequest { game_id: line.game_id.clone() }).await;
    let names: Vec<&str> = view.seats.iter().map(|s| s.name.as_str()).collect();
    let name = |n: u32| ["Strongbot", "Other Bot"][n as usize - 1];
    assert_eq!(names, [name(line.first), name(line.second)]);
    assert!(view.seats.iter().all(|s| s.bot));
}

#[tokio::test]
async fn one_replicas_concurrent_calls_queue_and_none_is_aborted() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    t.create_tournament(authed(event("busy", people(64), &[pb::PairingMethod::Swiss]), DIRECTOR))
        .await
        .unwrap();
    t.pair_round(authed(pair("busy", 1), DIRECTOR)).await.unwrap();
    let calls: Vec<_> = (1..=32)
        .map(|pairing| {
            let mut t = t.clone();
            tokio::spawn(async move {
                t.record_result(authed(scores("busy", 1, pairing, 400, 300 + pairing as i32), DIRECTOR)).await
            })
        })
        .collect();
    for call in calls {
        call.await.unwrap().expect("no call of one replica is aborted by another of its own");
    }
    let a = division(&mut t, "busy").await;
    assert!(a.rounds[0].pairings.iter().all(|p| p.done));
}

/// Pairings over the active players as they stand, each with the next (`flip`: the other seat
/// first), the last alone with a bye.
fn pairs_of(d: &pb::TournamentDivision, flip: bool) -> Vec<pb::PairingSpec> {
    let active: Vec<u32> = d.players.iter().filter(|p| !p.withdrawn).map(|p| p.number).collect();
    let mut out: Vec<pb::PairingSpec> = active
        .chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| {
            if flip {
                pb::PairingSpec { first: c[1], second: c[0] }
            } else {
                pb::PairingSpec { first: c[0], second: c[1] }
            }
        })
        .collect();
    if active.len() % 2 == 1 {
        out.push(pb::PairingSpec { first: active[active.len() - 1], second: 0 });
    }
    out
}

/// Every round of StartRound, RecordResult, SetPairings and WithdrawPlayer racing from many
/// clients, then the invariants: every player in at most one pairing a round, no withdrawn
/// player with a game to play, every pairing exactly one of a game, a hand result, a bye or a
/// forfeit, every game its own pair's and its outcome the pairing's result, no live game
/// without its pairing, the standings a recomputation from the results, and the `.t` file the
/// same division read back.
#[tokio::test]
async fn start_round_racing_results_pairings_and_withdrawals_keeps_one_truth() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let methods = [pb::PairingMethod::Manual; 3];
    t.create_tournament(authed(event("race", people(64), &methods), DIRECTOR)).await.unwrap();
    for round in 1..=3u32 {
        let set = |pairings: Vec<pb::PairingSpec>| pb::SetPairingsRequest {
            slug: "race".into(),
            division: "a".into(),
            round,
            pairings,
            request_id: String::new(),
        };
        let now = division(&mut t, "race").await;
        t.set_pairings(authed(set(pairs_of(&now, false)), DIRECTOR)).await.unwrap();
        let mut calls = Vec::new();
        for i in 0..16u32 {
            let mut c = t.clone();
            calls.push(tokio::spawn(async move {
                c.start_round(authed(start("race", round), DIRECTOR)).await.map(|_| ())
            }));
            let mut c = t.clone();
            calls.push(tokio::spawn(async move {
                c.record_result(authed(scores("race", round, 2 * i + 1, 400, 350), DIRECTOR))
                    .await
                    .map(|_| ())
            }));
        }
        for (k, flip) in [(0, true), (1, false)] {
            let mut c = t.clone();
            let again = set(pairs_of(&now, flip));
            calls.push(tokio::spawn(async move {
                if k == 1 {
                    tokio::task::yield_now().await;
                }
                c.set_pairings(authed(again, DIRECTOR)).await.map(|_| ())
            }));
        }
        let mut c = t.clone();
        let quitter = 10 * round + 3;
        calls.push(tokio::spawn(async move {
            let withdraw = pb::WithdrawPlayerRequest {
                slug: "race".into(),
                division: "a".into(),
                player: quitter,
                request_id: String::new(),
            };
            c.withdraw_player(authed(withdraw, DIRECTOR)).await.map(|_| ())
        }));
        for call in calls {
            match call.await.unwrap() {
                Ok(()) => {}
                // Refused for what the order of the calls made true (a started round's pairs, a
                // result in, a withdrawn player in new pairs): never ABORTED on one replica.
                Err(e) => {
                    assert!(matches!(e.code(), Code::FailedPrecondition | Code::InvalidArgument), "{e:?}")
                }
            }
        }
        let a = division(&mut t, "race").await;
        let r = &a.rounds[round as usize - 1];
        assert!(r.started);
        assert!(a.players[quitter as usize - 1].withdrawn);
        let mut seen = std::collections::HashSet::new();
        let mut bound = Vec::new();
        for p in &r.pairings {
            for n in [p.first, p.second].into_iter().filter(|&n| n != 0) {
                assert!(seen.insert(n), "round {round}: player {n} twice");
                assert!(
                    p.done || !a.players[n as usize - 1].withdrawn,
                    "round {round}: withdrawn {n} to play"
                );
            }
            if p.second == 0 {
                assert!(p.done && p.game_id.is_empty(), "a bye is done and has no game");
                continue;
            }
            if p.game_id.is_empty() {
                assert!(p.done, "round {round}: pairing {} has no game and no result", p.number);
                continue;
            }
            let view =
                view_of(&mut g, authed(pb::GetGameRequest { game_id: p.game_id.clone() }, DIRECTOR)).await;
            let names: Vec<String> = view.seats.iter().map(|s| s.name.clone()).collect();
            let expected: Vec<String> =
                [p.first, p.second].iter().map(|&n| format!("Player {}", name_of(n as usize - 1))).collect();
            assert_eq!(names, expected, "round {round}: pairing {}'s game is its own pair's", p.number);
            if p.done {
                assert!(view.over, "a pairing with its result has no live game");
                match p.forfeited_by {
                    0 => assert_eq!(view.seats.iter().map(|s| s.score).collect::<Vec<_>>(), p.scores),
                    n => assert_eq!(
                        view.winners,
                        [u32::from(n == p.first)],
                        "the forfeit's winner won the game"
                    ),
                }
            }
            bound.push(p.game_id.clone());
        }
        let listed = g
            .list_games(authed(
                pb::ListGamesRequest {
                    labels: [("tournament".into(), "race".into()), ("round".into(), round.to_string())]
                        .into(),
                    state: pb::GameState::Live as i32,
                    page_size: 100,
                    ..Default::default()
                },
                DIRECTOR,
            ))
            .await
            .unwrap()
            .into_inner();
        for game in &listed.games {
            assert!(
                bound.contains(&game.game_id),
                "round {round}: live game {} has no pairing",
                game.game_id
            );
        }
        let live = r.pairings.iter().filter(|p| !p.game_id.is_empty() && !p.done).count();
        assert_eq!(listed.games.len(), live, "round {round}");
        // Finish the round by hand, so the next can be set.
        for p in r.pairings.iter().filter(|p| !p.done) {
            t.record_result(authed(scores("race", round, p.number, 380, 360), DIRECTOR)).await.unwrap();
        }
    }
    // The standings, recomputed from the results (a forfeit or a bye ±50).
    let a = division(&mut t, "race").await;
    let mut expected = std::collections::HashMap::<u32, (u32, u32, i64)>::new();
    for p in a.rounds.iter().flat_map(|r| r.pairings.iter()) {
        let spread = match (p.second, p.forfeited_by, p.scores.as_slice()) {
            (0, _, _) => i64::from(p.bye_spread),
            (_, 0, [x, y]) => i64::from(x - y),
            (_, n, _) if n == p.first => -50,
            _ => 50,
        };
        for (n, s) in [(p.first, spread), (p.second, -spread)] {
            if n != 0 {
                let e = expected.entry(n).or_default();
                e.0 += u32::from(s > 0);
                e.1 += u32::from(s < 0);
                e.2 += s;
            }
        }
    }
    for st in &a.standings {
        let (w, l, sp) = expected.get(&st.player).copied().unwrap_or_default();
        assert_eq!((st.wins, st.losses, st.spread), (f64::from(w), l, sp), "player {}", st.player);
    }
    // The file read back is the same division.
    let text = t
        .export_tsh(pb::ExportTshRequest { slug: "race".into(), division: "a".into() })
        .await
        .unwrap()
        .into_inner()
        .text;
    let import = pb::ImportTshRequest {
        slug: "race".into(),
        division: "back".into(),
        text: text.clone(),
        ..Default::default()
    };
    t.import_tsh(authed(import, DIRECTOR)).await.unwrap();
    let back = t
        .export_tsh(pb::ExportTshRequest { slug: "race".into(), division: "back".into() })
        .await
        .unwrap()
        .into_inner()
        .text;
    assert_eq!(back, text);
}

#[tokio::test]
async fn every_way_in_holds_the_same_bounds() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    // Slugs and names.
    for slug in [".", ".."] {
        let e = refused(
            t.create_tournament(authed(event(slug, people(2), &[pb::PairingMethod::Swiss]), DIRECTOR)).await,
        );
        assert_eq!(
            e,
            (
                Code::InvalidArgument,
                "slug: 1 to 40 characters of a-z, 0-9, '_', '-' and '.', not only dots".into()
            )
        );
    }
    for (name, why) in [
        ("Bo;Baker", "no ';' in a name (TSH's field separator)"),
        ("#Cy Cole", "a name does not start with '#' (TSH reads the line as a comment)"),
        ("Di 1.5", "no word of a name starts with a digit (TSH reads it as the rating)"),
        ("Ed 1+2", "no word of a name starts with a digit (TSH reads it as the rating)"),
    ] {
        let mut players = people(2);
        players[1].name = name.into();
        let e = refused(
            t.create_tournament(authed(event("names", players, &[pb::PairingMethod::Swiss]), DIRECTOR)).await,
        );
        assert_eq!(e, (Code::InvalidArgument, format!("divisions[0].players[1].name: {why}")), "{name}");
    }
    // Factor and Fontes bounded where they are given.
    let mut factor = event("factor", people(4), &[pb::PairingMethod::Factor]);
    factor.divisions[0].rounds[0].factor = u32::MAX;
    let e = refused(t.create_tournament(authed(factor, DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::InvalidArgument,
            "divisions[0].rounds[0].factor: 4294967295: 1 to 2500 (half the most players a division has)"
                .into()
        )
    );
    let mut fontes = event("fontes", people(4), &[pb::PairingMethod::InitialFontes]);
    fontes.divisions[0].rounds[0].fontes_rounds = u32::MAX;
    let e = refused(t.create_tournament(authed(fontes, DIRECTOR)).await);
    assert_eq!(
        e,
        (
            Code::InvalidArgument,
            "divisions[0].rounds[0].fontes_rounds: 4294967295: an odd number of rounds, at most 100".into()
        )
    );
    // AddPlayer past 5,000.
    t.create_tournament(authed(event("full", people(5000), &[pb::PairingMethod::Swiss]), DIRECTOR))
        .await
        .unwrap();
    let add = pb::AddPlayerRequest {
        allow_same_name: false,
        request_id: String::new(),
        slug: "full".into(),
        division: "a".into(),
        player: Some(person("Late Comer")),
        missed_round_spread: None,
    };
    let e = refused(t.add_player(authed(add, DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "player: 5001 players: a division has 2 to 5000".into()));
    // ImportTsh: 101 rounds, in the file or with those to come; a 21st division.
    let import = |division: &str, text: String, to_come: usize| pb::ImportTshRequest {
        slug: "full".into(),
        division: division.into(),
        text,
        rounds_to_come: vec![
            pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() };
            to_come
        ],
        controls: None,
    };
    let file = |rounds: usize| {
        let (a, b) = (" 2".repeat(rounds), " 1".repeat(rounds));
        format!(
            "Ann Archer 1500{a}; {}\nBo Baker 1400{b}; {}\n",
            "400 ".repeat(rounds),
            "300 ".repeat(rounds)
        )
    };
    let e = refused(t.import_tsh(authed(import("b", file(101), 0), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "text: line 1: 101 rounds: a division has at most 100".into()));
    // A line of a megabyte is refused naming it (issue 72: read as a player of no rounds, it was
    // answered as "rounds_to_come: 0 rounds").
    let long = format!("Ann Archer 1500\n{} 1400\n", "B".repeat(1_000_000));
    let e = refused(t.import_tsh(authed(import("b", long, 0), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "text: line 2: 1000005 bytes: a line holds at most 16384".into()));
    let e = refused(t.import_tsh(authed(import("b", file(1), 100), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "rounds_to_come: 101 rounds: a division has 1 to 100".into()));
    for k in 0..19 {
        t.import_tsh(authed(import(&format!("d{k}"), file(1), 0), DIRECTOR)).await.unwrap();
    }
    let e = refused(t.import_tsh(authed(import("d19", file(1), 0), DIRECTOR)).await);
    assert_eq!(e, (Code::InvalidArgument, "division: 21 divisions: a tournament has 1 to 20".into()));
    // A file of 300 KiB is read (the API says 1 MiB), a byte-order mark no part of a name.
    let mut big = String::from("\u{feff}");
    while big.len() < 300 * 1024 {
        big.push_str("# a comment line of the director's, kept by TSH and skipped here\n");
    }
    big.push_str(&file(1));
    let mut t2 = srv.tournaments().await;
    t2.create_tournament(authed(event("big", people(2), &[pb::PairingMethod::Swiss]), DIRECTOR))
        .await
        .unwrap();
    let request = pb::ImportTshRequest { slug: "big".into(), ..import("b", big, 0) };
    let imported = t2.import_tsh(authed(request, DIRECTOR)).await.unwrap().into_inner().division.unwrap();
    assert_eq!(imported.players[0].name, "Ann Archer");
}

#[tokio::test]
async fn a_tsh_file_read_back_is_the_same_division() {
    let srv = start_directed(DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let mut players = people(5);
    players[4].bot = Some(pb::BotLevel::Strong as i32);
    let methods = [pb::PairingMethod::Manual; 3];
    t.create_tournament(authed(event("file", players, &methods), DIRECTOR)).await.unwrap();
    let set = |round: u32, pairs: &[(u32, u32)]| pb::SetPairingsRequest {
        slug: "file".into(),
        division: "a".into(),
        round,
        pairings: pairs.iter().map(|&(first, second)| pb::PairingSpec { first, second }).collect(),
        request_id: String::new(),
    };
    t.set_pairings(authed(set(1, &[(1, 2), (3, 4), (5, 0)]), DIRECTOR)).await.unwrap();
    t.record_result(authed(scores("file", 1, 1, 420, 380), DIRECTOR)).await.unwrap();
    let mut forfeit = scores("file", 1, 2, 0, 0);
    forfeit.result = Some(pb::record_result_request::Result::ForfeitedBy(4));
    t.record_result(authed(forfeit, DIRECTOR)).await.unwrap();
    t.set_pairings(authed(set(2, &[(2, 1), (4, 5), (3, 0)]), DIRECTOR)).await.unwrap();
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "file".into(),
        division: "a".into(),
        player: 2,
        request_id: String::new(),
    };
    t.withdraw_player(authed(withdraw, DIRECTOR)).await.unwrap();

    let export = |division: &str| pb::ExportTshRequest { slug: "file".into(), division: division.into() };
    let text = t.export_tsh(export("a")).await.unwrap().into_inner().text;
    let import = pb::ImportTshRequest {
        slug: "file".into(),
        division: "back".into(),
        text: text.clone(),
        rounds_to_come: vec![],
        controls: None,
    };
    let imported = t.import_tsh(authed(import, DIRECTOR)).await.unwrap().into_inner();
    let back = imported.division.unwrap();
    // Tokens for the people, none for the bot.
    let tokens: Vec<u32> = imported.player_tokens.iter().map(|p| p.player).collect();
    assert_eq!(tokens, [1, 2, 3, 4]);
    assert_eq!(t.export_tsh(export("back")).await.unwrap().into_inner().text, text);
    let original = division(&mut t, "file").await;
    let who = |d: &pb::TournamentDivision| -> Vec<(String, bool, Option<i32>)> {
        d.players.iter().map(|p| (p.name.clone(), p.withdrawn, p.bot)).collect()
    };
    assert_eq!(who(&back), who(&original));
    let standings = |d: &pb::TournamentDivision| -> Vec<(u32, f64, u32, i64, u32)> {
        d.standings.iter().map(|s| (s.player, s.wins, s.losses, s.spread, s.byes)).collect()
    };
    assert_eq!(standings(&back), standings(&original));
    // Each round's lines, whatever their order: who met whom, who went first, the results.
    let lines = |d: &pb::TournamentDivision, k: usize| {
        let mut v: Vec<(u32, u32, bool, Vec<i32>, u32, i32)> = d.rounds[k]
            .pairings
            .iter()
            .map(|p| (p.first, p.second, p.done, p.scores.clone(), p.forfeited_by, p.bye_spread))
            .collect();
        v.sort();
        v
    };
    for k in 0..2 {
        assert_eq!(lines(&back, k), lines(&original, k), "round {}\n{text}", k + 1);
    }
}

/// A tournament as an earlier build kept it: the wire's `Tournament` (without standings) as its
/// state, each player's token hash and the seed, with its events and kept answers carried inside
/// (before they had rows of their own).
#[derive(Clone, PartialEq, prost::Message)]
struct Legacy {
    #[prost(message, optional, tag = "1")]
    tournament: Option<pb::Tournament>,
    #[prost(message, repeated, tag = "2")]
    hashes: Vec<LegacyHashes>,
    #[prost(uint64, tag = "3")]
    seed: u64,
    #[prost(message, repeated, tag = "4")]
    events: Vec<pb::WatchTournamentResponse>,
    #[prost(message, repeated, tag = "5")]
    answers: Vec<LegacyAnswer>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyHashes {
    #[prost(bytes = "vec", repeated, tag = "1")]
    players: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyAnswer {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(bytes = "vec", tag = "2")]
    body: Vec<u8>,
}

async fn event_numbers(t: &mut TournamentsServiceClient<Channel>, slug: &str) -> Vec<(u64, String)> {
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: slug.into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    let mut seen = Vec::new();
    while let Ok(Ok(Some(e))) =
        tokio::time::timeout(std::time::Duration::from_millis(300), stream.message()).await
    {
        seen.push((e.number, e.kind));
    }
    seen
}

#[tokio::test]
async fn a_tournament_kept_by_an_earlier_build_upgrades_in_place() {
    use prost::Message;
    use sha2::Digest;
    let dir = TempDir::new("tournament-upgrade");
    let (srv, _) = start_stored_directed(&dir.0, DIRECTOR).await;
    let mut t = srv.tournaments().await;
    let methods =
        [pb::PairingMethod::RoundRobin, pb::PairingMethod::RoundRobin, pb::PairingMethod::RoundRobin];
    let mut players = people(4);
    players[3].bot = Some(pb::BotLevel::Greedy as i32);
    let made =
        t.create_tournament(authed(event("old", players, &methods), DIRECTOR)).await.unwrap().into_inner();
    let mut first = pair("old", 1);
    first.request_id = "pair-1".into();
    let paired = t.pair_round(authed(first.clone(), DIRECTOR)).await.unwrap().into_inner();
    t.start_round(authed(start("old", 1), DIRECTOR)).await.unwrap();
    let line =
        paired.round.as_ref().unwrap().pairings.iter().find(|p| p.first != 4 && p.second != 4).unwrap();
    t.record_result(authed(scores("old", 1, line.number, 420, 380), DIRECTOR)).await.unwrap();
    let get = |t: &mut TournamentsServiceClient<Channel>, token: String| {
        let mut t = t.clone();
        async move {
            t.get_tournament(authed(pb::GetTournamentRequest { slug: "old".into() }, &token))
                .await
                .unwrap()
                .into_inner()
                .tournament
                .unwrap()
        }
    };
    let before = get(&mut t, DIRECTOR.to_string()).await;
    let token = made.player_tokens[0].token.clone();
    let seen_by_player = get(&mut t, token.clone()).await;
    assert_eq!(seen_by_player.you.as_ref().map(|y| y.player), Some(1));
    let events = event_numbers(&mut t, "old").await;
    assert_eq!(events.iter().map(|e| e.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
    srv.stop().await;

    // Back as an earlier build kept it: the wire's messages as its state, the events and answers
    // inside it, no rows.
    {
        let db = rusqlite::Connection::open(dir.0.join(dawgref::store::sqlite::FILE_NAME)).unwrap();
        let body: Vec<u8> =
            db.query_row("SELECT body FROM tournaments WHERE slug = 'old'", [], |r| r.get(0)).unwrap();
        assert_eq!(body.first(), Some(&b'{'), "this build keeps the crate's own types");
        let mut state = before.clone();
        for d in &mut state.divisions {
            d.standings.clear();
        }
        let hashes = (made.player_tokens.iter().map(|p| sha2::Sha256::digest(p.token.as_bytes()).to_vec()))
            .chain([Vec::new()])
            .collect();
        let mut old = Legacy {
            tournament: Some(state),
            hashes: vec![LegacyHashes { players: hashes }],
            seed: 11,
            ..Default::default()
        };
        let mut rows =
            db.prepare("SELECT body FROM tournament_events WHERE slug = 'old' ORDER BY number").unwrap();
        for body in rows.query_map([], |r| r.get::<_, Vec<u8>>(0)).unwrap() {
            old.events.push(pb::WatchTournamentResponse::decode(body.unwrap().as_slice()).unwrap());
        }
        let mut rows = db.prepare("SELECT key, body FROM tournament_answers WHERE slug = 'old'").unwrap();
        for row in rows.query_map([], |r| Ok(LegacyAnswer { key: r.get(0)?, body: r.get(1)? })).unwrap() {
            old.answers.push(row.unwrap());
        }
        assert_eq!((old.events.len(), old.answers.len()), (4, 1));
        db.execute("UPDATE tournaments SET body = ?1 WHERE slug = 'old'", [old.encode_to_vec()]).unwrap();
        db.execute_batch(
            "DELETE FROM tournament_events; DELETE FROM tournament_answers; PRAGMA user_version = 5;",
        )
        .unwrap();
    }

    let (srv, _) = start_stored_directed(&dir.0, DIRECTOR).await;
    let mut t = srv.tournaments().await;
    // Read as they were: the tournament, a player's view, the events, the retry's first answer.
    assert_eq!(get(&mut t, DIRECTOR.to_string()).await, before);
    assert_eq!(get(&mut t, token.clone()).await, seen_by_player);
    assert_eq!(event_numbers(&mut t, "old").await, events);
    let again = t.pair_round(authed(first.clone(), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(again, paired);
    // The next change moves them to rows and the state to this build's; nothing is lost or
    // numbered twice.
    let other = before.divisions[0].rounds[0].pairings.iter().find(|p| !p.done && p.second != 0).unwrap();
    let mut corrected = scores("old", 1, line.number, 430, 380);
    corrected.correct = true;
    t.record_result(authed(corrected, DIRECTOR)).await.unwrap();
    let after = event_numbers(&mut t, "old").await;
    assert_eq!(after.iter().map(|e| e.0).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    assert_eq!(after[..4], events[..]);
    assert_eq!(t.pair_round(authed(first, DIRECTOR)).await.unwrap().into_inner(), paired);
    let now = get(&mut t, DIRECTOR.to_string()).await;
    assert_eq!(now.divisions[0].rounds[0].pairings[line.number as usize - 1].scores, [430, 380]);
    assert_eq!(
        now.divisions[0].rounds[0].pairings[other.number as usize - 1],
        *other,
        "the bot's game as it was"
    );
    srv.stop().await;
    let db = rusqlite::Connection::open(dir.0.join(dawgref::store::sqlite::FILE_NAME)).unwrap();
    let rows: (i64, i64, Vec<u8>) = db
        .query_row(
            "SELECT (SELECT count(*) FROM tournament_events), (SELECT count(*) FROM tournament_answers), \
             (SELECT body FROM tournaments WHERE slug = 'old')",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((rows.0, rows.1), (5, 1), "the carried events and answer are rows now");
    assert_eq!(rows.2.first(), Some(&b'{'), "written back as this build keeps it");
}
