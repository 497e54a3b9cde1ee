//! A state-machine property test of tournaments over the server users run, on SQLite: generated
//! sequences of every director call (pair, set pairings, start, record, forfeit, correct,
//! withdraw, add (absent or with byes for the rounds gone), add and remove rounds, re-enter,
//! unpair), games ended by their players, retries of the call before, and restarts of
//! the server on its store between steps. After every step:
//! - a refused call was refused with a client's code (never INTERNAL, ABORTED or UNKNOWN) and
//!   changed nothing; a retried call answered its first answer and changed nothing;
//! - no player is in two pairings of a round, and no withdrawn player has a game to play;
//! - every live game of the tournament is its pairing's, and every pairing's game is its own
//!   pair's; a pairing done holds the result its game ended with (a correction aside: a finished
//!   game's record is final, so a correction changes only the tournament);
//! - the standings equal a recomputation from the results;
//! - the events are numbered 0 to the tournament's count, each once, in order;
//!
//! and after each restart and at the end, ExportTsh → ImportTsh → ExportTsh gives the same file.
//! `DAWGREF_TOURNAMENT_CASES` sets the number of sequences (32 by default; a longer run is the same
//! test with a larger number, its figure in BENCHMARKS.md).

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use pb::tournaments_service_client::TournamentsServiceClient;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::collections::{BTreeMap, HashMap, HashSet};
use tonic::Code;
use tonic::transport::Channel;

const DIRECTOR: &str = "machine-director";
const SLUG: &str = "machine";

#[derive(Clone, Debug)]
enum Op {
    Pair,
    /// SetPairings on the next unpaired round: the active players in a rotated order.
    SetPairings {
        rotate: usize,
    },
    Start,
    Record {
        pick: usize,
        first: i32,
        second: i32,
    },
    Forfeit {
        pick: usize,
        by_first: bool,
    },
    Correct {
        pick: usize,
        first: i32,
        second: i32,
    },
    /// A live game's player resigns.
    Resign {
        pick: usize,
        first: bool,
    },
    Withdraw {
        player: usize,
    },
    /// AddPlayer: absent from the rounds paired, or a bye of this spread in each.
    Add {
        missed: Option<i32>,
    },
    /// AddRound: one round at the end, Swiss or (true) King of the Hill.
    AddRound {
        king: bool,
    },
    /// RemoveRounds: the last one or two.
    RemoveRounds {
        count: u32,
    },
    Reenter {
        player: usize,
    },
    /// UnpairRound: the last round paired, or (false) the one before it.
    Unpair {
        last: bool,
    },
    /// A player of a pairing still to play reports its result (the division takes reports when
    /// both agree): the scores drawn from the pairing, so that its two players' reports agree,
    /// unless `differ`.
    Report {
        pick: usize,
        by_first: bool,
        differ: bool,
    },
    /// ReissuePlayerToken: a player's token made anew (their old one refused from then on).
    Reissue {
        player: usize,
    },
    /// The call before, again, with its request id.
    Retry,
    /// The server stops and starts again on its store.
    Restart,
}

fn op() -> impl Strategy<Value = Op> {
    let score = 250..500i32;
    prop_oneof![
        3 => Just(Op::Pair),
        1 => (0..8usize).prop_map(|rotate| Op::SetPairings { rotate }),
        3 => Just(Op::Start),
        5 => (0..64usize, score.clone(), score.clone())
            .prop_map(|(pick, first, second)| Op::Record { pick, first, second }),
        1 => (0..64usize, any::<bool>()).prop_map(|(pick, by_first)| Op::Forfeit { pick, by_first }),
        1 => (0..64usize, score.clone(), score).prop_map(|(pick, first, second)| Op::Correct { pick, first, second }),
        3 => (0..64usize, any::<bool>()).prop_map(|(pick, first)| Op::Resign { pick, first }),
        1 => (0..16usize).prop_map(|player| Op::Withdraw { player }),
        1 => prop::option::of(-50..51i32).prop_map(|missed| Op::Add { missed }),
        1 => any::<bool>().prop_map(|king| Op::AddRound { king }),
        1 => (1..3u32).prop_map(|count| Op::RemoveRounds { count }),
        1 => (0..16usize).prop_map(|player| Op::Reenter { player }),
        1 => any::<bool>().prop_map(|last| Op::Unpair { last }),
        3 => (0..64usize, any::<bool>(), prop::bool::weighted(0.2))
            .prop_map(|(pick, by_first, differ)| Op::Report { pick, by_first, differ }),
        1 => (0..16usize).prop_map(|player| Op::Reissue { player }),
        2 => Just(Op::Retry),
        1 => Just(Op::Restart),
    ]
}

/// A call made, to retry: its request and its answer's bytes.
#[derive(Clone)]
enum Call {
    Pair(pb::PairRoundRequest),
    Set(pb::SetPairingsRequest),
    Start(pb::StartRoundRequest),
    Record(pb::RecordResultRequest),
    Withdraw(pb::WithdrawPlayerRequest),
    AddRound(pb::AddRoundRequest),
    RemoveRounds(pb::RemoveRoundsRequest),
    Reenter(pb::ReenterPlayerRequest),
    Unpair(pb::UnpairRoundRequest),
    /// A player's report, with their token.
    Report(String, pb::ReportResultRequest),
    Reissue(pb::ReissuePlayerTokenRequest),
}

struct World {
    dir: TempDir,
    srv: Option<TestServer>,
    t: TournamentsServiceClient<Channel>,
    g: pb::games_service_client::GamesServiceClient<Channel>,
    /// Player tokens by number.
    tokens: HashMap<u32, String>,
    /// Pairings whose result a correction replaced: (round, pairing).
    corrected: HashSet<(u32, u32)>,
    /// The last call that was answered, with its answer.
    last: Option<(Call, Vec<u8>)>,
    restarts: usize,
    step: usize,
    /// Files read back so far (each into a tournament of its own).
    files: usize,
    /// Calls answered and refused, games resigned, retries answered.
    answered: usize,
    refused: usize,
    resigned: usize,
    retried: usize,
}

fn fail(what: impl Into<String>) -> TestCaseError {
    TestCaseError::fail(what.into())
}

macro_rules! ensure {
    ($cond:expr, $($what:tt)+) => {
        if !$cond {
            return Err(fail(format!($($what)+)));
        }
    };
}

async fn connect(srv: &TestServer) -> TournamentsServiceClient<Channel> {
    TournamentsServiceClient::connect(srv.url.clone())
        .await
        .unwrap()
        .max_decoding_message_size(8 << 20)
        .max_encoding_message_size(8 << 20)
}

fn name(i: usize) -> String {
    let letters: Vec<char> = ('A'..='Z').collect();
    format!("Player {}{}", letters[i % 26], letters[(i / 26) % 26].to_ascii_lowercase())
}

impl World {
    async fn new(players: usize, methods: &[pb::PairingMethod]) -> World {
        let dir = TempDir::new("tournament-machine");
        let (srv, _) = start_stored_directed(&dir.0, DIRECTOR).await;
        let (mut t, g) = (connect(&srv).await, srv.games().await);
        let request = pb::CreateTournamentRequest {
            allow_same_names: false,
            name: "Machine open".into(),
            slug: SLUG.into(),
            game: Some(pb::TournamentGameSettings::default()),
            divisions: vec![pb::DivisionSpec {
                bots_only: false,
                name: "a".into(),
                players: (0..players)
                    .map(|i| pb::TournamentPlayerSpec {
                        bot_account: String::new(),
                        name: name(i),
                        rating: 1500 - i as u32,
                        bot: None,
                        lifetime_games: None,
                    })
                    .collect(),
                rounds: methods
                    .iter()
                    .map(|&m| pb::RoundSpec { method: m as i32, ..Default::default() })
                    .collect(),
                controls: None,
                result_reports: pb::ResultReports::BothAgree as i32,
            }],
            seed: Some(5),
        };
        let made = t.create_tournament(authed(request, DIRECTOR)).await.unwrap().into_inner();
        let tokens = made.player_tokens.into_iter().map(|p| (p.player, p.token)).collect();
        World {
            dir,
            srv: Some(srv),
            t,
            g,
            tokens,
            corrected: HashSet::new(),
            last: None,
            restarts: 0,
            step: 0,
            files: 0,
            answered: 0,
            refused: 0,
            resigned: 0,
            retried: 0,
        }
    }

    async fn tournament(&mut self) -> pb::Tournament {
        let request = authed(pb::GetTournamentRequest { slug: SLUG.into() }, DIRECTOR);
        self.t.get_tournament(request).await.unwrap().into_inner().tournament.unwrap()
    }

    fn request_id(&self) -> String {
        format!("step-{}", self.step)
    }

    async fn restart(&mut self) {
        self.srv.take().unwrap().stop().await;
        let (srv, _) = start_stored_directed(&self.dir.0, DIRECTOR).await;
        self.t = connect(&srv).await;
        self.g = srv.games().await;
        self.srv = Some(srv);
        self.restarts += 1;
    }

    /// Make `call`: its answer's bytes, or its refusal.
    async fn call(&mut self, call: &Call) -> Result<Vec<u8>, tonic::Status> {
        use prost::Message;
        let t = &mut self.t;
        Ok(match call.clone() {
            Call::Pair(r) => t.pair_round(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Set(r) => t.set_pairings(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Start(r) => t.start_round(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Record(r) => t.record_result(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Withdraw(r) => t.withdraw_player(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::AddRound(r) => t.add_round(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::RemoveRounds(r) => t.remove_rounds(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Reenter(r) => t.reenter_player(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Unpair(r) => t.unpair_round(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec(),
            Call::Report(token, r) => t.report_result(authed(r, &token)).await?.into_inner().encode_to_vec(),
            Call::Reissue(r) => {
                t.reissue_player_token(authed(r, DIRECTOR)).await?.into_inner().encode_to_vec()
            }
        })
    }

    /// Make `call` and check what a refusal may be and that it changed nothing: whether it was
    /// answered.
    async fn director(&mut self, call: Call) -> Result<bool, TestCaseError> {
        let before = self.tournament().await;
        match self.call(&call).await {
            Ok(answer) => {
                self.last = Some((call, answer));
                self.answered += 1;
                Ok(true)
            }
            Err(e) => {
                ensure!(
                    matches!(e.code(), Code::FailedPrecondition | Code::InvalidArgument),
                    "step {}: refused with {:?}: {}",
                    self.step,
                    e.code(),
                    e.message()
                );
                ensure!(
                    self.tournament().await == before,
                    "step {}: a refused call changed the tournament",
                    self.step
                );
                self.refused += 1;
                Ok(false)
            }
        }
    }

    /// Every pairing of every paired round: (round, pairing).
    fn pairings(d: &pb::TournamentDivision) -> Vec<(u32, pb::TournamentPairing)> {
        (d.rounds.iter().enumerate())
            .filter(|(_, r)| r.paired)
            .flat_map(|(k, r)| r.pairings.iter().map(move |p| (k as u32 + 1, p.clone())))
            .collect()
    }

    async fn apply(&mut self, op: &Op) -> Result<(), TestCaseError> {
        self.step += 1;
        let d = self.tournament().await.divisions.remove(0);
        let next_unpaired =
            d.rounds.iter().position(|r| !r.paired).map_or(d.rounds.len() as u32 + 1, |k| k as u32 + 1);
        let next_unstarted =
            d.rounds.iter().position(|r| !r.started).map_or(d.rounds.len() as u32 + 1, |k| k as u32 + 1);
        let all = Self::pairings(&d);
        let request_id = self.request_id();
        match *op {
            Op::Pair => {
                let r = pb::PairRoundRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    round: next_unpaired,
                    request_id,
                };
                self.director(Call::Pair(r)).await?;
            }
            Op::SetPairings { rotate } => {
                let mut active: Vec<u32> = d
                    .players
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| !p.withdrawn)
                    .map(|(i, _)| i as u32 + 1)
                    .collect();
                if !active.is_empty() {
                    let by = rotate % active.len();
                    active.rotate_left(by);
                }
                let pairings = active
                    .chunks(2)
                    .map(|c| pb::PairingSpec { first: c[0], second: c.get(1).copied().unwrap_or(0) })
                    .collect();
                let r = pb::SetPairingsRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    round: next_unpaired,
                    pairings,
                    request_id,
                };
                self.director(Call::Set(r)).await?;
            }
            Op::Start => {
                let r = pb::StartRoundRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    round: next_unstarted,
                    request_id,
                };
                self.director(Call::Start(r)).await?;
            }
            Op::Record { pick, first, second } | Op::Correct { pick, first, second } => {
                let correct = matches!(op, Op::Correct { .. });
                let Some((round, p)) = pick_of(&all, pick, |p| p.done == correct && p.second != 0) else {
                    return Ok(());
                };
                let r = pb::RecordResultRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    round,
                    pairing: p.number,
                    result: Some(pb::record_result_request::Result::Scores(pb::FinalScores {
                        first,
                        second,
                    })),
                    correct,
                    request_id,
                };
                if self.director(Call::Record(r)).await? && correct {
                    self.corrected.insert((round, p.number));
                }
            }
            Op::Forfeit { pick, by_first } => {
                let Some((round, p)) = pick_of(&all, pick, |p| !p.done && p.second != 0) else {
                    return Ok(());
                };
                let r = pb::RecordResultRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    round,
                    pairing: p.number,
                    result: Some(pb::record_result_request::Result::ForfeitedBy(if by_first {
                        p.first
                    } else {
                        p.second
                    })),
                    correct: false,
                    request_id,
                };
                self.director(Call::Record(r)).await?;
            }
            Op::Resign { pick, first } => {
                let Some((round, p)) = pick_of(&all, pick, |p| !p.done && !p.game_id.is_empty()) else {
                    return Ok(());
                };
                let player = if first { p.first } else { p.second };
                let resign = pb::submit_turn_request::Action::Resign(pb::Resign {});
                let request = pb::SubmitTurnRequest {
                    game_id: p.game_id.clone(),
                    expected_turn: None,
                    request_id: String::new(),
                    action: Some(resign),
                };
                let token = self.tokens[&player].clone();
                if let Err(e) = self.g.submit_turn(authed(request, &token)).await {
                    ensure!(
                        e.code() == Code::FailedPrecondition,
                        "step {}: resign refused: {e:?}",
                        self.step
                    );
                    return Ok(());
                }
                // The game's end enters the result as soon as it is durable.
                for _ in 0..100 {
                    let d = self.tournament().await.divisions.remove(0);
                    if d.rounds[round as usize - 1].pairings[p.number as usize - 1].done {
                        self.resigned += 1;
                        return Ok(());
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                }
                return Err(fail(format!("step {}: the resigned game's result never entered", self.step)));
            }
            Op::Withdraw { player } => {
                let r = pb::WithdrawPlayerRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    player: (player % d.players.len()) as u32 + 1,
                    request_id,
                };
                self.director(Call::Withdraw(r)).await?;
            }
            Op::AddRound { king } => {
                let method = if king { pb::PairingMethod::KingOfTheHill } else { pb::PairingMethod::Swiss };
                let rounds = vec![pb::RoundSpec { method: method.into(), ..Default::default() }];
                let r = pb::AddRoundRequest { slug: SLUG.into(), division: "a".into(), rounds, request_id };
                self.director(Call::AddRound(r)).await?;
            }
            Op::RemoveRounds { count } => {
                let r =
                    pb::RemoveRoundsRequest { slug: SLUG.into(), division: "a".into(), count, request_id };
                self.director(Call::RemoveRounds(r)).await?;
            }
            Op::Reenter { player } => {
                let r = pb::ReenterPlayerRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    player: (player % d.players.len()) as u32 + 1,
                    request_id,
                };
                self.director(Call::Reenter(r)).await?;
            }
            Op::Unpair { last } => {
                let paired = next_unpaired - 1;
                let round = if last { paired } else { paired.saturating_sub(1) };
                let r = pb::UnpairRoundRequest { slug: SLUG.into(), division: "a".into(), round, request_id };
                self.director(Call::Unpair(r)).await?;
            }
            Op::Add { missed } => {
                let spec = pb::TournamentPlayerSpec {
                    bot_account: String::new(),
                    name: name(d.players.len()),
                    rating: 1400,
                    bot: None,
                    lifetime_games: None,
                };
                let r = pb::AddPlayerRequest {
                    allow_same_name: false,
                    request_id: String::new(),
                    slug: SLUG.into(),
                    division: "a".into(),
                    player: Some(spec),
                    missed_round_spread: missed,
                };
                let before = self.tournament().await;
                match self.t.add_player(authed(r, DIRECTOR)).await {
                    Ok(a) => {
                        let a = a.into_inner();
                        self.tokens.insert(a.player.unwrap().number, a.token);
                    }
                    Err(e) => {
                        ensure!(
                            matches!(e.code(), Code::FailedPrecondition | Code::InvalidArgument),
                            "step {}: AddPlayer refused: {e:?}",
                            self.step
                        );
                        ensure!(
                            self.tournament().await == before,
                            "step {}: a refused AddPlayer changed it",
                            self.step
                        );
                    }
                }
            }
            Op::Report { pick, by_first, differ } => {
                let Some((round, p)) = pick_of(&all, pick, |p| !p.done && p.second != 0) else {
                    return Ok(());
                };
                let (first, second) =
                    (300 + (round * 31 + p.number * 17) % 200, 300 + (round * 13 + p.number * 29) % 200);
                let (first, second) = (first as i32, second as i32 + i32::from(differ));
                let (player, mine, theirs) =
                    if by_first { (p.first, first, second) } else { (p.second, second, first) };
                let outcome = match mine.cmp(&theirs) {
                    std::cmp::Ordering::Greater => pb::ReportedOutcome::Win,
                    std::cmp::Ordering::Less => pb::ReportedOutcome::Loss,
                    std::cmp::Ordering::Equal => pb::ReportedOutcome::Tie,
                };
                let r = pb::ReportResultRequest {
                    slug: SLUG.into(),
                    round,
                    pairing: p.number,
                    my_score: mine,
                    opponent_score: theirs,
                    outcome: outcome as i32,
                    request_id,
                };
                let token = self.tokens[&player].clone();
                self.director(Call::Report(token, r)).await?;
            }
            Op::Reissue { player } => {
                let player = (player % d.players.len()) as u32 + 1;
                let r = pb::ReissuePlayerTokenRequest {
                    slug: SLUG.into(),
                    division: "a".into(),
                    player,
                    request_id,
                };
                if self.director(Call::Reissue(r)).await? {
                    let Some((_, answer)) = &self.last else { unreachable!("an answered call is kept") };
                    let answer =
                        <pb::ReissuePlayerTokenResponse as prost::Message>::decode(answer.as_slice())
                            .unwrap();
                    let old = self.tokens.insert(player, answer.token.clone());
                    // The old token is no one's any more.
                    if let Some(old) = old {
                        let request = authed(pb::GetTournamentRequest { slug: SLUG.into() }, &old);
                        let refused = self.t.get_tournament(request).await.map(|_| ()).map_err(|e| e.code());
                        ensure!(
                            refused == Err(Code::Unauthenticated),
                            "step {}: an old token still works",
                            self.step
                        );
                    }
                }
            }
            Op::Retry => {
                let Some((call, answer)) = self.last.clone() else { return Ok(()) };
                let before = self.tournament().await;
                let again = self
                    .call(&call)
                    .await
                    .map_err(|e| fail(format!("step {}: a retry refused: {e:?}", self.step)))?;
                ensure!(again == answer, "step {}: a retry answered another answer", self.step);
                ensure!(
                    self.tournament().await == before,
                    "step {}: a retry changed the tournament",
                    self.step
                );
                self.retried += 1;
            }
            Op::Restart => {
                self.restart().await;
                self.check_file().await?;
            }
        }
        Ok(())
    }

    /// The invariants of one truth, on the tournament as it stands.
    async fn check(&mut self) -> Result<(), TestCaseError> {
        let step = self.step;
        let tournament = self.tournament().await;
        let d = &tournament.divisions[0];
        let mut bound = HashSet::new();
        for (k, r) in d.rounds.iter().enumerate() {
            let round = k as u32 + 1;
            let mut seen = HashSet::new();
            for p in &r.pairings {
                for n in [p.first, p.second].into_iter().filter(|&n| n != 0) {
                    ensure!(seen.insert(n), "step {step}: round {round} has player {n} twice");
                    ensure!(
                        p.done || !d.players[n as usize - 1].withdrawn,
                        "step {step}: withdrawn {n} to play"
                    );
                }
                if p.second == 0 {
                    ensure!(p.done && p.game_id.is_empty(), "step {step}: a bye is done and has no game");
                    continue;
                }
                // A report stands only while its pairing waits, played over the board, each by
                // one of its players; two stand only when they differ (agreeing, they are the
                // result).
                let reporters: Vec<u32> = p.reports.iter().map(|r| r.player).collect();
                ensure!(
                    reporters.is_empty() || (!p.done && p.game_id.is_empty()),
                    "step {step}: round {round}'s pairing {} has reports {reporters:?} (done {})",
                    p.number,
                    p.done
                );
                ensure!(
                    reporters.iter().all(|n| [p.first, p.second].contains(n)),
                    "step {step}: a report by another player: {reporters:?}"
                );
                ensure!(
                    p.reports.len() < 2 || p.reports[0].scores != p.reports[1].scores,
                    "step {step}: two reports agree and no result is in"
                );
                if p.game_id.is_empty() {
                    continue;
                }
                bound.insert(p.game_id.clone());
                let request = authed(pb::GetGameRequest { game_id: p.game_id.clone() }, DIRECTOR);
                let view = view_of(&mut self.g, request).await;
                let names: Vec<&str> = view.seats.iter().map(|s| s.name.as_str()).collect();
                let pair: Vec<&str> =
                    [p.first, p.second].iter().map(|&n| d.players[n as usize - 1].name.as_str()).collect();
                ensure!(
                    names == pair,
                    "step {step}: round {round} pairing {}'s game is another pair's",
                    p.number
                );
                ensure!(
                    view.over == p.done,
                    "step {step}: round {round} pairing {}: game over {} but done {}",
                    p.number,
                    view.over,
                    p.done
                );
                if p.done && !self.corrected.contains(&(round, p.number)) {
                    match p.forfeited_by {
                        0 => {
                            let seats: Vec<i32> = view.seats.iter().map(|s| s.score).collect();
                            ensure!(
                                seats == p.scores,
                                "step {step}: the game ended {seats:?}, the pairing says {:?}",
                                p.scores
                            );
                        }
                        n => ensure!(
                            view.winners == [u32::from(n == p.first)],
                            "step {step}: the forfeit's winner lost the game"
                        ),
                    }
                }
            }
        }
        let labels = [("tournament".to_string(), SLUG.to_string())].into();
        let live = self
            .g
            .list_games(authed(
                pb::ListGamesRequest {
                    labels,
                    state: pb::GameState::Live as i32,
                    page_size: 100,
                    ..Default::default()
                },
                DIRECTOR,
            ))
            .await
            .unwrap()
            .into_inner();
        for game in &live.games {
            ensure!(bound.contains(&game.game_id), "step {step}: live game {} has no pairing", game.game_id);
        }
        // The standings, recomputed: a forfeit ±50, a bye its spread, a draw half a win.
        let mut expected = BTreeMap::<u32, (f64, u32, i64)>::new();
        for p in d.rounds.iter().flat_map(|r| r.pairings.iter()).filter(|p| p.done) {
            let spread = match (p.second, p.forfeited_by, p.scores.as_slice()) {
                (0, _, _) => i64::from(p.bye_spread),
                (_, 0, [x, y]) => i64::from(x - y),
                (_, n, _) if n == p.first => -50,
                _ => 50,
            };
            for (n, s) in [(p.first, spread), (p.second, -spread)] {
                if n != 0 {
                    let e = expected.entry(n).or_default();
                    e.0 += if s > 0 {
                        1.0
                    } else if s == 0 {
                        0.5
                    } else {
                        0.0
                    };
                    e.1 += u32::from(s < 0);
                    e.2 += s;
                }
            }
        }
        for s in &d.standings {
            let want = expected.get(&s.player).copied().unwrap_or_default();
            ensure!(
                (s.wins, s.losses, s.spread) == want,
                "step {step}: player {}'s standing {s:?}, recomputed {want:?}",
                s.player
            );
        }
        // The events: each number once, in order, up to the count (as its director watches: a
        // player's report is the directors' alone).
        let mut stream = self
            .t
            .watch_tournament(authed(
                pb::WatchTournamentRequest { slug: SLUG.into(), from_event: 0 },
                DIRECTOR,
            ))
            .await
            .unwrap()
            .into_inner();
        for number in 0..tournament.events {
            let e = tokio::time::timeout(std::time::Duration::from_secs(5), stream.message()).await;
            let e = e.map_err(|_| fail(format!("step {step}: event {number} never came")))?.unwrap().unwrap();
            ensure!(e.number == number, "step {step}: event {} where {number} was due", e.number);
        }
        Ok(())
    }

    /// ExportTsh → ImportTsh (into a tournament of its own) → ExportTsh: the same file.
    async fn check_file(&mut self) -> Result<(), TestCaseError> {
        let export = |slug: &str, division: &str| pb::ExportTshRequest {
            slug: slug.into(),
            division: division.into(),
        };
        let text = self.t.export_tsh(export(SLUG, "a")).await.unwrap().into_inner().text;
        self.files += 1;
        let slug = format!("back-{}", self.files);
        let holder = pb::CreateTournamentRequest {
            allow_same_names: false,
            name: "Read back".into(),
            slug: slug.clone(),
            game: Some(pb::TournamentGameSettings::default()),
            divisions: vec![pb::DivisionSpec {
                bots_only: false,
                name: "holder".into(),
                players: (0..2)
                    .map(|i| pb::TournamentPlayerSpec {
                        bot_account: String::new(),
                        name: name(i),
                        rating: 1500,
                        bot: None,
                        lifetime_games: None,
                    })
                    .collect(),
                rounds: vec![pb::RoundSpec { method: pb::PairingMethod::Swiss as i32, ..Default::default() }],
                controls: None,
                result_reports: 0,
            }],
            seed: Some(1),
        };
        self.t.create_tournament(authed(holder, DIRECTOR)).await.unwrap();
        // A round to come, so that a file of no rounds yet is a division too.
        let import = pb::ImportTshRequest {
            slug: slug.clone(),
            division: "a".into(),
            text: text.clone(),
            rounds_to_come: vec![pb::RoundSpec {
                method: pb::PairingMethod::Swiss as i32,
                ..Default::default()
            }],
            ..Default::default()
        };
        self.t.import_tsh(authed(import, DIRECTOR)).await.map_err(|e| {
            fail(format!("step {}: the exported file does not import: {e:?}\n{text}", self.step))
        })?;
        let back = self.t.export_tsh(export(&slug, "a")).await.unwrap().into_inner().text;
        ensure!(back == text, "step {}: the file read back differs:\n{text}\n---\n{back}", self.step);
        Ok(())
    }
}

/// The `pick`-th (cyclically) of the pairings `wanted` holds.
fn pick_of(
    all: &[(u32, pb::TournamentPairing)],
    pick: usize,
    wanted: impl Fn(&pb::TournamentPairing) -> bool,
) -> Option<(u32, pb::TournamentPairing)> {
    let some: Vec<_> = all.iter().filter(|(_, p)| wanted(p)).collect();
    (!some.is_empty()).then(|| some[pick % some.len()].clone())
}

fn methods() -> impl Strategy<Value = Vec<pb::PairingMethod>> {
    let method = prop_oneof![
        Just(pb::PairingMethod::Swiss),
        Just(pb::PairingMethod::KingOfTheHill),
        Just(pb::PairingMethod::RoundRobin),
        Just(pb::PairingMethod::Manual),
    ];
    prop::collection::vec(method, 2..5)
}

#[test]
fn generated_director_calls_games_retries_and_restarts_keep_one_truth() {
    let cases = std::env::var("DAWGREF_TOURNAMENT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(32);
    let config = Config { cases, max_shrink_iters: 64, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new(config);
    let strategy = (4..9usize, methods(), prop::collection::vec(op(), 10..40));
    let started = std::time::Instant::now();
    let totals = std::sync::Mutex::new([0usize; 6]);
    let result = runner.run(&strategy, |(players, methods, ops)| {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        runtime.block_on(async {
            let mut world = World::new(players, &methods).await;
            world.check().await?;
            for op in &ops {
                world.apply(op).await?;
                world.check().await?;
            }
            world.check_file().await?;
            let counts =
                [ops.len(), world.answered, world.refused, world.resigned, world.retried, world.restarts];
            for (total, n) in totals.lock().unwrap().iter_mut().zip(counts) {
                *total += n;
            }
            if let Some(srv) = world.srv.take() {
                srv.stop().await;
            }
            Ok(())
        })
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let [steps, answered, refused, resigned, retried, restarts] = *totals.lock().unwrap();
    eprintln!(
        "{cases} sequences, {steps} steps ({answered} calls answered, {refused} refused, {resigned} games \
         resigned, {retried} retries, {restarts} restarts) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
