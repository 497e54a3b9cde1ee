//! Check-in before round 1, over the socket: players check themselves in with their own token
//! (CheckIn), a director checks in anyone, everyone sees who has (`checked_in`), the log says
//! who did it; the director withdraws every player who has not in one step (WithdrawAbsent) and
//! round 1 pairs those who came; check-in closes when round 1 is paired. Each bad call refused
//! with its code, naming what is wrong; a retry answers as the first time.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use tonic::Code;
use tonic::transport::Channel;

const ROOT: &str = "director-secret";

type Tournaments = TournamentsServiceClient<Channel>;

fn check_in(division: &str, player: u32, present: bool, request_id: &str) -> pb::CheckInRequest {
    pb::CheckInRequest {
        slug: "hall".into(),
        division: division.into(),
        player,
        present,
        request_id: request_id.into(),
    }
}

async fn checked_in(t: &mut Tournaments) -> Vec<u32> {
    let request = pb::GetTournamentRequest { slug: "hall".into() };
    let got = t.get_tournament(tonic::Request::new(request)).await.unwrap().into_inner();
    let division = got.tournament.unwrap().divisions.remove(0);
    division.players.iter().filter(|p| p.checked_in).map(|p| p.number).collect()
}

async fn logged(t: &mut Tournaments, kind: &str) -> Vec<(String, String)> {
    let request = pb::GetTournamentLogRequest {
        slug: "hall".into(),
        filter: Some(pb::TournamentLogFilter { kinds: vec![kind.into()], ..Default::default() }),
        ..Default::default()
    };
    let log = t.get_tournament_log(authed(request, ROOT)).await.unwrap().into_inner();
    log.events.into_iter().map(|e| (e.detail, e.by)).collect()
}

fn withdraw_absent(request_id: &str) -> pb::WithdrawAbsentRequest {
    pb::WithdrawAbsentRequest { slug: "hall".into(), division: "a".into(), request_id: request_id.into() }
}

#[tokio::test]
async fn players_check_in_the_director_withdraws_the_absent_and_round_one_pairs_those_who_came() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo"];
    let (mut t, tokens) =
        tournament(&srv, ROOT, ("hall", "hall"), &names, &[pb::PairingMethod::Swiss; 2], 7).await;
    let token = |n: usize| tokens[n - 1].token.clone();

    // Ann and Cy check in from their links; Ed is checked in at the desk.
    for n in [1, 3] {
        let r = t.check_in(authed(check_in("", 0, true, "in"), &token(n))).await.unwrap().into_inner();
        let player = r.player.unwrap();
        assert_eq!((player.number, player.checked_in), (n as u32, true));
    }
    t.check_in(authed(check_in("a", 5, true, ""), ROOT)).await.unwrap();
    // Checking in again changes nothing and logs nothing; a retry answers the same.
    t.check_in(authed(check_in("a", 0, true, ""), &token(1))).await.unwrap();
    let again = t.check_in(authed(check_in("", 0, true, "in"), &token(3))).await.unwrap().into_inner();
    assert_eq!(again.player.unwrap().number, 3);
    assert_eq!(checked_in(&mut t).await, [1, 3, 5]);
    // Bo takes back a check-in he never made: nothing; Cy takes hers back, then checks in again.
    t.check_in(authed(check_in("", 0, false, ""), &token(2))).await.unwrap();
    t.check_in(authed(check_in("", 0, false, ""), &token(3))).await.unwrap();
    assert_eq!(checked_in(&mut t).await, [1, 5]);
    t.check_in(authed(check_in("", 0, true, ""), &token(3))).await.unwrap();
    let log = logged(&mut t, "checked_in").await;
    let said = |d: &str, by: &str| (d.to_string(), by.to_string());
    assert_eq!(
        log,
        [
            said("Ann checks in", "player 1 of a"),
            said("Cy checks in", "player 3 of a"),
            said("Ed is checked in by the director", "director"),
            said("Cy takes back their check-in", "player 3 of a"),
            said("Cy checks in", "player 3 of a"),
        ]
    );

    // The absent withdrawn in one step, each logged; a retry answers the same list.
    let r = t.withdraw_absent(authed(withdraw_absent("w"), ROOT)).await.unwrap().into_inner();
    assert_eq!(r.withdrawn, [2, 4, 6]);
    let withdrawn: Vec<u32> =
        r.division.unwrap().players.iter().filter(|p| p.withdrawn).map(|p| p.number).collect();
    assert_eq!(withdrawn, [2, 4, 6]);
    let r = t.withdraw_absent(authed(withdraw_absent("w"), ROOT)).await.unwrap().into_inner();
    assert_eq!(r.withdrawn, [2, 4, 6]);
    let absent = logged(&mut t, "player_withdrawn").await;
    assert_eq!(
        absent,
        ["Bo", "Di", "Flo"].map(|n| said(&format!("{n} withdraws: absent at check-in"), "director"))
    );
    // Called again with everyone here: no one.
    let r = t.withdraw_absent(authed(withdraw_absent(""), ROOT)).await.unwrap().into_inner();
    assert!(r.withdrawn.is_empty());

    // A withdrawn player cannot check in until the director enters them again.
    let (code, why) = refused(t.check_in(authed(check_in("", 0, true, ""), &token(2))).await);
    assert_eq!(code, Code::FailedPrecondition);
    assert_eq!(why, "player 2 (Bo) is withdrawn: the director enters them again (ReenterPlayer) first");

    // Round 1 pairs the three who came (a bye for one); check-in is over.
    let pair =
        pb::PairRoundRequest { slug: "hall".into(), division: "a".into(), round: 1, ..Default::default() };
    let round = t.pair_round(authed(pair, ROOT)).await.unwrap().into_inner().round.unwrap();
    let mut paired: Vec<u32> =
        round.pairings.iter().flat_map(|p| [p.first, p.second]).filter(|&n| n != 0).collect();
    paired.sort();
    assert_eq!(paired, [1, 3, 5]);
    let (code, why) = refused(t.check_in(authed(check_in("", 0, false, ""), &token(1))).await);
    assert_eq!(code, Code::FailedPrecondition);
    assert_eq!(
        why,
        "division a's round 1 is paired: check-in is over (take round 1's pairings back with UnpairRound to reopen it)"
    );
    let (code, _) = refused(t.withdraw_absent(authed(withdraw_absent(""), ROOT)).await);
    assert_eq!(code, Code::FailedPrecondition);
}

#[tokio::test]
async fn each_bad_check_in_is_refused_with_its_code_naming_what_is_wrong() {
    let srv = start_directed(ROOT).await;
    let names = ["Ann", "Bo", "Cy", "Di"];
    let (mut t, tokens) =
        tournament(&srv, ROOT, ("hall", "hall"), &names, &[pb::PairingMethod::Swiss; 2], 7).await;
    let ann = tokens[0].token.clone();

    // No one checked in yet: withdrawing the absent would withdraw everyone.
    let (code, why) = refused(t.withdraw_absent(authed(withdraw_absent(""), ROOT)).await);
    assert_eq!(code, Code::FailedPrecondition);
    assert_eq!(why, "no player of division a has checked in: withdrawing the absent would withdraw all 4");
    // No token; a token of no one here.
    let (code, _) = refused(t.check_in(tonic::Request::new(check_in("", 0, true, ""))).await);
    assert_eq!(code, Code::Unauthenticated);
    let (code, _) = refused(t.check_in(authed(check_in("", 0, true, ""), "nobody's")).await);
    assert_eq!(code, Code::Unauthenticated);
    // A player naming someone else.
    let (code, why) = refused(t.check_in(authed(check_in("a", 2, true, ""), &ann)).await);
    assert_eq!(code, Code::PermissionDenied);
    assert_eq!(why, "you are player 1 of a: a player checks in only themselves");
    // A director naming no one there.
    let (code, why) = refused(t.check_in(authed(check_in("a", 9, true, ""), ROOT)).await);
    assert_eq!(code, Code::InvalidArgument);
    assert!(why.contains('9') && why.contains("player"), "{why}");
    let (code, why) = refused(t.check_in(authed(check_in("b", 1, true, ""), ROOT)).await);
    assert_eq!(code, Code::InvalidArgument);
    assert!(why.contains("division"), "{why}");
    // WithdrawAbsent is a director's: a player's token is refused.
    let (code, _) = refused(t.withdraw_absent(authed(withdraw_absent(""), &ann)).await);
    assert_eq!(code, Code::PermissionDenied);
    assert!(checked_in(&mut t).await.is_empty());
}
