//! Fuzz target bodies, kept out of the shipped library: each takes arbitrary bytes, feeds them
//! to one of the server's input surfaces, and checks what must hold for every input (no panic,
//! and round trips where a parser has a writer). The `fuzz/` crate wraps them for `cargo fuzz`
//! (libFuzzer, nightly); `tests/smoke.rs` runs the same bodies on stable over the checked-in
//! corpus, the crash regressions and a stream of mutated inputs, so CI exercises every target
//! on every run.

use dawgref::alphabet::Alphabet;
use dawgref::game::record::{ImportAsk, check_record_with, import_setup};
use dawgref::lexicon::{Lexicon, catalog, file};
use dawgref::notation::{self, cgp, gcg};
use dawgref::proto::v1 as pb;
use dawgref::proto::v1::games_service_server::GamesService;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use prost::Message;
use std::sync::{Arc, OnceLock};

/// The shipped lexicons, compiled once per process.
pub fn lexicon(kind: RulesetKind) -> Arc<Lexicon> {
    static LEXICONS: OnceLock<Vec<Arc<Lexicon>>> = OnceLock::new();
    let all = LEXICONS.get_or_init(|| {
        ["en", "ru", "erudit"]
            .iter()
            .map(|name| {
                let shipped = catalog::shipped(name).expect("shipped lexicon");
                Arc::new(catalog::load_shipped_cached(shipped, None).expect("shipped lexicon compiles"))
            })
            .collect()
    });
    let i =
        RulesetKind::classic().iter().position(|&k| k == kind).expect("the fuzzers play the classic three");
    all[i].clone()
}

fn kind_of(byte: u8) -> RulesetKind {
    [RulesetKind::english(), RulesetKind::russian(), RulesetKind::erudit()][byte as usize % 3]
}

fn alphabet_of(byte: u8) -> Alphabet {
    kind_of(byte).alphabet()
}

/// Play, move, coordinate, tile and rack notation: the first byte picks the alphabet, the rest
/// is the text. Whatever parses must format back to text that parses to the same value.
pub fn notation(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let alphabet = alphabet_of(sel);
    let text = String::from_utf8_lossy(rest);
    if let Ok(play) = notation::parse_play(&text, alphabet) {
        let written = notation::format_play(&play, alphabet);
        let again = notation::parse_play(&written, alphabet)
            .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
        assert_eq!(again, play, "{text:?} → {written:?}");
    }
    if let Ok(m) = notation::parse_move(&text, alphabet) {
        let written = notation::format_move(&m, alphabet);
        let again = notation::parse_move(&written, alphabet)
            .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
        assert_eq!(notation::format_move(&again, alphabet), written);
    }
    if let Ok((dir, row, col)) = notation::parse_coordinate(&text) {
        let written = notation::format_coordinate(dir, row, col);
        assert_eq!(notation::parse_coordinate(&written), Ok((dir, row, col)), "{text:?} → {written:?}");
    }
    let _ = notation::parse_tiles(&text, alphabet, 0);
    if let Ok(rack) = Rack::parse(&text, alphabet) {
        let written = rack.to_string(alphabet);
        let again = Rack::parse(&written, alphabet)
            .unwrap_or_else(|e| panic!("rack {written:?} (from {text:?}) does not parse: {e}"));
        assert_eq!(again.to_string(alphabet), written);
    }
}

/// A CGP line: the first byte picks the default ruleset. What parses is written back and must
/// parse to the same position; its board is built (cross-sets and all) with the ruleset's
/// lexicon.
pub fn cgp(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let Ok(position) = cgp::parse(&text, Some(kind_of(sel))) else { return };
    let written = cgp::write(&position);
    let mut again = cgp::parse(&written, None)
        .unwrap_or_else(|e| panic!("{written:?} (written from {text:?}) does not parse: {e}"));
    // The writer names the letter distribution when the reader could not guess it.
    if position.ops.ld.is_none() {
        again.ops.ld = None;
    }
    assert_eq!(again, position, "{text:?} → {written:?}");
    let rules = Arc::new(position.rules());
    let lexicon = lexicon(position.ruleset);
    let board = position.board(rules, lexicon.dawg());
    let _ = board.words_on_board();
}

/// A GCG record: parsed, and when it parses, replayed move by move through the engine with every
/// score recomputed (as `gcg check` and ImportGcg do).
pub fn gcg(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let Ok(record) = gcg::parse(&text) else { return };
    let kind = kind_of(sel);
    let lexicon = lexicon(kind);
    let report = check_record_with(&record, Arc::new(Ruleset::new(kind)), &lexicon, sel & 0x80 != 0);
    assert!(report.finals.len() <= record.players.len());
    // Set up as every importer sets a record up, in the fuzzed ruleset with its lexicon.
    let ask = ImportAsk { ruleset: Some(kind), ..ImportAsk::default() };
    if let Ok(config) = import_setup(&record, &ask, |_| Some(lexicon.clone()))
        && let Ok(game) = dawgref::game::record::import_game(&record, config)
    {
        game.check_invariants().unwrap_or_else(|e| panic!("imported game breaks an invariant: {e}"));
    }
}

/// A compiled lexicon file. With the first byte odd the checksum is recomputed before loading,
/// so the structural checks behind it are reached too. A file that loads must write back to
/// bytes that load to the same words.
pub fn lexicon_file(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else { return };
    let mut bytes = rest.to_vec();
    if sel & 1 == 1 && bytes.len() >= 8 {
        let body = bytes.len() - 8;
        let sum = file::checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(lexicon) = Lexicon::load("fuzz", &bytes, None) else { return };
    let again = Lexicon::load("again", &lexicon.to_bytes(), Some(lexicon.alphabet()))
        .unwrap_or_else(|e| panic!("a loaded lexicon's own bytes do not load: {e}"));
    assert_eq!(again.word_count(), lexicon.word_count());
    assert_eq!(again.checksum(), lexicon.checksum());
    // Every word the graph spells is found again by lookup (a small graph can spell billions of
    // words, so only modest ones are listed).
    if lexicon.word_count() <= 100_000 {
        let words = lexicon.dawg().words();
        assert_eq!(words.len() as u64, lexicon.word_count());
        assert!(words.iter().all(|w| lexicon.contains(w)));
    }
}

/// The server's state for [`actions`]: every lexicon, games in a [`MemoryStore`] (kept here so
/// each run can take its game back out and replay it).
fn server() -> &'static (dawgref::server::Handle, Arc<dawgref::store::MemoryStore>, tokio::runtime::Runtime) {
    static SERVER: OnceLock<(
        dawgref::server::Handle,
        Arc<dawgref::store::MemoryStore>,
        tokio::runtime::Runtime,
    )> = OnceLock::new();
    SERVER.get_or_init(|| {
        let lexicons = [RulesetKind::english(), RulesetKind::russian(), RulesetKind::erudit()]
            .iter()
            .map(|&k| (*lexicon(k)).clone())
            .collect();
        let store = Arc::new(dawgref::store::MemoryStore::new());
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let (handle, _) = runtime
            .block_on(dawgref::server::Builder::new(lexicons).store(store.clone()).start())
            .expect("an empty store recovers");
        (handle, store, runtime)
    })
}

/// Input bytes, read one at a time (zero once they run out).
struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A game driven through the `Games` service by arbitrary requests: generated plays, arbitrary
/// tiles and notation, exchanges, passes, resignations, challenges, joins, repeated and stale
/// requests, from the right seat, another seat, no token or a wrong token. After every request
/// the game's invariants hold (tile conservation, scores equal the history); at the end the game
/// rebuilt from its log is the game that was played.
pub fn actions(data: &[u8]) {
    let (handle, store, runtime) = server();
    runtime.block_on(drive(handle, store, data));
}

async fn drive(handle: &dawgref::server::Handle, store: &dawgref::store::MemoryStore, data: &[u8]) {
    let mut input = Input(data);
    let service = handle.games_service();
    let (request, head) = create_request(&mut input);
    let seats = request.seats.len();
    let Ok(created) = service.create_game(tonic::Request::new(request)).await else { return };
    let created = created.into_inner();
    let id = created.game_id.clone();
    let mut tokens = created.seat_tokens.clone();
    let uuid = uuid::Uuid::parse_str(&id).expect("a game id");
    let session = handle.host().session(&id).await.expect("a created game is found");
    let mut remembered = Remembered::new();
    let cyrillic = head % 3 != 0;
    let mut last: Option<(pb::SubmitTurnRequest, usize, pb::SubmitTurnResponse)> = None;
    let mut ops = 0;
    while !input.is_empty() && ops < 64 {
        ops += 1;
        let op = input.byte();
        let (turn, to_move, board, rack, dawg, alphabet) = {
            let snapshot = session.snapshot();
            let game = snapshot.game();
            let to_move = game.to_move();
            (
                game.turn(),
                to_move,
                game.board().clone(),
                game.rack(to_move).cloned().unwrap_or_default(),
                game.config().lexicon.clone(),
                game.config().rules.alphabet,
            )
        };
        // Most requests come from the seat to move, so that games go somewhere.
        let who = if op & 0x80 == 0 { to_move } else { (op >> 4 & 0x07) as usize % (seats + 2) };
        let action = match op & 0x0f {
            kind @ 10..=14 => {
                let asked = Asked { service: &service, id: &id, who, last: &last };
                other_request(kind, &mut input, asked, &mut tokens, &mut remembered, cyrillic).await;
                check(&session).await;
                continue;
            }
            kind => turn_action(kind, &mut input, &board, &rack, &dawg, alphabet, cyrillic),
        };
        let stale = op & 0x0f == 15;
        let req = pb::SubmitTurnRequest {
            game_id: id.clone(),
            expected_turn: if stale { Some(turn.wrapping_sub(1)) } else { Some(turn) },
            request_id: format!("r{ops}"),
            action: Some(action),
        };
        if let Ok(response) = service.submit_turn(authed(req.clone(), who, &tokens)).await {
            assert!(!stale, "a stale expected_turn was accepted");
            let response = response.into_inner();
            remembered
                .entry((dawgref::host::Asker::Seat(who), req.request_id.clone()))
                .or_insert_with(|| response.encode_to_vec());
            last = Some((req, who, response));
        }
        check(&session).await;
    }

    check_replay(handle, store, &session, uuid, seats, &remembered).await;
}

/// The game [`drive`] plays, from the input's first bytes: its ruleset (`head`, returned too),
/// challenge rule, seats, seed and options.
fn create_request(input: &mut Input) -> (pb::CreateGameRequest, u8) {
    let head = input.byte();
    let shape = input.byte();
    let seats = 2 + (shape % 3) as usize;
    let mut specs = Vec::new();
    for i in 0..seats {
        let kind = if i == seats - 1 && shape & 0x80 != 0 {
            pb::seat_spec::Kind::Bot(pb::BotLevel::Greedy as i32)
        } else {
            pb::seat_spec::Kind::Human(pb::HumanSeat {
                name: String::new(),
                open: i == 1 && shape & 0x40 != 0,
            })
        };
        specs.push(pb::SeatSpec { kind: Some(kind), think_ms: None });
    }
    let request = pb::CreateGameRequest {
        ruleset: 1 + (head % 3) as i32,
        challenge_rule: ((head / 3) % 7) as i32,
        seats: specs,
        seed: Some(u64::from(input.byte()) << 8 | u64::from(input.byte())),
        // Bots move as soon as they decide; the driver waits for them after every request.
        bot_delay_ms: Some(0),
        options: Some(pb::GameOptions {
            no_repeated_words: Some(shape & 0x20 != 0),
            bonus_per_challenge: shape & 0x10 != 0,
            reveal_invalid_words: shape & 0x08 != 0,
            ..Default::default()
        }),
        ..Default::default()
    };
    (request, head)
}

/// A tile's letter from an input byte: one of the alphabet's (Cyrillic for the Russian rulesets),
/// Ё, a blank, a digit or nothing.
fn letter(cyrillic: bool, b: u8) -> String {
    match b % 40 {
        n @ 0..=31 if cyrillic => char::from_u32(0x410 + u32::from(n)).map(String::from).unwrap_or_default(),
        n @ 0..=25 => ((b'A' + n) as char).to_string(),
        36 => "Ё".into(),
        37 => "?".into(),
        38 => "1".into(),
        _ => String::new(),
    }
}

/// The turn a request of `kind` (0 to 9, or 15) submits: a generated play, arbitrary tiles or
/// notation, an exchange, a pass or a resignation.
fn turn_action(
    kind: u8,
    input: &mut Input,
    board: &dawgref::board::Board,
    rack: &Rack,
    dawg: &Lexicon,
    alphabet: Alphabet,
    cyrillic: bool,
) -> pb::submit_turn_request::Action {
    match kind {
        0..=4 => {
            let plays =
                dawgref::movegen::top_plays(board, rack, dawg.dawg(), dawgref::movegen::Mode::Both, 8);
            if plays.is_empty() {
                pb::submit_turn_request::Action::Pass(pb::Pass {})
            } else {
                let k = input.byte() as usize % plays.len();
                pb::submit_turn_request::Action::Play(dawgref::server::convert::play_to(
                    &plays[k].play,
                    alphabet,
                ))
            }
        }
        5 => {
            let tiles = (0..input.byte() % 8)
                .map(|_| pb::Tile {
                    row: u32::from(input.byte() % 16),
                    col: u32::from(input.byte() % 16),
                    letter: letter(cyrillic, input.byte()),
                    blank: input.byte() & 1 == 1,
                })
                .collect();
            pb::submit_turn_request::Action::Play(pb::Play { notation: String::new(), tiles })
        }
        6 => {
            let n = input.byte() % 24;
            let bytes: Vec<u8> = (0..n).map(|_| input.byte()).collect();
            let notation = String::from_utf8_lossy(&bytes).into_owned();
            pb::submit_turn_request::Action::Play(pb::Play { notation, tiles: vec![] })
        }
        7 => pb::submit_turn_request::Action::Exchange(
            (0..input.byte() % 9).map(|_| letter(cyrillic, input.byte())).collect(),
        ),
        8 => pb::submit_turn_request::Action::Pass(pb::Pass {}),
        9 if input.byte() == 0 => pb::submit_turn_request::Action::Resign(pb::Resign {}),
        9 => pb::submit_turn_request::Action::Pass(pb::Pass {}),
        _ => pb::submit_turn_request::Action::Pass(pb::Pass {}),
    }
}

/// Who asks, of which game, for a request other than a turn; and the last turn that succeeded.
struct Asked<'a> {
    service: &'a dawgref::server::games::GamesService,
    id: &'a str,
    who: usize,
    last: &'a Option<(pb::SubmitTurnRequest, usize, pb::SubmitTurnResponse)>,
}

/// A request of `kind` (10 to 14) other than a turn: a challenge, a view of the game, the last
/// turn again (its answer must not change) or a join.
async fn other_request(
    kind: u8,
    input: &mut Input<'_>,
    asked: Asked<'_>,
    tokens: &mut [String],
    remembered: &mut Remembered,
    cyrillic: bool,
) {
    match kind {
        10 | 11 => {
            let request_id = format!("c{}", input.byte() % 4);
            let request =
                pb::ChallengeRequest { game_id: asked.id.to_string(), request_id: request_id.clone() };
            if let Ok(r) = asked.service.challenge(authed(request, asked.who, tokens)).await {
                remembered
                    .entry((dawgref::host::Asker::Seat(asked.who), format!("challenge/{request_id}")))
                    .or_insert_with(|| r.into_inner().encode_to_vec());
            }
        }
        12 => {
            let _ = asked
                .service
                .get_game(authed(pb::GetGameRequest { game_id: asked.id.to_string() }, asked.who, tokens))
                .await;
        }
        13 => {
            // The last successful request again: the same answer, and nothing played twice.
            if let Some((req, seat, response)) = asked.last.clone() {
                let again = asked.service.submit_turn(authed(req, seat, tokens)).await;
                assert_eq!(
                    again.ok().map(|r| r.into_inner()),
                    Some(response),
                    "a repeated request_id changed"
                );
            }
        }
        14 => {
            let req =
                pb::JoinGameRequest { game_id: asked.id.to_string(), name: letter(cyrillic, input.byte()) };
            if let Ok(joined) = asked.service.join_game(tonic::Request::new(req)).await {
                let joined = joined.into_inner();
                tokens[joined.seat as usize] = joined.token;
            }
        }
        _ => unreachable!("requests 10 to 14 only"),
    }
}

/// Every first answer to a request id, as the game must remember it.
type Remembered = std::collections::HashMap<(dawgref::host::Asker, String), Vec<u8>>;

/// The game rebuilt from its log is the game that was played: history, scores, the seat to
/// move, the bag, every rack and the remembered answers.
async fn check_replay(
    handle: &dawgref::server::Handle,
    store: &dawgref::store::MemoryStore,
    session: &dawgref::host::Session,
    uuid: uuid::Uuid,
    seats: usize,
    remembered: &Remembered,
) {
    session.settled().await;
    let live = session.snapshot();
    let live = live.game();
    let stored = store.remove(uuid).expect("the game is stored");
    handle.host().let_go(uuid);
    let again = dawgref::host::replay(handle.host().lexicons(), &stored)
        .unwrap_or_else(|e| panic!("a game's own log does not replay: {e}"));
    let again_game = again.game();
    assert_eq!(again_game.history(), live.history(), "replayed history differs");
    assert_eq!(again_game.scores(), live.scores());
    assert_eq!(again_game.to_move(), live.to_move());
    assert_eq!(again_game.bag_len(), live.bag_len());
    for seat in 0..seats {
        assert_eq!(again_game.rack(seat), live.rack(seat), "seat {seat}'s rack differs after replay");
    }
    assert_eq!(again.remembered_responses(), remembered, "remembered responses differ after replay");
}

/// A request from `who`: a seat's token, no token (`who == seats`), or a token of no seat.
fn authed<T>(msg: T, who: usize, tokens: &[String]) -> tonic::Request<T> {
    let mut r = tonic::Request::new(msg);
    let token = match tokens.get(who) {
        Some(t) if !t.is_empty() => t.clone(),
        Some(_) => return r,
        None if who == tokens.len() => return r,
        None => "0123456789abcdef0123456789abcdef".to_string(),
    };
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

/// After every request: bots have answered, and the game's invariants hold.
async fn check(session: &dawgref::host::Session) {
    session.settled().await;
    let snapshot = session.snapshot();
    snapshot.game().check_invariants().unwrap_or_else(|e| panic!("invariant broken: {e}"));
}
