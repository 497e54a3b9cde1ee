//! The layer's seams, faked: a host over the in-memory store (on one server, or as a replica whose
//! games another replica holds), a game owner on another replica ([`FakeOwners`]), the services'
//! half of StartRound ([`FakeGames`]), a command's answer as a caller keeps it ([`Said`]), and
//! the tournaments, refusals and events the tests are written in.

use dawgref_engine::game::{DirectorAction, Game, GameConfig, ResultKind};
use dawgref_engine::lexicon::Lexicon;
use dawgref_engine::rules::Ruleset;
use dawgref_events::{
    Actor, Answer, Command, DivisionId, Events, EventsError, GameSettings, Hand, HandResult, Invalid,
    NewDivision, NewTournament, Outcome, Owners, Record, RoundGames, TournamentEvent, game_labels,
};
use dawgref_host::{
    Answers, Callbacks, ChallengeDone, DirectorDone, DirectorOp, Host, HostError, Limits, Residence, Route,
    Seat, SeatKind, TournamentLink, TurnDone,
};
use dawgref_store::{Claim, LeaseFuture, Leases, MemoryStore};
use dawgref_tournament::{Controls, Method, Player, PlayerId, Standings};
pub use dawgref_tournament::{PairingId, RoundId};
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use uuid::Uuid;

/// The lexicon every test game is made with: a few words, compiled once per test binary.
pub const LEXICON: &str = "tiny";

pub fn lexicon() -> &'static Lexicon {
    static TINY: OnceLock<Lexicon> = OnceLock::new();
    TINY.get_or_init(|| {
        let words = "AA\nAB\nAD\nAE\nAT\nCAT\nDOG\nRATE\nTEAR\n";
        Lexicon::compile(LEXICON, words, Ruleset::english().alphabet).expect("a tiny lexicon").0
    })
}

/// The services' answers to a game's turns, which no test here reads: nothing kept.
pub struct NoAnswers;

impl Answers for NoAnswers {
    fn turn(&self, _: &TurnDone) -> Vec<u8> {
        Vec::new()
    }
    fn challenge(&self, _: &ChallengeDone) -> Vec<u8> {
        Vec::new()
    }
    fn director(&self, _: &DirectorDone) -> Vec<u8> {
        Vec::new()
    }
}

/// Where the games another replica holds answer.
pub const OTHER_REPLICA: &str = "replica-b:50051";

/// The leases of a replica that holds no game: every game is another replica's
/// ([`OTHER_REPLICA`]), so the host routes every call for one there ([`Route::Remote`]).
struct ElsewhereLeases;

impl Leases for ElsewhereLeases {
    fn id(&self) -> Uuid {
        Uuid::from_u128(0xa)
    }
    fn addr(&self) -> &str {
        "replica-a:50051"
    }
    fn secret(&self) -> &str {
        "shared"
    }
    fn lease(&self) -> Duration {
        Duration::from_secs(3600)
    }
    fn heartbeat(&self) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    fn claim(&self, _game: Uuid) -> LeaseFuture<'_, Claim> {
        Box::pin(async { Ok(Claim::Other(OTHER_REPLICA.to_string())) })
    }
    fn holds(&self, _game: &Uuid) -> bool {
        false
    }
    fn leases_held(&self) -> usize {
        0
    }
    fn forget(&self, _game: &Uuid) {}
    fn release(&self, _game: Uuid, _game_ms: u64, _wake_in: Option<Duration>) -> LeaseFuture<'_, bool> {
        Box::pin(async { Ok(false) })
    }
    fn hand_over<'a>(&'a self, _game: Uuid, _addr: &'a str) -> LeaseFuture<'a, bool> {
        Box::pin(async { Ok(false) })
    }
    fn take_slept(&self, _game: &Uuid) -> Option<u64> {
        None
    }
    fn orphans(&self, _grace: Duration, _limit: i64) -> LeaseFuture<'_, Vec<Uuid>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    fn live_peers(&self) -> LeaseFuture<'_, Vec<String>> {
        Box::pin(async { Ok(vec![OTHER_REPLICA.to_string()]) })
    }
    fn release_all(&self) -> LeaseFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// The layer over a real host and the in-memory store, built per test.
pub struct Layer {
    pub events: Events,
    pub host: Host,
    pub store: Arc<MemoryStore>,
    /// Kept: dropped, the host would hear shutdown.
    _shutdown: tokio::sync::watch::Sender<bool>,
}

impl Layer {
    /// A single server: every game held here.
    pub fn new() -> Layer {
        Layer::over(Arc::new(MemoryStore::new()))
    }

    /// A replica whose every game another replica holds ([`OTHER_REPLICA`]): the layer reaches
    /// them through its [`Owners`] only.
    pub fn replica() -> Layer {
        let layer = Layer::new();
        assert!(layer.host.set_replica(Arc::new(ElsewhereLeases)));
        layer
    }

    /// Another server over this one's store: another replica's layer, with holds and caches of
    /// its own.
    pub fn beside(&self) -> Layer {
        Layer::over(self.store.clone())
    }

    fn over(store: Arc<MemoryStore>) -> Layer {
        let (tx, rx) = tokio::sync::watch::channel(false);
        let host = Host::new(
            vec![lexicon().clone()],
            Limits::default(),
            store.clone(),
            Callbacks::default(),
            Arc::new(NoAnswers),
            rx,
        );
        let events = Events::new(
            host.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            store.clone(),
            Default::default(),
        );
        Layer { events, host, store, _shutdown: tx }
    }

    /// Make tournament `slug` (by the root director) of `divisions`: each a name, its players'
    /// names (each rated 1500 down by 100, with a token hash of its number) and its rounds'
    /// methods.
    pub async fn create(&self, slug: &str, divisions: &[(&str, &[&str], &[Method])]) -> Record {
        self.events.create_tournament(&Actor::Root, tournament(slug, divisions)).await.expect("created")
    }

    /// `command` as the root director, answered [`Said`] with tag "".
    pub async fn command(&self, slug: &str, request_id: &str, command: Command) -> Result<Said, EventsError> {
        self.events.command(slug, &Actor::Root, request_id, command, said("")).await
    }

    /// PairRound of round `round` of `division`, which must pair.
    pub async fn pair(&self, slug: &str, division: &str, round: u32) {
        let command = Command::PairRound { division: division.into(), round };
        self.command(slug, "", command).await.expect("paired");
    }

    /// SetPairings of round `round` of `division` to `lines` (first, second; 0 for a bye).
    pub async fn set_pairings(&self, slug: &str, division: &str, round: u32, lines: &[(u32, u32)]) {
        let command = Command::SetPairings { division: division.into(), round, lines: lines_of(lines) };
        self.command(slug, "", command).await.expect("paired by hand");
    }

    /// RecordResult by the root director, answered [`Said`] with tag "".
    #[allow(clippy::too_many_arguments)]
    pub async fn record(
        &self,
        slug: &str,
        request_id: &str,
        (division, round, pairing): (&str, u32, u32),
        result: Hand,
        correct: bool,
        owners: &FakeOwners,
    ) -> Result<Said, EventsError> {
        let hand = HandResult { division: division.into(), round, pairing, result, correct };
        self.events.record_result(slug, &Actor::Root, request_id, hand, owners, said("")).await
    }

    /// StartRound by the root director, answered [`Said`] with tag "".
    pub async fn start(
        &self,
        slug: &str,
        request_id: &str,
        (division, round): (&str, u32),
        games: &FakeGames,
    ) -> Result<Said, EventsError> {
        let owners = FakeOwners::default();
        self.events
            .start_round(slug, &Actor::Root, request_id, division, round, &owners, games, said(""))
            .await
    }

    /// The tournament as last written.
    pub async fn record_of(&self, slug: &str) -> Record {
        self.events.load(slug).await.expect("the tournament").0
    }

    /// The tournament's version as last written.
    pub async fn version(&self, slug: &str) -> u64 {
        self.events.load(slug).await.expect("the tournament").1
    }

    /// Every event of the tournament.
    pub async fn events_of(&self, slug: &str) -> Vec<TournamentEvent> {
        self.events.tournament_events(slug, 0).await.expect("its events")
    }

    /// The tournament's events from number `from`, as (kind, division, round, pairing, detail,
    /// by, players): what the tests pin of each.
    pub async fn events_from(&self, slug: &str, from: u64) -> Vec<Ev> {
        let all = self.events.tournament_events(slug, from).await.expect("its events");
        all.iter().map(Ev::of).collect()
    }
}

/// An event as the tests pin it: all but its time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ev {
    pub number: u64,
    pub kind: String,
    pub division: String,
    pub round: u32,
    pub pairing: u32,
    pub detail: String,
    pub by: String,
    pub players: Vec<u32>,
}

impl Ev {
    pub fn of(e: &TournamentEvent) -> Ev {
        Ev {
            number: e.number,
            kind: e.kind.clone(),
            division: e.division.clone(),
            round: e.round,
            pairing: e.pairing,
            detail: e.detail.clone(),
            by: e.by.clone(),
            players: e.players.clone(),
        }
    }
}

/// An event to expect: number, kind, division, round, pairing, detail, by, players.
#[allow(clippy::too_many_arguments)]
pub fn ev(
    number: u64,
    kind: &str,
    division: &str,
    round: u32,
    pairing: u32,
    detail: &str,
    by: &str,
    players: &[u32],
) -> Ev {
    Ev {
        number,
        kind: kind.into(),
        division: division.into(),
        round,
        pairing,
        detail: detail.into(),
        by: by.into(),
        players: players.to_vec(),
    }
}

/// The token hash of division player `number` (from 1) as [`tournament`] gives it.
pub fn token(number: u32) -> [u8; 32] {
    [number as u8; 32]
}

/// A tournament to make: see [`Layer::create`].
pub fn tournament(slug: &str, divisions: &[(&str, &[&str], &[Method])]) -> NewTournament {
    NewTournament {
        same_names: false,
        slug: slug.into(),
        name: format!("The {slug} open"),
        game: GameSettings { lexicon: LEXICON.into(), ..GameSettings::default() },
        seed: 7,
        divisions: divisions
            .iter()
            .map(|(name, players, methods)| NewDivision {
                bots_only: false,
                name: name.to_string(),
                players: players
                    .iter()
                    .enumerate()
                    .map(|(i, n)| Player::new(*n, Some(1500 - 100 * i as u32)))
                    .collect(),
                tokens: (1..=players.len() as u32).map(|n| Some(token(n))).collect(),
                methods: methods.to_vec(),
                controls: Controls::default(),
                reports: dawgref_events::ReportsMode::Off,
            })
            .collect(),
    }
}

/// Lines by number (first, second; second 0 for a bye).
pub fn lines_of(lines: &[(u32, u32)]) -> Vec<dawgref_events::Line> {
    lines
        .iter()
        .map(|&(first, second)| dawgref_events::Line { first, second: (second != 0).then_some(second) })
        .collect()
}

/// What a command did, as an answer keeps it ([`Outcome`], which is not kept as is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Did {
    Player { division: usize, player: u32 },
    Round { division: usize, round: usize },
    Division { division: usize },
}

impl From<Outcome> for Did {
    fn from(o: Outcome) -> Did {
        match o {
            Outcome::Player { division, player } => {
                Did::Player { division: division.index(), player: player.0 }
            }
            Outcome::Round { division, round } => {
                Did::Round { division: division.index(), round: round.index() }
            }
            Outcome::Division { division } => Did::Division { division: division.index() },
        }
    }
}

/// A command's answer as a test's caller gives it: which call made it (`tag`), what the command
/// did, the tournament's event count, the division's rounds' line counts (None: not paired),
/// the changed round's game ids, and the division's standings (player number, win points,
/// spread, best first). Kept as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Said {
    pub tag: String,
    pub did: Did,
    pub events: u64,
    pub lines: Vec<Option<usize>>,
    pub games: Vec<Option<String>>,
    pub standings: Vec<(u32, u32, i64)>,
}

impl Answer for Said {
    fn write(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("JSON")
    }

    fn read(bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// The answer a call tagged `tag` gives.
pub fn said(tag: &str) -> impl Fn(&Record, Outcome) -> Said + Sync + '_ {
    move |rec, outcome| {
        let entry = rec.entry(outcome.division());
        let division = entry.division();
        let games = match outcome {
            Outcome::Round { round, .. } => {
                entry.pairings(round).map(|(i, _)| entry.game_id(round, i).map(str::to_string)).collect()
            }
            _ => Vec::new(),
        };
        let standings = Standings::of(division);
        Said {
            tag: tag.to_string(),
            did: outcome.into(),
            events: rec.event_count(),
            lines: division.rounds().iter().map(|r| r.pairings.as_ref().map(Vec::len)).collect(),
            games,
            standings: standings
                .ranked
                .iter()
                .map(|&p| (p.0 + 1, standings.record(p).win_points, standings.record(p).spread))
                .collect(),
        }
    }
}

/// A refusal as the tests pin it: its kind and its words (what a command named that is not
/// there, or what the division's rules refuse, with the kind's own fields).
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    Invalid(Invalid, String),
    Rules(dawgref_tournament::Error, String),
    /// The layer's own kinds of a state that stands in the way, by their words.
    Precondition(String),
    NotFound(String),
    AlreadyExists(String),
    Aborted(String),
    Owner(String),
    Internal(String),
    /// The host's refusal, by its words.
    Host(String),
    /// A director's command by one who does not direct, by its words.
    NotDirector(String),
    Other(String),
}

/// The refusal `result` is (a panic if it is none).
pub fn refused<T: std::fmt::Debug>(result: Result<T, EventsError>) -> Refused {
    match result.expect_err("refused") {
        EventsError::Invalid(e) => Refused::Invalid(e.clone(), e.to_string()),
        EventsError::Rules(e) => Refused::Rules(e.clone(), e.to_string()),
        e @ (EventsError::RoundStarted { .. }
        | EventsError::GamesMade { .. }
        | EventsError::GameOver { .. }
        | EventsError::BotHasNoToken { .. }
        | EventsError::BroadcastEnded { .. }) => Refused::Precondition(e.to_string()),
        EventsError::NotFound(m) => Refused::NotFound(m),
        EventsError::AlreadyExists(m) => Refused::AlreadyExists(m),
        EventsError::Aborted(m) => Refused::Aborted(m),
        EventsError::Owner(e) => Refused::Owner(e.to_string()),
        EventsError::Internal(m) => Refused::Internal(m),
        EventsError::Host(e) => Refused::Host(e.to_string()),
        e @ EventsError::NotDirector { .. } => Refused::NotDirector(e.to_string()),
        other => Refused::Other(format!("{other:?}")),
    }
}

/// `kind`, refused in `words`.
pub fn invalid(kind: Invalid, words: &str) -> Refused {
    Refused::Invalid(kind, words.into())
}

/// The division's rules refusing with `kind`, in `words`.
pub fn rules(kind: dawgref_tournament::Error, words: &str) -> Refused {
    Refused::Rules(kind, words.into())
}

pub fn precondition(why: &str) -> Refused {
    Refused::Precondition(why.into())
}

/// A call [`FakeOwners`] was asked: end game `game_id` at `owner` with `result`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EndCall {
    pub owner: String,
    pub game_id: String,
    pub result: ResultKind,
    pub request_id: Option<String>,
}

/// A call [`FakeOwners`] was asked: give seat `seat` of game `game_id` at `owner` `token`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenCall {
    pub owner: String,
    pub game_id: String,
    pub seat: usize,
    pub token: String,
}

/// A game's owner on another replica: notes each game it is asked to end and each seat it is
/// asked to give a token, and answers Ok, or the refusal it was given.
#[derive(Default)]
pub struct FakeOwners {
    calls: Mutex<Vec<EndCall>>,
    tokens: Mutex<Vec<TokenCall>>,
    refusal: Option<String>,
}

impl FakeOwners {
    /// An owner that refuses every call with `why` (as the services pass an owner's error).
    pub fn refusing(why: &str) -> FakeOwners {
        FakeOwners { refusal: Some(why.into()), ..FakeOwners::default() }
    }

    pub fn calls(&self) -> Vec<EndCall> {
        self.calls.lock().unwrap().clone()
    }

    pub fn token_calls(&self) -> Vec<TokenCall> {
        self.tokens.lock().unwrap().clone()
    }

    fn answer(&self) -> Result<(), EventsError> {
        match &self.refusal {
            None => Ok(()),
            Some(why) => Err(EventsError::Owner(why.clone().into())),
        }
    }
}

impl Owners for FakeOwners {
    async fn end_game(
        &self,
        owner: &str,
        game_id: &str,
        result: &ResultKind,
        request_id: Option<&str>,
    ) -> Result<(), EventsError> {
        self.calls.lock().unwrap().push(EndCall {
            owner: owner.into(),
            game_id: game_id.into(),
            result: result.clone(),
            request_id: request_id.map(str::to_string),
        });
        self.answer()
    }

    async fn new_token(
        &self,
        owner: &str,
        game_id: &str,
        seat: usize,
        token: &str,
    ) -> Result<(), EventsError> {
        let call = TokenCall { owner: owner.into(), game_id: game_id.into(), seat, token: token.into() };
        self.tokens.lock().unwrap().push(call);
        self.answer()
    }
}

/// A `make` call [`FakeGames`] was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Made {
    pub division: usize,
    pub round: u32,
    pub players: [u32; 2],
    pub id: Uuid,
}

/// Something another replica does while this one makes a round's games.
type Meanwhile = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The services' half of StartRound: notes each game it is asked to make (its players by number,
/// from 1) and makes it on `host` (two open human seats named for the players), or on no host
/// (another replica's games).
///
/// `fail_at`: the call (from 0) that fails, as a server falling over midway; `meanwhile`: run
/// once, at the first call, before it.
#[derive(Default)]
pub struct FakeGames {
    made: Mutex<Vec<Made>>,
    host: Option<Host>,
    fail_at: Option<usize>,
    meanwhile: Mutex<Option<Meanwhile>>,
    /// Made as an earlier build made them: linked to their tournament by their labels only.
    labelled_only: bool,
}

impl FakeGames {
    /// Games noted and made on no host.
    pub fn noted() -> FakeGames {
        FakeGames::default()
    }

    /// Games noted and made on `host`.
    pub fn on(host: &Host) -> FakeGames {
        FakeGames { host: Some(host.clone()), ..FakeGames::default() }
    }

    /// Games made on `host` as an earlier build made them: their record keeps no link to their
    /// tournament, their labels name it.
    pub fn labelled_only(host: &Host) -> FakeGames {
        FakeGames { labelled_only: true, ..FakeGames::on(host) }
    }

    /// Games noted, call `n` (from 0) failing.
    pub fn failing_at(n: usize) -> FakeGames {
        FakeGames { fail_at: Some(n), ..FakeGames::default() }
    }

    /// Games noted, `meanwhile` done before the first.
    pub fn meanwhile(meanwhile: impl Future<Output = ()> + Send + 'static) -> FakeGames {
        FakeGames { meanwhile: Mutex::new(Some(Box::pin(meanwhile))), ..FakeGames::default() }
    }

    pub fn made(&self) -> Vec<Made> {
        self.made.lock().unwrap().clone()
    }
}

impl RoundGames for FakeGames {
    async fn make(
        &self,
        record: &Record,
        d: DivisionId,
        round: RoundId,
        players: [PlayerId; 2],
        id: Uuid,
    ) -> Result<(), EventsError> {
        let meanwhile = self.meanwhile.lock().unwrap().take();
        if let Some(meanwhile) = meanwhile {
            meanwhile.await;
        }
        let n = {
            let mut made = self.made.lock().unwrap();
            made.push(Made {
                division: d.index(),
                round: round.number(),
                players: players.map(|p| p.0 + 1),
                id,
            });
            made.len() - 1
        };
        if self.fail_at == Some(n) {
            return Err(EventsError::Internal("the games' server fell over".into()));
        }
        let Some(host) = &self.host else { return Ok(()) };
        let entry = record.entry(d);
        let names = players.map(|p| entry.division().players()[p.index()].name.clone());
        let tokens = players.map(|p| entry.tokens()[p.index()]);
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().expect("8 bytes"));
        let config = GameConfig::new(Arc::new(Ruleset::english()), Arc::new(lexicon().clone()), seed);
        let game = Game::new(config).map_err(|e| EventsError::Internal(e.to_string()))?;
        // Each seat bound to its player's token, as StartRound's are.
        let seats = (names.into_iter().zip(tokens))
            .map(|(name, token)| Seat::new(name, SeatKind::Human { token }))
            .collect();
        let labels = game_labels(record.slug(), entry.division().name(), round.number()).to_vec();
        let link = TournamentLink {
            slug: record.slug().to_string(),
            division: entry.division().name().to_string(),
            round: round.number(),
        };
        let link = (!self.labelled_only).then_some(link);
        match host.create(Some(id), game, seats, None, None, labels, link).await {
            Ok(_) | Err(HostError::GameExists(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// End game `id`, held here, as a director's `result` (no key, no request id).
pub async fn end_on_host(host: &Host, id: &str, result: ResultKind) {
    let Ok(Route::Local(session)) = host.route(id, false).await else { panic!("game {id} is not here") };
    let op = DirectorOp::Act(DirectorAction::SetResult(result));
    session.direct(op, None, None).await.map(|_| ()).expect("the game ended");
}

/// Wait (a few seconds at most) until game `id` is out of this host's memory, as a game that
/// ended is once its task has let it go.
pub async fn let_go(host: &Host, id: &str) {
    let uuid = Uuid::parse_str(id).expect("a game id");
    for _ in 0..500 {
        if host.residence(&uuid) != Residence::Live {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("game {id} is still held");
}

/// Scores, as an adjudicated game's end.
pub fn adjudicated(a: i32, b: i32) -> ResultKind {
    ResultKind::Adjudicated { scores: vec![a, b], reason: "the game was played on paper".into() }
}
