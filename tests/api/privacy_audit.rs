//! Who sees which racks, for every event kind and every response, from each viewer class: the
//! seat itself, its opponent, a watcher (no token) and a caller with a token of no seat. Racks
//! are compared with the engine's own record, so "appears" means exactly the right letters and
//! "does not appear" means an empty field.
//!
//! Games are set up to produce every event kind the proto names: play, phony_withdrawn,
//! challenged, challenge_bonus, turn_lost, pass, exchange, end_rack_points, rack_penalty,
//! time_penalty, resign, out_of_time and game_over.

use crate::common;

use dawgref::host::SeatKind;

use common::server::*;
use dawgref::proto::v1 as pb;
use dawgref::rules::RulesetKind;
use std::collections::BTreeSet;
use tonic::Code;
use tonic::transport::Channel;

type Games = pb::games_service_client::GamesServiceClient<Channel>;

const WRONG: &str = "ffffffffffffffffffffffffffffffff";

struct Audit {
    id: String,
    tokens: Vec<String>,
}

/// The engine's racks: for each event, the seat's rack before it; and each seat's rack now.
async fn truth(srv: &TestServer, id: &str) -> (Vec<String>, Vec<String>) {
    let session = srv.handle.host().session(id).await.unwrap();
    session.settled().await;
    let snapshot = session.snapshot();
    let game = snapshot.game();
    let alphabet = game.config().rules.alphabet;
    let events = game.history().iter().map(|e| e.rack.to_string(alphabet)).collect();
    let racks = (0..snapshot.seats().len()).map(|s| game.rack(s).unwrap().to_string(alphabet)).collect();
    (events, racks)
}

/// The first `n` events of the game as `token`'s holder sees them.
async fn events(g: &mut Games, id: &str, token: Option<&str>, n: u64) -> Vec<pb::WatchGameResponse> {
    let req = pb::WatchGameRequest { game_id: id.into(), from_event: 0 };
    let req = match token {
        Some(t) => authed(req, t),
        None => tonic::Request::new(req),
    };
    let mut stream = g.watch_game(req).await.unwrap().into_inner();
    let mut out = Vec::new();
    while (out.len() as u64) < n {
        out.push(stream.message().await.unwrap().expect("the stream has the whole history"));
    }
    out
}

impl Audit {
    async fn new(g: &mut Games, req: pb::CreateGameRequest) -> Audit {
        let created = g.create_game(req).await.unwrap().into_inner();
        let audit = Audit { id: created.game_id, tokens: created.seat_tokens };
        // CreateGame answers its creator, the first seat given a token: that seat's view, its rack.
        let first = audit.tokens.iter().position(|t| !t.is_empty()).unwrap();
        let view = created.view.unwrap();
        assert_eq!(view.my_seat, Some(first as u32));
        assert_eq!(view.my_rack, audit.view(g, first).await.my_rack);
        assert_eq!(view.my_rack.chars().count(), 7);
        audit
    }

    async fn view(&self, g: &mut Games, seat: usize) -> pb::GameView {
        view_of(g, authed(pb::GetGameRequest { game_id: self.id.clone() }, &self.tokens[seat])).await
    }

    async fn submit(
        &self,
        g: &mut Games,
        seat: usize,
        action: pb::submit_turn_request::Action,
    ) -> pb::SubmitTurnResponse {
        let turn = self.view(g, seat).await.turn;
        let req = pb::SubmitTurnRequest {
            game_id: self.id.clone(),
            expected_turn: Some(turn),
            request_id: String::new(),
            action: Some(action),
        };
        g.submit_turn(authed(req, &self.tokens[seat])).await.unwrap().into_inner()
    }

    async fn challenge(&self, g: &mut Games, seat: usize) -> pb::ChallengeResponse {
        let req = pb::ChallengeRequest { game_id: self.id.clone(), request_id: String::new() };
        g.challenge(authed(req, &self.tokens[seat])).await.unwrap().into_inner()
    }

    /// Every viewer class, every response and event of this game: racks exactly as they should be.
    async fn check(&self, srv: &TestServer, g: &mut Games) -> BTreeSet<String> {
        let (event_racks, racks) = truth(srv, &self.id).await;
        let now = view_of(g, pb::GetGameRequest { game_id: self.id.clone() }).await;
        let over = now.over;
        // Unary views.
        for (seat, rack) in racks.iter().enumerate() {
            let v = self.view(g, seat).await;
            assert_eq!((v.my_seat, &v.my_rack), (Some(seat as u32), rack), "seat {seat}'s own view");
        }
        let anonymous = view_of(g, pb::GetGameRequest { game_id: self.id.clone() }).await;
        assert_eq!((anonymous.my_seat, anonymous.my_rack.as_str()), (None, ""), "a view without a token");
        let wrong = g.get_game(authed(pb::GetGameRequest { game_id: self.id.clone() }, WRONG)).await;
        assert_eq!(code(wrong), Code::Unauthenticated);
        // Event streams.
        let mut kinds = BTreeSet::new();
        let viewers: Vec<Option<usize>> = (0..self.tokens.len()).map(Some).chain([None]).collect();
        for viewer in viewers {
            let token = viewer.map(|s| self.tokens[s].as_str());
            let stream = events(g, &self.id, token, now.events).await;
            assert_eq!(stream.len(), event_racks.len(), "{viewer:?} sees every event");
            for (e, truth_rack) in stream.iter().zip(&event_racks) {
                kinds.insert(e.kind.clone());
                let own = viewer == Some(e.seat as usize);
                let expected = if own { truth_rack.as_str() } else { "" };
                assert_eq!(e.rack, expected, "{} event {} seen by {viewer:?}", e.kind, e.number);
                match e.kind.as_str() {
                    // Exchanged tiles: their owner sees them, everyone sees how many.
                    "exchange" => {
                        assert_eq!(e.tiles.is_empty(), !own, "exchange seen by {viewer:?}");
                        assert!(e.tile_count > 0);
                    }
                    // Racks counted at the end are shown to all: they are public by then.
                    "end_rack_points" | "rack_penalty" => {
                        assert_eq!(e.tiles.chars().count() as u32, e.tile_count, "{}", e.kind);
                    }
                    _ => assert_eq!(e.tiles, "", "{} event carries tiles", e.kind),
                }
            }
        }
        let wrong = g
            .watch_game(authed(pb::WatchGameRequest { game_id: self.id.clone(), from_event: 0 }, WRONG))
            .await;
        assert_eq!(code(wrong), Code::Unauthenticated);
        // The record: every rack once the game is over; until then the caller's own only.
        for viewer in (0..self.tokens.len()).map(Some).chain([None]) {
            let req = pb::ExportGcgRequest { game_id: self.id.clone() };
            let req = match viewer {
                Some(s) => authed(req, &self.tokens[s]),
                None => tonic::Request::new(req),
            };
            let gcg = g.export_gcg(req).await.unwrap().into_inner().gcg;
            let Ok(parsed) = dawgref::notation::gcg::parse(&gcg) else {
                assert!(!gcg.contains('>'), "a record with move lines that does not parse:\n{gcg}");
                continue;
            };
            let nick_seat = |nick: &str| parsed.players.iter().position(|p| p.nick == nick).unwrap();
            for m in &parsed.moves {
                if matches!(m.kind, dawgref::notation::gcg::MoveKind::EndRack { .. }) {
                    continue; // `(EGOP) +7`: the opponent's rack counted at the end, public by then.
                }
                let seat = nick_seat(&m.nick);
                let shown = over || viewer == Some(seat);
                assert_eq!(m.rack.is_some(), shown, "GCG line {:?} exported for {viewer:?}", m.text);
            }
        }
        let wrong = g.export_gcg(authed(pb::ExportGcgRequest { game_id: self.id.clone() }, WRONG)).await;
        assert_eq!(code(wrong), Code::Unauthenticated);
        kinds
    }
}

/// Seat `seat`'s rack as a play across from 8H that is not a word (blanks as `e`).
async fn phony(a: &Audit, g: &mut Games, seat: usize) -> pb::submit_turn_request::Action {
    let rack = a.view(g, seat).await.my_rack;
    let mut letters: Vec<char> = rack.chars().map(|c| if c == '?' { 'e' } else { c }).collect();
    let lexicon = common::lexicon(RulesetKind::english());
    for _ in 0..letters.len() {
        let word: String = letters.iter().collect();
        if !lexicon.contains_str(&word.to_uppercase()).unwrap() {
            return play_action(&format!("8H {word}")).unwrap();
        }
        letters.rotate_left(1);
    }
    panic!("every rotation of {rack} is a word");
}

async fn best(srv: &TestServer, a: &Audit, seat: usize) -> pb::submit_turn_request::Action {
    let mut an = srv.analysis().await;
    match best_move(&mut an, &a.id, &a.tokens[seat]).await {
        Some(m) => pb::submit_turn_request::Action::Play(m.play.unwrap()),
        None => pb::submit_turn_request::Action::Pass(pb::Pass {}),
    }
}

fn game(rule: pb::ChallengeRule, seed: u64) -> pb::CreateGameRequest {
    create(pb::Ruleset::English, rule, vec![human("a"), human("b")], seed)
}

#[tokio::test]
async fn every_event_and_response_shows_racks_only_to_their_owner() {
    let srv = start().await;
    let mut g = srv.games().await;
    let mut seen = BTreeSet::new();
    use pb::submit_turn_request::Action;

    // Single challenge: a phony withdrawn, a play that stands, an exchange, a pass, a resignation.
    let single = Audit::new(&mut g, game(pb::ChallengeRule::Single, 3)).await;
    let phony_play = phony(&single, &mut g, 0).await;
    let r = single.submit(&mut g, 0, phony_play).await;
    assert_eq!(
        r.view.unwrap().my_rack,
        truth(&srv, &single.id).await.1[0],
        "SubmitTurn answers with the submitter's rack"
    );
    let c = single.challenge(&mut g, 1).await;
    assert!(!c.acceptable);
    assert_eq!(
        c.view.unwrap().my_rack,
        truth(&srv, &single.id).await.1[1],
        "Challenge answers with the challenger's rack"
    );
    let play = best(&srv, &single, 1).await;
    single.submit(&mut g, 1, play).await;
    assert!(single.challenge(&mut g, 0).await.acceptable);
    let two: String = single.view(&mut g, 0).await.my_rack.chars().take(2).collect();
    single.submit(&mut g, 0, Action::Exchange(two)).await;
    single.submit(&mut g, 1, Action::Pass(pb::Pass {})).await;
    seen.extend(single.check(&srv, &mut g).await);
    single.submit(&mut g, 0, Action::Resign(pb::Resign {})).await;
    seen.extend(single.check(&srv, &mut g).await);

    // Five points: a failed challenge gives a bonus. Double: it costs a turn.
    for rule in [pb::ChallengeRule::FivePoint, pb::ChallengeRule::Double] {
        let a = Audit::new(&mut g, game(rule, 4)).await;
        let play = best(&srv, &a, 0).await;
        a.submit(&mut g, 0, play).await;
        assert!(a.challenge(&mut g, 1).await.acceptable);
        seen.extend(a.check(&srv, &mut g).await);
    }

    // Six scoreless turns: racks counted against their holders, a time penalty for the seat in
    // overtime.
    let mut clocked = game(pb::ChallengeRule::Single, 5);
    clocked.clock = Some(pb::ClockSpec {
        initial_ms: 1,
        increment_ms: 0,
        max_overtime_ms: 3_600_000,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let a = Audit::new(&mut g, clocked).await;
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    for t in 0..6 {
        a.submit(&mut g, t % 2, Action::Pass(pb::Pass {})).await;
    }
    seen.extend(a.check(&srv, &mut g).await);

    // Out of time.
    let mut flagged = game(pb::ChallengeRule::Single, 6);
    flagged.clock = Some(pb::ClockSpec {
        initial_ms: 1,
        increment_ms: 0,
        max_overtime_ms: 1,
        penalty_per_minute: 10,
        per_move_ms: 0,
    });
    let a = Audit::new(&mut g, flagged).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    assert!(view_of(&mut g, pb::GetGameRequest { game_id: a.id.clone() }).await.over);
    seen.extend(a.check(&srv, &mut g).await);

    // A game played out: end-of-game rack points.
    let record =
        std::fs::read_to_string(format!("{}/tests/data/gcg/doug_v_emely.gcg", env!("CARGO_MANIFEST_DIR")))
            .unwrap();
    let imported =
        g.import_gcg(pb::ImportGcgRequest { gcg: record, ..Default::default() }).await.unwrap().into_inner();
    let a = Audit { id: imported.game_id, tokens: imported.seat_tokens };
    seen.extend(a.check(&srv, &mut g).await);

    let all: BTreeSet<String> = [
        "play",
        "phony_withdrawn",
        "challenged",
        "challenge_bonus",
        "turn_lost",
        "pass",
        "exchange",
        "end_rack_points",
        "rack_penalty",
        "time_penalty",
        "resign",
        "out_of_time",
        "game_over",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(seen, all, "every event kind was audited");
}

#[tokio::test]
async fn analysis_of_a_game_uses_only_the_callers_rack() {
    let srv = start().await;
    let mut g = srv.games().await;
    let a = Audit::new(&mut g, game(pb::ChallengeRule::Single, 8)).await;
    let mut an = srv.analysis().await;
    let req = |limit| pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(a.id.clone())),
            lexicon: String::new(),
        }),
        limit,
        ..Default::default()
    };
    // Without a token there is no rack to generate from; a wrong token is refused.
    assert_eq!(code(an.generate_moves(req(1)).await), Code::InvalidArgument);
    assert_eq!(code(an.generate_moves(authed(req(1), WRONG)).await), Code::Unauthenticated);
    // With a token: plays from that seat's rack only.
    let racks = truth(&srv, &a.id).await.1;
    for (seat, (token, rack)) in a.tokens.iter().zip(&racks).enumerate() {
        let mut stream = an.generate_moves(authed(req(50), token)).await.unwrap().into_inner();
        let rack: dawgref::rack::Rack =
            dawgref::rack::Rack::parse(rack, dawgref::alphabet::Alphabet::english()).unwrap();
        while let Some(m) = stream.message().await.unwrap() {
            let mut left = rack;
            for t in m.play.unwrap().tiles {
                let letter = if t.blank { "?".to_string() } else { t.letter.clone() };
                let one =
                    dawgref::rack::Rack::parse(&letter, dawgref::alphabet::Alphabet::english()).unwrap();
                assert!(left.remove_all(&one), "seat {seat}'s move uses a tile not on its rack");
            }
        }
    }
}

#[tokio::test]
async fn tokens_are_kept_only_as_hashes() {
    let dir = TempDir::new("tokens");
    let (srv, _) = start_stored(&dir.0).await;
    let mut g = srv.games().await;
    let created = two_humans(&mut g, 9).await;
    let session = srv.handle.host().session(&created.game_id).await.unwrap();
    let snapshot = session.snapshot();
    for (seat, token) in created.seat_tokens.iter().enumerate() {
        assert_eq!(token.len(), 32);
        let kind = snapshot.seats()[seat].kind();
        assert!(
            matches!(kind, SeatKind::Human { token: Some(h) } if *h == dawgref::server::auth::hash(token)),
            "{kind:?}"
        );
    }
    srv.stop().await;
    // Nowhere in the data directory: not in the database, not in its write-ahead log.
    for entry in std::fs::read_dir(&dir.0).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        for token in &created.seat_tokens {
            assert!(!bytes.windows(token.len()).any(|w| w == token.as_bytes()), "a token is stored in clear");
        }
    }
}
