//! Every challenge rule end to end over the wire: a phony challenged off (or refused at
//! submission under void), and a valid play challenged in vain with each rule's cost, including
//! the five-point bonus per word of a multi-word play.

use crate::common;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use tonic::transport::Channel;

struct Table {
    g: GamesServiceClient<Channel>,
    a: AnalysisServiceClient<Channel>,
    id: String,
    t: Vec<String>,
}

impl Table {
    async fn new(srv: &TestServer, rule: pb::ChallengeRule, seed: u64) -> Table {
        let mut g = srv.games().await;
        let c = g
            .create_game(create(pb::Ruleset::English, rule, vec![human("a"), human("b")], seed))
            .await
            .unwrap()
            .into_inner();
        Table { g, a: srv.analysis().await, id: c.game_id, t: c.seat_tokens }
    }

    async fn view(&mut self, seat: usize) -> pb::GameView {
        view_of(&mut self.g, authed(pb::GetGameRequest { game_id: self.id.clone() }, &self.t[seat])).await
    }

    async fn submit(
        &mut self,
        seat: usize,
        action: Option<pb::submit_turn_request::Action>,
    ) -> Result<pb::SubmitTurnResponse, tonic::Status> {
        let v = self.view(seat).await;
        self.g
            .submit_turn(authed(turn(&self.id, v.turn, action), &self.t[seat]))
            .await
            .map(|r| r.into_inner())
    }

    async fn challenge(&mut self, seat: usize) -> pb::ChallengeResponse {
        let req = pb::ChallengeRequest { game_id: self.id.clone(), request_id: String::new() };
        self.g.challenge(authed(req, &self.t[seat])).await.unwrap().into_inner()
    }

    /// A phony through the centre from two of the seat's tiles.
    async fn phony(&mut self, seat: usize) -> String {
        let rack: Vec<char> = self.view(seat).await.my_rack.chars().filter(|c| *c != '?').collect();
        for i in 0..rack.len() {
            for j in 0..rack.len() {
                if i == j {
                    continue;
                }
                let word: String = [rack[i], rack[j]].iter().collect();
                if !common::lexicon(dawgref::rules::RulesetKind::english()).contains_str(&word).unwrap() {
                    return format!("8H {word}");
                }
            }
        }
        panic!("no phony in {rack:?}");
    }

    /// The seat's best play with at least `words` words (by Evaluate), if any.
    async fn play_with_words(&mut self, seat: usize, words: usize) -> Option<pb::Play> {
        let req = pb::GenerateMovesRequest {
            position: Some(pb::Position {
                source: Some(pb::position::Source::GameId(self.id.clone())),
                lexicon: String::new(),
            }),
            ..Default::default()
        };
        let mut s = self.a.generate_moves(authed(req, &self.t[seat])).await.unwrap().into_inner();
        let mut candidates = Vec::new();
        while let Some(m) = s.message().await.unwrap() {
            candidates.push(m.play.unwrap());
        }
        for p in candidates.into_iter().take(300) {
            let pos = pb::Position {
                source: Some(pb::position::Source::GameId(self.id.clone())),
                lexicon: String::new(),
            };
            let e = self
                .a
                .evaluate(pb::EvaluateRequest { position: Some(pos), play: Some(p.clone()) })
                .await
                .unwrap()
                .into_inner()
                .evaluation
                .unwrap();
            if e.words.len() >= words {
                return Some(p);
            }
        }
        None
    }
}

fn play(n: &str) -> Option<pb::submit_turn_request::Action> {
    play_action(n)
}

fn pass() -> Option<pb::submit_turn_request::Action> {
    Some(pb::submit_turn_request::Action::Pass(pb::Pass {}))
}

#[tokio::test]
async fn phonies_come_off_under_every_rule_that_allows_challenges() {
    let srv = start().await;
    for rule in [
        pb::ChallengeRule::Single,
        pb::ChallengeRule::Double,
        pb::ChallengeRule::FivePoint,
        pb::ChallengeRule::TenPoint,
    ] {
        let mut t = Table::new(&srv, rule, 61).await;
        let phony = t.phony(0).await;
        let r = t.submit(0, play(&phony)).await.unwrap();
        assert!(r.points > 0);
        let v = t.challenge(1).await;
        assert!(!v.acceptable, "{rule:?}");
        let view = v.view.unwrap();
        assert_eq!(
            (view.seats[0].score, view.to_move, view.board.unwrap().rows[7].as_str()),
            (0, 1, "...............")
        );
    }
    // Triple: the phony loses the game.
    let mut t = Table::new(&srv, pb::ChallengeRule::Triple, 62).await;
    let phony = t.phony(0).await;
    t.submit(0, play(&phony)).await.unwrap();
    let v = t.challenge(1).await.view.unwrap();
    assert!(v.over);
    assert_eq!(v.winners, vec![1]);
    // Void: refused at submission, nothing to challenge.
    let mut t = Table::new(&srv, pb::ChallengeRule::Void, 63).await;
    let phony = t.phony(0).await;
    let e = t.submit(0, play(&phony)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().contains("not in the lexicon"), "{}", e.message());
}

#[tokio::test]
async fn failed_challenges_cost_what_the_rule_says() {
    let srv = start().await;
    // Single: nothing. Double: the challenger's turn. Triple: the game.
    for (rule, seed) in
        [(pb::ChallengeRule::Single, 71), (pb::ChallengeRule::Double, 72), (pb::ChallengeRule::Triple, 73)]
    {
        let mut t = Table::new(&srv, rule, seed).await;
        let best = t.play_with_words(0, 1).await.unwrap();
        let points = t.submit(0, Some(pb::submit_turn_request::Action::Play(best))).await.unwrap().points;
        let r = t.challenge(1).await;
        assert!(r.acceptable);
        let v = r.view.unwrap();
        assert_eq!(v.seats[0].score, points);
        match rule {
            pb::ChallengeRule::Single => assert_eq!((v.to_move, v.turn), (1, 1)),
            pb::ChallengeRule::Double => assert_eq!((v.to_move, v.turn), (0, 2)),
            _ => assert_eq!((v.over, v.winners.clone()), (true, vec![0])),
        }
    }
}

#[tokio::test]
async fn five_points_per_word() {
    let srv = start().await;
    let mut t = Table::new(&srv, pb::ChallengeRule::FivePoint, 81).await;
    let first = t.play_with_words(0, 1).await.unwrap();
    t.submit(0, Some(pb::submit_turn_request::Action::Play(first))).await.unwrap();
    t.submit(1, pass()).await.unwrap();
    let multi = t.play_with_words(0, 2).await.expect("a play forming two words or more");
    let pos =
        pb::Position { source: Some(pb::position::Source::GameId(t.id.clone())), lexicon: String::new() };
    let words =
        t.a.evaluate(pb::EvaluateRequest { position: Some(pos), play: Some(multi.clone()) })
            .await
            .unwrap()
            .into_inner()
            .evaluation
            .unwrap()
            .words
            .len() as i32;
    let before = t.view(0).await.seats[0].score;
    let points = t.submit(0, Some(pb::submit_turn_request::Action::Play(multi))).await.unwrap().points;
    let r = t.challenge(1).await;
    assert!(r.acceptable);
    assert_eq!(r.view.unwrap().seats[0].score, before + points + 5 * words);
    assert!(words >= 2);
}
