//! An in-process server on 127.0.0.1:0 for the behaviour tests, and client helpers.
#![allow(dead_code)]

use dawgref::proto::v1 as pb;
use dawgref::proto::v1::analysis_service_client::AnalysisServiceClient;
use dawgref::proto::v1::directors_service_client::DirectorsServiceClient;
use dawgref::proto::v1::games_service_client::GamesServiceClient;
use dawgref::proto::v1::lexicons_service_client::LexiconsServiceClient;
use dawgref::proto::v1::tournaments_service_client::TournamentsServiceClient;
use dawgref::rules::RulesetKind;
use dawgref::server::{self, Handle, state::Limits};
use tonic::transport::Channel;
use tonic::{Request, Status};

pub struct TestServer {
    pub url: String,
    pub handle: Handle,
}

pub async fn start() -> TestServer {
    start_with(Limits::default()).await
}

pub async fn start_with(limits: Limits) -> TestServer {
    start_hooked(limits, Default::default()).await
}

/// A server with test hooks (a bot that blocks until released, say).
pub async fn start_hooked(limits: Limits, callbacks: dawgref::server::state::Callbacks) -> TestServer {
    serve(lexicons_builder().limits(limits).callbacks(callbacks)).await.0
}

/// A server whose director (ListGames, the Directors service) holds `token`.
pub async fn start_directed(token: &str) -> TestServer {
    serve(lexicons_builder().director_token(token)).await.0
}

/// A server keeping games in an SQLite store in `dir`, after recovering what is there.
pub async fn start_stored(dir: &std::path::Path) -> (TestServer, dawgref::host::RecoveryReport) {
    start_stored_directed(dir, "").await
}

/// [`start_stored`] with a director token (empty: none).
pub async fn start_stored_directed(
    dir: &std::path::Path,
    token: &str,
) -> (TestServer, dawgref::host::RecoveryReport) {
    let store = std::sync::Arc::new(dawgref::store::SqliteStore::open(dir).unwrap());
    serve(lexicons_builder().store(store).director_token(token)).await
}

/// A builder with every ruleset's lexicon: the one way the tests configure a server.
pub fn lexicons_builder() -> server::Builder {
    server::Builder::new(RulesetKind::classic().iter().map(|&k| super::lexicon(k).clone()).collect())
}

/// A server with every ruleset's lexicon and a small Catalan one, `cat-test` (ALA, COL·LA, ANYS,
/// PLAÇA), for tiles of two letters.
pub async fn start_catalan() -> TestServer {
    let catalan = RulesetKind::by_name("catalan").unwrap();
    let cat =
        dawgref::lexicon::Lexicon::compile("cat-test", "ala\ncol·la\nanys\nplaça\n", catalan.alphabet())
            .unwrap()
            .0;
    let mut lexicons: Vec<_> = RulesetKind::classic().iter().map(|&k| super::lexicon(k).clone()).collect();
    lexicons.push(cat);
    serve(server::Builder::new(lexicons)).await.0
}

/// Start `builder` and serve it on a free port of the loopback.
pub async fn serve(builder: server::Builder) -> (TestServer, dawgref::host::RecoveryReport) {
    let (handle, report) = builder.start().await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    handle.spawn(listener);
    (TestServer { url: format!("http://{addr}"), handle }, report)
}

/// A fresh directory under the system's temporary directory, removed when dropped.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("dawgref-{tag}-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl TestServer {
    /// Wait until the bots of a game have nothing left to do (its bot-vs-bot games are over,
    /// a bot facing a person has answered).
    pub async fn settled(&self, game_id: &str) {
        let session = self.handle.host().session(game_id).await.unwrap();
        session.settled().await;
    }

    /// Stop serving (the state, and its store, go when the last handle does).
    pub async fn stop(self) {
        self.handle.shutdown();
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    pub async fn games(&self) -> GamesServiceClient<Channel> {
        GamesServiceClient::connect(self.url.clone()).await.unwrap()
    }
    pub async fn analysis(&self) -> AnalysisServiceClient<Channel> {
        AnalysisServiceClient::connect(self.url.clone()).await.unwrap()
    }

    pub async fn directors(&self) -> DirectorsServiceClient<Channel> {
        DirectorsServiceClient::connect(self.url.clone()).await.unwrap()
    }

    pub async fn broadcasts(
        &self,
    ) -> dawgref::proto::v1::broadcasts_service_client::BroadcastsServiceClient<Channel> {
        dawgref::proto::v1::broadcasts_service_client::BroadcastsServiceClient::connect(self.url.clone())
            .await
            .unwrap()
    }

    pub async fn lexicons(&self) -> LexiconsServiceClient<Channel> {
        LexiconsServiceClient::connect(self.url.clone()).await.unwrap()
    }

    pub async fn tournaments(&self) -> TournamentsServiceClient<Channel> {
        TournamentsServiceClient::connect(self.url.clone()).await.unwrap()
    }

    pub async fn bots(&self) -> dawgref::proto::v1::bots_service_client::BotsServiceClient<Channel> {
        dawgref::proto::v1::bots_service_client::BotsServiceClient::connect(self.url.clone()).await.unwrap()
    }
}

/// A director's PauseGame, ResumeGame or UndoTurn request: the game, and a request id (empty:
/// none).
pub fn pause(game_id: &str, request_id: &str) -> pb::PauseGameRequest {
    pb::PauseGameRequest { game_id: game_id.into(), request_id: request_id.into() }
}

pub fn resume(game_id: &str, request_id: &str) -> pb::ResumeGameRequest {
    pb::ResumeGameRequest { game_id: game_id.into(), request_id: request_id.into() }
}

pub fn undo(game_id: &str, request_id: &str) -> pb::UndoTurnRequest {
    pb::UndoTurnRequest { game_id: game_id.into(), request_id: request_id.into() }
}

/// A request carrying a seat's token.
pub fn authed<T>(msg: T, token: &str) -> Request<T> {
    let mut r = Request::new(msg);
    r.metadata_mut().insert("authorization", format!("Bearer {token}").parse().unwrap());
    r
}

pub fn human(name: &str) -> pb::SeatSpec {
    pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: name.into(), open: false })),
        think_ms: None,
    }
}

pub fn bot(level: pb::BotLevel) -> pb::SeatSpec {
    pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(level as i32)), think_ms: None }
}

pub fn create(
    ruleset: pb::Ruleset,
    rule: pb::ChallengeRule,
    seats: Vec<pb::SeatSpec>,
    seed: u64,
) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        ruleset: ruleset as i32,
        challenge_rule: rule as i32,
        seats,
        seed: Some(seed),
        // Bots move as soon as they have decided; tests wait for them with `settled`.
        bot_delay_ms: Some(0),
        ..Default::default()
    }
}

/// An analysis position given as a CGP line (the lexicon its `lex` op names).
pub fn cgp(text: &str) -> Option<pb::Position> {
    Some(pb::Position { source: Some(pb::position::Source::Cgp(text.into())), lexicon: String::new() })
}

/// A play given by its notation (`8D WINDY`).
pub fn notation_play(notation: &str) -> Option<pb::Play> {
    Some(pb::Play { notation: notation.into(), tiles: vec![] })
}

pub fn play_action(notation: &str) -> Option<pb::submit_turn_request::Action> {
    Some(pb::submit_turn_request::Action::Play(pb::Play { notation: notation.into(), tiles: vec![] }))
}

pub fn turn(
    game_id: &str,
    expected: u32,
    action: Option<pb::submit_turn_request::Action>,
) -> pb::SubmitTurnRequest {
    pb::SubmitTurnRequest {
        game_id: game_id.into(),
        expected_turn: Some(expected),
        request_id: String::new(),
        action,
    }
}

/// The best play for the caller's own rack in a live game (None: no play).
pub async fn best_move(
    a: &mut AnalysisServiceClient<Channel>,
    game_id: &str,
    token: &str,
) -> Option<pb::GenerateMovesResponse> {
    let req = pb::GenerateMovesRequest {
        position: Some(pb::Position {
            source: Some(pb::position::Source::GameId(game_id.into())),
            lexicon: String::new(),
        }),
        limit: 1,
        ..Default::default()
    };
    let mut stream = a.generate_moves(authed(req, token)).await.unwrap().into_inner();
    stream.message().await.unwrap()
}

/// Every event of a game from `from_event` until its stream closes (a finished game's end).
pub async fn watch_to_end(
    g: &mut GamesServiceClient<Channel>,
    game_id: &str,
    from_event: u64,
) -> Vec<pb::WatchGameResponse> {
    let req = pb::WatchGameRequest { game_id: game_id.into(), from_event };
    let mut stream = g.watch_game(req).await.unwrap().into_inner();
    let mut events = Vec::new();
    while let Some(e) = stream.message().await.unwrap() {
        events.push(e);
    }
    events
}

/// GetGame, answered: the game as `request` (a `GetGameRequest`, or one with a token) sees it.
pub async fn view_of(
    g: &mut GamesServiceClient<Channel>,
    request: impl tonic::IntoRequest<pb::GetGameRequest>,
) -> pb::GameView {
    g.get_game(request).await.unwrap().into_inner().view.expect("GetGame answers a view")
}

pub fn code<T: std::fmt::Debug>(r: Result<T, Status>) -> tonic::Code {
    r.expect_err("expected an error").code()
}

/// A two-seat English game between two people (single challenge).
/// Round `round` of division "a" of tournament `slug` paired by hand by the director `token`
/// (`pairs`: first and second by number, 0 a bye), then the scores of its first pairings entered
/// in order (first's, second's); the division as the last answer gave it.
pub async fn round_by_hand(
    t: &mut dawgref::proto::v1::tournaments_service_client::TournamentsServiceClient<Channel>,
    token: &str,
    (slug, round): (&str, u32),
    pairs: &[(u32, u32)],
    scores: &[(i32, i32)],
) -> Option<pb::TournamentDivision> {
    let pairings = pairs.iter().map(|&(first, second)| pb::PairingSpec { first, second }).collect();
    let set = pb::SetPairingsRequest {
        slug: slug.into(),
        division: "a".into(),
        round,
        pairings,
        ..Default::default()
    };
    t.set_pairings(authed(set, token)).await.unwrap();
    let mut division = None;
    for (i, &(first, second)) in scores.iter().enumerate() {
        let r = pb::RecordResultRequest {
            slug: slug.into(),
            division: "a".into(),
            round,
            pairing: i as u32 + 1,
            result: Some(pb::record_result_request::Result::Scores(pb::FinalScores { first, second })),
            ..Default::default()
        };
        division = t.record_result(authed(r, token)).await.unwrap().into_inner().division;
    }
    division
}

/// A call's refusal: its code and message (panics if the call was answered).
pub fn refused<T: std::fmt::Debug>(r: Result<tonic::Response<T>, Status>) -> (tonic::Code, String) {
    let e = r.expect_err("refused");
    (e.code(), e.message().to_string())
}

pub async fn two_humans(
    g: &mut dawgref::proto::v1::games_service_client::GamesServiceClient<Channel>,
    seed: u64,
) -> pb::CreateGameResponse {
    g.create_game(create(pb::Ruleset::English, pb::ChallengeRule::Single, vec![human("a"), human("b")], seed))
        .await
        .unwrap()
        .into_inner()
}

/// How many games, live or finished, tournament `slug` has on the server (ListGames by its
/// label, with a director's token).
pub async fn tournament_games(g: &mut GamesServiceClient<Channel>, slug: &str, director: &str) -> u32 {
    let request = pb::ListGamesRequest {
        labels: [("tournament".into(), slug.into())].into(),
        state: pb::GameState::All as i32,
        ..Default::default()
    };
    g.list_games(authed(request, director)).await.unwrap().into_inner().total
}

/// A tournament made by the root director `root`: one division "a" of `names` (each rated
/// 1500) and its rounds by `methods`, drawn from `seed`; its client and the players' tokens.
pub async fn tournament(
    srv: &TestServer,
    root: &str,
    (slug, name): (&str, &str),
    names: &[&str],
    methods: &[pb::PairingMethod],
    seed: u64,
) -> (pb::tournaments_service_client::TournamentsServiceClient<tonic::transport::Channel>, Vec<pb::PlayerToken>)
{
    let mut t =
        pb::tournaments_service_client::TournamentsServiceClient::connect(srv.url.clone()).await.unwrap();
    let players = names
        .iter()
        .map(|n| pb::TournamentPlayerSpec {
            bot_account: String::new(),
            name: n.to_string(),
            rating: 1500,
            bot: None,
            lifetime_games: None,
        })
        .collect();
    let rounds = methods.iter().map(|&m| pb::RoundSpec { method: m as i32, ..Default::default() }).collect();
    let request = pb::CreateTournamentRequest {
        allow_same_names: false,
        name: name.into(),
        slug: slug.into(),
        game: Some(pb::TournamentGameSettings::default()),
        divisions: vec![pb::DivisionSpec {
            bots_only: false,
            name: "a".into(),
            players,
            rounds,
            controls: None,
            result_reports: 0,
        }],
        seed: Some(seed),
    };
    let made = t.create_tournament(authed(request, root)).await.unwrap().into_inner();
    (t, made.player_tokens)
}
