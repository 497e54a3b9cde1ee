//! The event's log and statistics over gRPC: every event with who did it and the players it is
//! about, filtered and paged for the tournament's directors only, exported as JSON lines and CSV;
//! a division's statistics worked out by hand, as messages and CSV; bingos counted from a game
//! the server played.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use tonic::Code;

const DIRECTOR: &str = "log-director";

fn player(name: &str, rating: u32) -> pb::TournamentPlayerSpec {
    pb::TournamentPlayerSpec {
        bot_account: String::new(),
        name: name.into(),
        rating,
        bot: None,
        lifetime_games: None,
    }
}

fn division(name: &str, players: Vec<pb::TournamentPlayerSpec>, rounds: usize) -> pb::DivisionSpec {
    let manual = pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() };
    pb::DivisionSpec {
        bots_only: false,
        name: name.into(),
        players,
        rounds: vec![manual; rounds],
        controls: None,
        result_reports: 0,
    }
}

fn tournament(slug: &str, divisions: Vec<pb::DivisionSpec>) -> pb::CreateTournamentRequest {
    pb::CreateTournamentRequest {
        allow_same_names: false,
        name: "Club night".into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings { bot_delay_ms: Some(0), ..Default::default() }),
        divisions,
        seed: Some(7),
    }
}

fn set(round: u32, pairs: &[(u32, u32)]) -> pb::SetPairingsRequest {
    pb::SetPairingsRequest {
        slug: "club".into(),
        division: "a".into(),
        round,
        pairings: pairs.iter().map(|&(first, second)| pb::PairingSpec { first, second }).collect(),
        request_id: String::new(),
    }
}

fn scores(round: u32, pairing: u32, first: i32, second: i32, correct: bool) -> pb::RecordResultRequest {
    pb::RecordResultRequest {
        slug: "club".into(),
        division: "a".into(),
        round,
        pairing,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
        correct,
        request_id: String::new(),
    }
}

/// A club night of three manual rounds (Ann 1800, Bo 1700, Cy 1650, Di 1500), run partly by the
/// root director and partly by the key `club-td`, whose token it answers:
/// 1: Ann 450 – Bo 380 (entered 370, corrected), Cy 390 – Di 410; 2: Ann 400 – Cy 420,
/// Di 350 – Bo 500; 3: Ann – Di, Di forfeits; Bo 360 – Cy 360; then Di withdraws.
async fn club_night(srv: &TestServer) -> String {
    let (mut t, mut d) = (srv.tournaments().await, srv.directors().await);
    let key = d
        .create_director_key(authed(
            pb::CreateDirectorKeyRequest {
                name: "club-td".into(),
                labels: [("tournament".into(), "club".into())].into(),
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let players = vec![player("Ann", 1800), player("Bo", 1700), player("Cy", 1650), player("Di", 1500)];
    t.create_tournament(authed(tournament("club", vec![division("a", players, 3)]), DIRECTOR)).await.unwrap();
    t.set_pairings(authed(set(1, &[(1, 2), (3, 4)]), &key)).await.unwrap();
    t.record_result(authed(scores(1, 1, 450, 370, false), &key)).await.unwrap();
    t.record_result(authed(scores(1, 2, 390, 410, false), DIRECTOR)).await.unwrap();
    t.record_result(authed(scores(1, 1, 450, 380, true), &key)).await.unwrap();
    t.set_pairings(authed(set(2, &[(1, 3), (4, 2)]), DIRECTOR)).await.unwrap();
    t.record_result(authed(scores(2, 1, 400, 420, false), DIRECTOR)).await.unwrap();
    t.record_result(authed(scores(2, 2, 350, 500, false), DIRECTOR)).await.unwrap();
    t.set_pairings(authed(set(3, &[(1, 4), (2, 3)]), &key)).await.unwrap();
    let forfeit = pb::RecordResultRequest {
        result: Some(pb::record_result_request::Result::ForfeitedBy(4)),
        ..scores(3, 1, 0, 0, false)
    };
    t.record_result(authed(forfeit, &key)).await.unwrap();
    t.record_result(authed(scores(3, 2, 360, 360, false), &key)).await.unwrap();
    let withdraw = pb::WithdrawPlayerRequest {
        slug: "club".into(),
        division: "a".into(),
        player: 4,
        request_id: String::new(),
    };
    t.withdraw_player(authed(withdraw, &key)).await.unwrap();
    key
}

fn log(filter: pb::TournamentLogFilter, from_event: u64, page_size: u32) -> pb::GetTournamentLogRequest {
    pb::GetTournamentLogRequest { slug: "club".into(), filter: Some(filter), from_event, page_size }
}

/// Each event as (number, kind, round, pairing, players, by, detail).
type Line = (u64, String, u32, u32, Vec<u32>, String, String);

fn lines(events: &[pb::WatchTournamentResponse]) -> Vec<Line> {
    let line = |e: &pb::WatchTournamentResponse| {
        (e.number, e.kind.clone(), e.round, e.pairing, e.players.clone(), e.by.clone(), e.detail.clone())
    };
    events.iter().map(line).collect()
}

fn line(number: u64, kind: &str, round: u32, pairing: u32, players: &[u32], by: &str, detail: &str) -> Line {
    (number, kind.into(), round, pairing, players.to_vec(), by.into(), detail.into())
}

#[tokio::test]
async fn the_log_names_who_did_what_and_filters_by_division_round_player_kind_and_who() {
    let srv = start_directed(DIRECTOR).await;
    let key = club_night(&srv).await;
    let mut t = srv.tournaments().await;
    let all =
        t.get_tournament_log(authed(log(Default::default(), 0, 0), DIRECTOR)).await.unwrap().into_inner();
    let (td, root) = ("club-td", "director");
    assert_eq!(
        lines(&all.events),
        [
            line(0, "created", 0, 0, &[], root, "Club night made"),
            line(1, "pairings_made", 1, 0, &[], td, "round 1 paired by the director"),
            line(2, "result", 1, 1, &[1, 2], td, "Ann 450 – Bo 370"),
            line(3, "result", 1, 2, &[3, 4], root, "Cy 390 – Di 410"),
            line(4, "result_corrected", 1, 1, &[1, 2], td, "Ann 450 – Bo 380 (was Ann 450 – Bo 370)"),
            line(5, "pairings_made", 2, 0, &[], root, "round 2 paired by the director"),
            line(6, "result", 2, 1, &[1, 3], root, "Ann 400 – Cy 420"),
            line(7, "result", 2, 2, &[4, 2], root, "Di 350 – Bo 500"),
            line(8, "pairings_made", 3, 0, &[], td, "round 3 paired by the director"),
            line(9, "result", 3, 1, &[1, 4], td, "Di forfeits to Ann"),
            line(10, "result", 3, 2, &[2, 3], td, "Bo 360 – Cy 360"),
            line(11, "player_withdrawn", 0, 0, &[4], td, "Di withdraws"),
        ]
    );
    assert_eq!(all.next_event, 0, "the whole log in one page");
    // WatchTournament carries who and whom too.
    let mut watched = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "club".into(), from_event: 4 })
        .await
        .unwrap()
        .into_inner();
    let fourth = watched.message().await.unwrap().unwrap();
    assert_eq!((fourth.by.as_str(), fourth.players.as_slice()), ("club-td", &[1, 2][..]));

    let filtered = |filter: pb::TournamentLogFilter| {
        let mut t = t.clone();
        let key = key.clone();
        async move {
            let page = t.get_tournament_log(authed(log(filter, 0, 0), &key)).await.unwrap().into_inner();
            page.events.iter().map(|e| e.number).collect::<Vec<u64>>()
        }
    };
    let a = |f: pb::TournamentLogFilter| pb::TournamentLogFilter { division: "a".into(), ..f };
    assert_eq!(filtered(a(pb::TournamentLogFilter { player: 4, ..Default::default() })).await, [3, 7, 9, 11]);
    assert_eq!(filtered(pb::TournamentLogFilter { round: 2, ..Default::default() }).await, [5, 6, 7]);
    let corrections =
        pb::TournamentLogFilter { kinds: vec!["result_corrected".into()], ..Default::default() };
    assert_eq!(filtered(corrections).await, [4]);
    assert_eq!(
        filtered(pb::TournamentLogFilter { by: "club-td".into(), ..Default::default() }).await,
        [1, 2, 4, 8, 9, 10, 11]
    );
    let both = a(pb::TournamentLogFilter {
        player: 1,
        round: 1,
        kinds: vec!["result".into()],
        ..Default::default()
    });
    assert_eq!(filtered(both).await, [2]);
    // A division's events leave out the tournament's own (`created`).
    assert_eq!(filtered(a(pb::TournamentLogFilter { round: 3, ..Default::default() })).await, [8, 9, 10]);

    // Pages by event number: three results a page, then from where the page ended.
    let results = pb::TournamentLogFilter { kinds: vec!["result".into()], ..Default::default() };
    let page = t.get_tournament_log(authed(log(results.clone(), 0, 3), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(
        (page.events.iter().map(|e| e.number).collect::<Vec<_>>(), page.next_event),
        (vec![2, 3, 6], 7)
    );
    let page = t.get_tournament_log(authed(log(results, 7, 3), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(
        (page.events.iter().map(|e| e.number).collect::<Vec<_>>(), page.next_event),
        (vec![7, 9, 10], 0)
    );
}

#[tokio::test]
async fn the_log_exports_as_json_lines_and_csv() {
    let srv = start_directed(DIRECTOR).await;
    club_night(&srv).await;
    let mut t = srv.tournaments().await;
    let filter = pb::TournamentLogFilter { round: 1, ..Default::default() };
    let events =
        t.get_tournament_log(authed(log(filter.clone(), 0, 0), DIRECTOR)).await.unwrap().into_inner().events;
    let at: Vec<u64> = events.iter().map(|e| e.unix_ms).collect();
    let export = |format: pb::LogFormat| pb::ExportTournamentLogRequest {
        slug: "club".into(),
        filter: Some(filter.clone()),
        from_event: 0,
        format: format as i32,
    };
    let jsonl = t
        .export_tournament_log(authed(export(pb::LogFormat::JsonLines), DIRECTOR))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        jsonl.text,
        format!(
            r#"{{"number":1,"unix_ms":{},"kind":"pairings_made","division":"a","round":1,"pairing":0,"players":[],"by":"club-td","detail":"round 1 paired by the director"}}
{{"number":2,"unix_ms":{},"kind":"result","division":"a","round":1,"pairing":1,"players":[1,2],"by":"club-td","detail":"Ann 450 – Bo 370"}}
{{"number":3,"unix_ms":{},"kind":"result","division":"a","round":1,"pairing":2,"players":[3,4],"by":"director","detail":"Cy 390 – Di 410"}}
{{"number":4,"unix_ms":{},"kind":"result_corrected","division":"a","round":1,"pairing":1,"players":[1,2],"by":"club-td","detail":"Ann 450 – Bo 380 (was Ann 450 – Bo 370)"}}
"#,
            at[0], at[1], at[2], at[3]
        )
    );
    assert_eq!(jsonl.next_event, 0);
    let csv =
        t.export_tournament_log(authed(export(pb::LogFormat::Csv), DIRECTOR)).await.unwrap().into_inner();
    assert_eq!(
        csv.text,
        format!(
            "number,unix_ms,kind,division,round,pairing,players,by,detail
1,{},pairings_made,a,1,0,,club-td,round 1 paired by the director
2,{},result,a,1,1,1 2,club-td,Ann 450 – Bo 370
3,{},result,a,1,2,3 4,director,Cy 390 – Di 410
4,{},result_corrected,a,1,1,1 2,club-td,Ann 450 – Bo 380 (was Ann 450 – Bo 370)
",
            at[0], at[1], at[2], at[3]
        )
    );
}

#[tokio::test]
async fn the_log_is_its_directors_and_a_bad_filter_is_named() {
    let srv = start_directed(DIRECTOR).await;
    club_night(&srv).await;
    let (mut t, mut d) = (srv.tournaments().await, srv.directors().await);
    let other = d
        .create_director_key(authed(
            pb::CreateDirectorKeyRequest {
                name: "other-td".into(),
                labels: [("tournament".into(), "other".into())].into(),
            },
            DIRECTOR,
        ))
        .await
        .unwrap()
        .into_inner()
        .token;
    let all = || log(Default::default(), 0, 0);
    assert_eq!(code(t.get_tournament_log(all()).await), Code::Unauthenticated);
    assert_eq!(code(t.get_tournament_log(authed(all(), &other)).await), Code::PermissionDenied);
    let export = pb::ExportTournamentLogRequest { slug: "club".into(), ..Default::default() };
    assert_eq!(code(t.export_tournament_log(export).await), Code::Unauthenticated);
    let nowhere = pb::GetTournamentLogRequest { slug: "nowhere".into(), ..Default::default() };
    assert_eq!(code(t.get_tournament_log(authed(nowhere, DIRECTOR)).await), Code::NotFound);
    let refused = |filter: pb::TournamentLogFilter| {
        let mut t = t.clone();
        async move {
            let e = t.get_tournament_log(authed(log(filter, 0, 0), DIRECTOR)).await.unwrap_err();
            (e.code(), e.message().to_string())
        }
    };
    let invalid = |m: &str| (Code::InvalidArgument, m.to_string());
    assert_eq!(
        refused(pb::TournamentLogFilter {
            kinds: vec!["result".into(), "results".into()],
            ..Default::default()
        })
        .await,
        invalid(
            "filter.kinds[1]: \"results\": no such kind (there are created, player_added, player_withdrawn, pairings_made, round_started, result, result_corrected, division_imported, rounds_changed, player_reentered, round_unpaired, token_reissued, reports_set, result_rep…"
        )
    );
    assert_eq!(
        refused(pb::TournamentLogFilter { player: 2, ..Default::default() }).await,
        invalid("filter.player: 2: a player is named in a division")
    );
    assert_eq!(
        refused(pb::TournamentLogFilter { division: "a".into(), player: 5, ..Default::default() }).await,
        invalid("filter.player: 5: the division has players 1 to 4")
    );
    assert_eq!(
        refused(pb::TournamentLogFilter { division: "b".into(), ..Default::default() }).await,
        invalid("filter.division: \"b\": no such division (there are a)")
    );
}

fn record(
    round: u32,
    pairing: u32,
    player: u32,
    opponent: u32,
    score: i32,
    opponent_score: i32,
) -> Option<pb::GameRecord> {
    Some(pb::GameRecord { round, pairing, player, opponent, score, opponent_score })
}

#[tokio::test]
async fn a_divisions_statistics_are_its_results_figures_as_worked_out_by_hand() {
    let srv = start_directed(DIRECTOR).await;
    club_night(&srv).await;
    let mut t = srv.tournaments().await;
    let request = pb::GetDivisionStatisticsRequest { slug: "club".into(), division: "a".into() };
    // No token needed.
    let s = t.get_division_statistics(request).await.unwrap().into_inner().statistics.unwrap();
    // Five games with scores (the forfeit has none). Bo's 500 to Di's 350 (round 2, pairing 2)
    // is the high game, the biggest win (150) and, 850 in all, the high combined (Di moved
    // first); the highest losing score is Ann's 400 to Cy's 420 (a draw is no loss).
    assert_eq!((s.division.as_str(), s.games), ("a", 5));
    assert_eq!(s.high_game, record(2, 2, 2, 4, 500, 350));
    assert_eq!(s.biggest_win, record(2, 2, 2, 4, 500, 350));
    assert_eq!(s.high_combined, record(2, 2, 4, 2, 350, 500));
    assert_eq!(s.high_loss, record(2, 1, 1, 3, 400, 420));
    // Ann: 450 + 400 for, 380 + 420 against, both first; beat Bo (1700), lost to Cy (1650):
    // one point of two, 1675 by symmetry, where TSH's search ends on 1676. Bo: 380 + 500 + 360 = 1240 for, 450 + 350 + 360 =
    // 1160 against, first once (round 3); 1.5 of 3 against 1800, 1500, 1650: 1650 by symmetry.
    // Cy: 390 + 420 + 360 for and 410 + 400 + 360 against; 1.5 of 3 against 1500, 1800, 1700,
    // where the expectancies sum to 1.5 at 1667.29: 1668. Di: 410 + 350 for, 390 + 500 against;
    // beat Cy (1650), lost to Bo (1700): 1676. No game was the server's: no bingos counted.
    let figures =
        |player: u32, name: &str, games, points: (i64, i64), high, firsts, rating| pb::PlayerStatistics {
            player,
            name: name.into(),
            games,
            points_for: points.0,
            points_against: points.1,
            average_for: points.0 as f64 / f64::from(games),
            average_against: points.1 as f64 / f64::from(games),
            high_game: Some(high),
            firsts,
            performance_rating: Some(rating),
            bingos: 0,
            bingo_games: 0,
        };
    assert_eq!(
        s.players,
        [
            figures(1, "Ann", 2, (850, 800), 450, 2, 1676),
            figures(2, "Bo", 3, (1240, 1160), 500, 1, 1650),
            figures(3, "Cy", 3, (1170, 1170), 420, 1, 1668),
            figures(4, "Di", 2, (760, 890), 410, 1, 1676),
        ]
    );
    let export = pb::ExportDivisionStatisticsRequest { slug: "club".into(), division: "a".into() };
    let csv = t.export_division_statistics(export).await.unwrap().into_inner();
    assert_eq!(
        csv.players_csv,
        "player,name,games,points_for,points_against,average_for,average_against,high_game,firsts,performance_rating,bingos,bingo_games
1,Ann,2,850,800,425.00,400.00,450,2,1676,0,0
2,Bo,3,1240,1160,413.33,386.67,500,1,1650,0,0
3,Cy,3,1170,1170,390.00,390.00,420,1,1668,0,0
4,Di,2,760,890,380.00,445.00,410,1,1676,0,0
"
    );
    assert_eq!(
        csv.records_csv,
        "record,round,pairing,player,name,score,opponent,opponent_name,opponent_score
high_game,2,2,2,Bo,500,4,Di,350
high_loss,2,1,1,Ann,400,3,Cy,420
high_combined,2,2,4,Di,350,2,Bo,500
biggest_win,2,2,2,Bo,500,4,Di,350
"
    );
    let nowhere = pb::GetDivisionStatisticsRequest { slug: "club".into(), division: "b".into() };
    let e = t.get_division_statistics(nowhere).await.unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (Code::InvalidArgument, "division: \"b\": no such division (there are a)")
    );
}

/// Plays of seven tiles in a GCG record, by the player's nickname: each move line's played
/// letters that are not played through (`.` or in parentheses) and not challenged off (a `--`
/// line after it).
fn bingos_in(gcg: &str) -> std::collections::HashMap<String, u32> {
    let mut bingos = std::collections::HashMap::new();
    let mut last: Option<String> = None;
    for line in gcg.lines().filter(|l| l.starts_with('>')) {
        let Some((who, rest)) = line[1..].split_once(':') else { continue };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2) == Some(&"--") {
            if let Some(who) = last.take() {
                *bingos.entry(who).or_insert(0) -= 1;
            }
            continue;
        }
        last = None;
        let Some(word) = fields.get(2) else { continue };
        let mut depth = 0;
        let placed = word.chars().filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth -= 1;
                false
            }
            '.' => false,
            _ => depth == 0 && c.is_alphabetic(),
        });
        if placed.count() == 7 && fields.get(1).is_some_and(|coord| coord.chars().any(|c| c.is_ascii_digit()))
        {
            *bingos.entry(who.to_string()).or_insert(0) += 1;
            last = Some(who.to_string());
        }
    }
    bingos
}

#[tokio::test]
async fn bingos_are_counted_from_the_games_the_server_played() {
    let srv = start_directed(DIRECTOR).await;
    let (mut t, mut g) = (srv.tournaments().await, srv.games().await);
    let bots = vec![
        pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: "Greedy One".into(),
            rating: 1500,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        },
        pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: "Greedy Two".into(),
            rating: 1500,
            bot: Some(pb::BotLevel::Greedy as i32),
            lifetime_games: None,
        },
    ];
    let request = pb::CreateTournamentRequest {
        slug: "bots".into(),
        ..tournament("bots", vec![division("a", bots, 1)])
    };
    t.create_tournament(authed(request, DIRECTOR)).await.unwrap();
    let pairs = pb::SetPairingsRequest { slug: "bots".into(), ..set(1, &[(1, 2)]) };
    t.set_pairings(authed(pairs, DIRECTOR)).await.unwrap();
    let start =
        pb::StartRoundRequest { slug: "bots".into(), division: "a".into(), round: 1, ..Default::default() };
    let round = t.start_round(authed(start, DIRECTOR)).await.unwrap().into_inner().round.unwrap();
    let game_id = round.pairings[0].game_id.clone();
    let mut stream = t
        .watch_tournament(pb::WatchTournamentRequest { slug: "bots".into(), from_event: 0 })
        .await
        .unwrap()
        .into_inner();
    loop {
        let e = tokio::time::timeout(std::time::Duration::from_secs(60), stream.message())
            .await
            .expect("the game's result within a minute")
            .unwrap()
            .unwrap();
        if e.kind == "result" {
            assert_eq!(e.by, "game", "a result its game's end brought in");
            break;
        }
    }
    let gcg =
        g.export_gcg(authed(pb::ExportGcgRequest { game_id }, DIRECTOR)).await.unwrap().into_inner().gcg;
    let counted = bingos_in(&gcg);
    let request = pb::GetDivisionStatisticsRequest { slug: "bots".into(), division: "a".into() };
    let s = t.get_division_statistics(request).await.unwrap().into_inner().statistics.unwrap();
    let found: Vec<(u32, u32)> = s.players.iter().map(|p| (p.bingos, p.bingo_games)).collect();
    let expected: Vec<(u32, u32)> =
        s.players.iter().map(|p| (counted.get(&p.name.replace(' ', "_")).copied().unwrap_or(0), 1)).collect();
    assert_eq!(found, expected, "{gcg}");
    // The seed's game: Greedy One's .TIBNITE and Greedy Two's rEHOMED (a blank's r).
    assert_eq!(found, [(1, 1), (1, 1)], "{gcg}");
}

#[tokio::test]
async fn a_spectators_statistics_wait_for_a_broadcasts_delay_as_the_standings_do() {
    let srv = start_directed(DIRECTOR).await;
    let broadcast = pb::CreateBroadcastRequest {
        slug: "club-live".into(),
        name: "Club night, live".into(),
        labels: [("tournament".into(), "club".into())].into(),
        delay_seconds: 900,
        ..Default::default()
    };
    srv.broadcasts().await.create_broadcast(authed(broadcast, DIRECTOR)).await.unwrap();
    club_night(&srv).await;
    let mut t = srv.tournaments().await;
    let request = || pb::GetDivisionStatisticsRequest { slug: "club".into(), division: "a".into() };
    let games = |r: tonic::Response<pb::GetDivisionStatisticsResponse>| {
        let s = r.into_inner().statistics.unwrap();
        (s.games, s.high_game.map(|h| h.score), s.players[1].points_for)
    };
    // Every result came in less than 15 minutes ago: none is out to a spectator yet.
    assert_eq!(games(t.get_division_statistics(request()).await.unwrap()), (0, None, 0));
    assert_eq!(
        games(t.get_division_statistics(authed(request(), DIRECTOR)).await.unwrap()),
        (5, Some(500), 1240)
    );
    let export = pb::ExportDivisionStatisticsRequest { slug: "club".into(), division: "a".into() };
    let csv = t.export_division_statistics(export).await.unwrap().into_inner();
    assert!(csv.players_csv.contains("\n2,Bo,0,0,0,0.00,0.00,,0,,0,0\n"), "{}", csv.players_csv);
}
