//! Players report their own results (ReportResult), over the socket: in a division that takes
//! reports, two that agree enter the result through the door a director's takes (standings,
//! the log with the player as `by`); two that differ wait for the director, whose RecordResult
//! wins; a player changes their report until the result is in; a retry answers as the first
//! time; one report suffices where the division says so. Spectators and the other players see no
//! report; each bad report is refused with its code, naming what is wrong.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tokio_stream::StreamExt;
use tonic::Code;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

/// A tournament `slug` of Ann, Bo, Cy, Di (players 1 to 4) and Robo (5, the server's weak bot),
/// two manual rounds; round 1 paired by hand: Ann–Bo, Cy–Di, Robo's bye. Its players' tokens.
async fn event(srv: &TestServer, slug: &str, reports: pb::ResultReports) -> (Tournaments, Vec<String>) {
    let names = ["Ann", "Bo", "Cy", "Di", "Robo"];
    let (mut t, tokens) =
        tournament(srv, ROOT, (slug, slug), &names, &[pb::PairingMethod::Manual; 2], 5).await;
    let request = pb::SetPairingsRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairings: vec![line(1, 2), line(3, 4), line(5, 0)],
        request_id: String::new(),
    };
    t.set_pairings(authed(request, ROOT)).await.unwrap();
    if reports != pb::ResultReports::Off {
        set_reports(&mut t, slug, reports).await.unwrap();
    }
    (t, tokens.into_iter().map(|x| x.token).collect())
}

fn line(first: u32, second: u32) -> pb::PairingSpec {
    pb::PairingSpec { first, second }
}

async fn set_reports(
    t: &mut Tournaments,
    slug: &str,
    mode: pb::ResultReports,
) -> Result<pb::TournamentDivision, tonic::Status> {
    let request = pb::SetResultReportsRequest {
        slug: slug.into(),
        division: "a".into(),
        result_reports: mode as i32,
        request_id: String::new(),
    };
    t.set_result_reports(authed(request, ROOT)).await.map(|r| r.into_inner().division.unwrap())
}

/// A report of round `round`'s own pairing: (mine, theirs) and the outcome said.
fn report(round: u32, mine: i32, theirs: i32, outcome: pb::ReportedOutcome) -> pb::ReportResultRequest {
    pb::ReportResultRequest {
        slug: String::new(),
        round,
        pairing: 0,
        my_score: mine,
        opponent_score: theirs,
        outcome: outcome as i32,
        request_id: String::new(),
    }
}

use pb::ReportedOutcome::{Loss, Tie, Win};

/// `request` made by `token` in `slug`: (state, the pairing as answered) or the refusal.
async fn reported(
    t: &mut Tournaments,
    slug: &str,
    token: &str,
    mut request: pb::ReportResultRequest,
) -> Result<(pb::ReportState, pb::TournamentPairing), (Code, String)> {
    request.slug = slug.into();
    match t.report_result(authed(request, token)).await {
        Ok(r) => {
            let r = r.into_inner();
            Ok((r.state(), r.pairing.unwrap()))
        }
        Err(s) => Err((s.code(), s.message().to_string())),
    }
}

/// Round `round`'s pairing `number` of division "a" as `token` sees it (None: no token).
async fn pairing_seen(
    t: &mut Tournaments,
    slug: &str,
    token: Option<&str>,
    round: u32,
    number: u32,
) -> pb::TournamentPairing {
    let request = pb::GetTournamentRequest { slug: slug.into() };
    let request = match token {
        Some(token) => authed(request, token),
        None => tonic::Request::new(request),
    };
    let tournament = t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap();
    tournament.divisions[0].rounds[round as usize - 1].pairings[number as usize - 1].clone()
}

/// The reports a pairing shows: (player, scores).
fn reports_of(p: &pb::TournamentPairing) -> Vec<(u32, Vec<i32>)> {
    p.reports.iter().map(|r| (r.player, r.scores.clone())).collect()
}

/// The log's events of `kinds`, as (kind, by, detail).
async fn logged(t: &mut Tournaments, slug: &str, kinds: &[&str]) -> Vec<(String, String, String)> {
    let filter = pb::TournamentLogFilter {
        kinds: kinds.iter().map(|k| k.to_string()).collect(),
        ..Default::default()
    };
    let request =
        pb::GetTournamentLogRequest { slug: slug.into(), filter: Some(filter), ..Default::default() };
    let r = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner();
    r.events.into_iter().map(|e| (e.kind, e.by, e.detail)).collect()
}

/// The standings of division "a": (player, wins, losses, spread), best first.
async fn standings(t: &mut Tournaments, slug: &str) -> Vec<(u32, f64, u32, i64)> {
    let request = authed(pb::GetTournamentRequest { slug: slug.into() }, ROOT);
    let tournament = t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap();
    tournament.divisions[0].standings.iter().map(|s| (s.player, s.wins, s.losses, s.spread)).collect()
}

/// The kinds of the events WatchTournament sends `token` (None: a spectator) from event 0, read
/// until none comes for 0.7 s.
async fn watched_kinds(t: &mut Tournaments, slug: &str, token: Option<&str>) -> Vec<String> {
    let request = pb::WatchTournamentRequest { slug: slug.into(), from_event: 0 };
    let request = match token {
        Some(token) => authed(request, token),
        None => tonic::Request::new(request),
    };
    let mut stream = t.watch_tournament(request).await.unwrap().into_inner();
    let mut kinds = Vec::new();
    while let Ok(Some(Ok(e))) =
        tokio::time::timeout(std::time::Duration::from_millis(700), stream.next()).await
    {
        kinds.push(e.kind);
    }
    kinds
}

#[tokio::test]
async fn two_reports_that_agree_enter_the_result_and_no_one_else_sees_a_report_before() {
    let srv = start_directed(ROOT).await;
    let slug = "agree";
    let (mut t, tokens) = event(&srv, slug, pb::ResultReports::BothAgree).await;
    // Ann (first) reports her win; Bo has not reported yet.
    let (state, p) = reported(&mut t, slug, &tokens[0], report(1, 400, 350, Win)).await.unwrap();
    assert_eq!(state, pb::ReportState::Waiting);
    assert_eq!((p.number, p.done, reports_of(&p)), (1, false, vec![(1, vec![400, 350])]));
    // Who sees Ann's report: Ann and the directors; not Bo, another player, or a spectator.
    assert_eq!(reports_of(&pairing_seen(&mut t, slug, Some(&tokens[0]), 1, 1).await), [(1, vec![400, 350])]);
    assert_eq!(reports_of(&pairing_seen(&mut t, slug, Some(ROOT), 1, 1).await), [(1, vec![400, 350])]);
    assert_eq!(reports_of(&pairing_seen(&mut t, slug, Some(&tokens[1]), 1, 1).await), []);
    assert_eq!(reports_of(&pairing_seen(&mut t, slug, Some(&tokens[2]), 1, 1).await), []);
    assert_eq!(reports_of(&pairing_seen(&mut t, slug, None, 1, 1).await), []);
    assert!(!watched_kinds(&mut t, slug, None).await.contains(&"result_reported".to_string()));
    assert!(!watched_kinds(&mut t, slug, Some(&tokens[1])).await.contains(&"result_reported".to_string()));
    assert_eq!(standings(&mut t, slug).await.iter().map(|s| s.1).sum::<f64>(), 1.0, "Robo's bye alone");

    // Bo (second) reports the same game from his seat: the result is in.
    let (state, p) = reported(&mut t, slug, &tokens[1], report(1, 350, 400, Loss)).await.unwrap();
    assert_eq!(state, pb::ReportState::Entered);
    assert_eq!((p.done, p.scores.clone(), reports_of(&p)), (true, vec![400, 350], vec![]));
    assert_eq!(&standings(&mut t, slug).await[..2], [(1, 1.0, 0, 50), (5, 1.0, 0, 50)]);
    assert_eq!(
        logged(&mut t, slug, &["result_reported", "result"]).await,
        [
            (
                "result_reported".into(),
                "player 1 of a".into(),
                "Ann reports Ann 400 – Bo 350; waiting for Bo".into()
            ),
            ("result_reported".into(), "player 2 of a".into(), "Bo reports Ann 400 – Bo 350".into()),
            ("result".into(), "player 2 of a".into(), "Ann 400 – Bo 350 (the players' report)".into()),
        ]
    );
    // The result is everyone's now; the reports no one's.
    let seen = pairing_seen(&mut t, slug, None, 1, 1).await;
    assert_eq!((seen.done, seen.scores.clone(), reports_of(&seen).len()), (true, vec![400, 350], 0));
    let director_sees = watched_kinds(&mut t, slug, Some(ROOT)).await;
    assert_eq!(director_sees.iter().filter(|k| *k == "result_reported").count(), 2);
    let spectator_sees = watched_kinds(&mut t, slug, None).await;
    assert_eq!(spectator_sees.iter().filter(|k| *k == "result_reported").count(), 0);
    assert_eq!(spectator_sees.iter().filter(|k| *k == "result").count(), 1);
    // A report after the result is in is refused, naming it.
    assert_eq!(
        reported(&mut t, slug, &tokens[0], report(1, 401, 350, Win)).await.unwrap_err(),
        (
            Code::FailedPrecondition,
            "pairing 1 of round 1 has its result already (Ann 400 – Bo 350): ask the director to correct it"
                .into()
        )
    );
}

#[tokio::test]
async fn reports_that_differ_wait_for_the_director_who_settles_them_and_a_player_may_change_theirs() {
    let srv = start_directed(ROOT).await;
    let slug = "dispute";
    let (mut t, tokens) = event(&srv, slug, pb::ResultReports::BothAgree).await;
    // Cy (first of pairing 2) and Di disagree on Di's score.
    let (state, _) = reported(&mut t, slug, &tokens[2], report(1, 420, 380, Win)).await.unwrap();
    assert_eq!(state, pb::ReportState::Waiting);
    let (state, p) = reported(&mut t, slug, &tokens[3], report(1, 390, 420, Loss)).await.unwrap();
    assert_eq!(state, pb::ReportState::Disputed);
    assert_eq!((p.done, reports_of(&p)), (false, vec![(4, vec![420, 390])]), "Di sees her own report only");
    let director = pairing_seen(&mut t, slug, Some(ROOT), 1, 2).await;
    assert_eq!(
        (director.done, reports_of(&director)),
        (false, vec![(3, vec![420, 380]), (4, vec![420, 390])])
    );
    assert_eq!(
        logged(&mut t, slug, &["result_reported"]).await.last().unwrap().2,
        "Di reports Cy 420 – Di 390; disputed: Cy reported Cy 420 – Di 380"
    );
    // Cy changes his report: still disputed (Di's stands), and then Di changes hers to agree.
    let (state, _) = reported(&mut t, slug, &tokens[2], report(1, 420, 385, Win)).await.unwrap();
    assert_eq!(state, pb::ReportState::Disputed);
    let director = pairing_seen(&mut t, slug, Some(ROOT), 1, 2).await;
    assert_eq!(reports_of(&director), [(3, vec![420, 385]), (4, vec![420, 390])]);

    // The director settles it: RecordResult wins, the reports are gone.
    let request = pb::RecordResultRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairing: 2,
        result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first: 420, second: 388 })),
        correct: false,
        request_id: String::new(),
    };
    t.record_result(authed(request, ROOT)).await.unwrap();
    let settled = pairing_seen(&mut t, slug, Some(ROOT), 1, 2).await;
    assert_eq!((settled.done, settled.scores.clone(), reports_of(&settled).len()), (true, vec![420, 388], 0));
    assert_eq!(
        reported(&mut t, slug, &tokens[3], report(1, 388, 420, Loss)).await.unwrap_err().0,
        Code::FailedPrecondition
    );
    assert_eq!(
        logged(&mut t, slug, &["result"]).await,
        [("result".into(), "director".into(), "Cy 420 – Di 388".into())]
    );
}

#[tokio::test]
async fn a_retry_answers_as_the_first_time_and_logs_once() {
    let srv = start_directed(ROOT).await;
    let slug = "retry";
    let (mut t, tokens) = event(&srv, slug, pb::ResultReports::BothAgree).await;
    let first = pb::ReportResultRequest { request_id: "r-1".into(), ..report(1, 400, 350, Win) };
    let answers = [
        reported(&mut t, slug, &tokens[0], first.clone()).await.unwrap(),
        reported(&mut t, slug, &tokens[0], first.clone()).await.unwrap(),
    ];
    assert_eq!(answers[0], answers[1]);
    assert_eq!(logged(&mut t, slug, &["result_reported"]).await.len(), 1);
    // Bo agrees; Ann's retry of her first report still answers its first answer.
    reported(&mut t, slug, &tokens[1], report(1, 350, 400, Loss)).await.unwrap();
    assert_eq!(reported(&mut t, slug, &tokens[0], first).await.unwrap().0, pb::ReportState::Waiting);
    assert_eq!(logged(&mut t, slug, &["result_reported", "result"]).await.len(), 3);
    // Cy reports, then Di withdraws: the forfeit is the result, and Cy's report goes with it.
    reported(&mut t, slug, &tokens[2], report(1, 420, 380, Win)).await.unwrap();
    let request = pb::WithdrawPlayerRequest {
        slug: slug.into(),
        division: "a".into(),
        player: 4,
        request_id: String::new(),
    };
    t.withdraw_player(authed(request, ROOT)).await.unwrap();
    let p = pairing_seen(&mut t, slug, Some(ROOT), 1, 2).await;
    assert_eq!((p.done, p.forfeited_by, reports_of(&p)), (true, 4, vec![]));
}

#[tokio::test]
async fn where_one_report_suffices_it_enters_the_result_at_once_for_the_director_to_audit() {
    let srv = start_directed(ROOT).await;
    let slug = "one";
    let (mut t, tokens) = event(&srv, slug, pb::ResultReports::OneSuffices).await;
    // Di (second of pairing 2) reports a tie.
    let (state, p) = reported(&mut t, slug, &tokens[3], report(1, 377, 377, Tie)).await.unwrap();
    assert_eq!(state, pb::ReportState::Entered);
    assert_eq!((p.done, p.scores), (true, vec![377, 377]));
    assert_eq!(
        logged(&mut t, slug, &["reports_set", "result"]).await,
        [
            (
                "reports_set".into(),
                "director".into(),
                "players report their results: one report enters it".into()
            ),
            ("result".into(), "player 4 of a".into(), "Cy 377 – Di 377 (the players' report)".into()),
        ]
    );
    let division = set_reports(&mut t, slug, pb::ResultReports::Off).await.unwrap();
    assert_eq!(division.result_reports(), pb::ResultReports::Off);
    assert_eq!(
        reported(&mut t, slug, &tokens[0], report(1, 400, 350, Win)).await.unwrap_err(),
        (
            Code::FailedPrecondition,
            "division a does not take its players' reports: its director enters its results".into()
        )
    );
}

#[tokio::test]
async fn each_bad_report_is_refused_with_its_code_naming_what_is_wrong() {
    let srv = start_directed(ROOT).await;
    let slug = "bad";
    let (mut t, tokens) = event(&srv, slug, pb::ResultReports::BothAgree).await;
    let ann = tokens[0].as_str();
    let cases: Vec<(&str, Option<&str>, pb::ReportResultRequest, Code, &str)> = vec![
        (
            "no token",
            None,
            report(1, 400, 350, Win),
            Code::Unauthenticated,
            "a player's token is needed: the one their link holds",
        ),
        (
            "a token of no one",
            Some("nobody-0123456789"),
            report(1, 400, 350, Win),
            Code::Unauthenticated,
            "the token is no player's of this tournament and no director's",
        ),
        (
            "a director",
            Some(ROOT),
            report(1, 400, 350, Win),
            Code::PermissionDenied,
            "director may not ReportResult: a player reports their own result (a director enters it with RecordResult)",
        ),
        (
            "another pairing",
            Some(ann),
            pb::ReportResultRequest { pairing: 2, ..report(1, 400, 350, Win) },
            Code::PermissionDenied,
            "pairing 2 of round 1 is not yours: yours is pairing 1",
        ),
        (
            "no such pairing",
            Some(ann),
            pb::ReportResultRequest { pairing: 4, ..report(1, 400, 350, Win) },
            Code::InvalidArgument,
            "pairing: 4: round 1 has pairings 1 to 3",
        ),
        (
            "no such round",
            Some(ann),
            report(3, 400, 350, Win),
            Code::InvalidArgument,
            "round: 3: the division has rounds 1 to 2",
        ),
        (
            "a round not paired",
            Some(ann),
            report(2, 400, 350, Win),
            Code::FailedPrecondition,
            "round 2 is not paired yet",
        ),
        (
            "a score out of bounds",
            Some(ann),
            report(1, 400, 20000, Win),
            Code::InvalidArgument,
            "opponent_score: a score of 20000: -10000 to 10000",
        ),
        (
            "0–0",
            Some(ann),
            report(1, 0, 0, Tie),
            Code::InvalidArgument,
            "my_score: 0–0: no scores given (a forfeit is the director's to enter)",
        ),
        (
            "a tie reported as a win",
            Some(ann),
            report(1, 380, 380, Win),
            Code::InvalidArgument,
            "outcome: 380–380 is a tie for you, reported as a win",
        ),
        (
            "a win reported as a loss",
            Some(ann),
            report(1, 400, 350, Loss),
            Code::InvalidArgument,
            "outcome: 400–350 is a win for you, reported as a loss",
        ),
        (
            "no outcome",
            Some(ann),
            report(1, 400, 350, pb::ReportedOutcome::Unspecified),
            Code::InvalidArgument,
            "outcome: say whether the game was a win, a loss or a tie for you",
        ),
    ];
    for (what, token, mut request, code, message) in cases {
        request.slug = slug.into();
        let request = match token {
            Some(token) => authed(request, token),
            None => tonic::Request::new(request),
        };
        let status = t.report_result(request).await.unwrap_err();
        assert_eq!(status.code(), code, "{what}: {}", status.message());
        assert!(status.message().starts_with(message), "{what}: {}", status.message());
    }
    // Nothing was reported.
    assert_eq!(logged(&mut t, slug, &["result_reported", "result"]).await, []);
    // A late entry is in no pairing of round 1.
    let late = pb::AddPlayerRequest {
        slug: slug.into(),
        division: "a".into(),
        player: Some(pb::TournamentPlayerSpec { name: "Eve".into(), rating: 1500, ..Default::default() }),
        ..Default::default()
    };
    let eve = t.add_player(authed(late, ROOT)).await.unwrap().into_inner().token;
    assert_eq!(
        reported(&mut t, slug, &eve, report(1, 400, 350, Win)).await.unwrap_err(),
        (Code::FailedPrecondition, "you are in no pairing of round 1".into())
    );
    // SetResultReports needs a way.
    let status = set_reports(&mut t, slug, pb::ResultReports::Unspecified).await.unwrap_err();
    assert_eq!(
        (status.code(), status.message()),
        (
            Code::InvalidArgument,
            "result_reports: say how the division takes reports: off, both agree, or one suffices"
        )
    );
}

#[tokio::test]
async fn a_bye_and_a_game_played_on_the_server_have_no_report() {
    let srv = start_directed(ROOT).await;
    let slug = "here";
    let names = ["Ann", "Bo", "Cy"];
    let (mut t, tokens) = tournament(&srv, ROOT, (slug, slug), &names, &[pb::PairingMethod::Manual], 5).await;
    let request = pb::SetPairingsRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        pairings: vec![line(1, 2), line(3, 0)],
        request_id: String::new(),
    };
    t.set_pairings(authed(request, ROOT)).await.unwrap();
    set_reports(&mut t, slug, pb::ResultReports::BothAgree).await.unwrap();
    assert_eq!(
        reported(&mut t, slug, &tokens[2].token, report(1, 400, 350, Win)).await.unwrap_err(),
        (Code::FailedPrecondition, "you have a bye in round 1: there is no result to report".into())
    );
    let start = pb::StartRoundRequest {
        slug: slug.into(),
        division: "a".into(),
        round: 1,
        request_id: String::new(),
    };
    t.start_round(authed(start, ROOT)).await.unwrap();
    assert_eq!(
        reported(&mut t, slug, &tokens[0].token, report(1, 400, 350, Win)).await.unwrap_err(),
        (
            Code::FailedPrecondition,
            "pairing 1 of round 1 is played on the server: its result enters when its game ends".into()
        )
    );
}
