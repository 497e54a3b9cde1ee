//! `AnalysisService.AnalyzeGame`: a whole game reviewed as a job. The request is checked and its game
//! found (a finished game by id, never one in play: `host::reviewable`; or a record replayed
//! as ImportGcg would); a review kept from the same request answers at once (a game's from the
//! store, a record's from memory); else the review is admitted as its caller's search
//! (`host::SearchTicket`), waits for a place in the [`Lineup`], then
//! its turns are judged on the pool's background queue (after the live games' bots), a worker's
//! worth at a time, each streamed as soon as it is known. A client that goes away stops its
//! review: the turns in flight see the stop flag, the others are never started.

use super::import::{player_name, replay};
use super::lineup::{Place, Reviews};
use super::positions::AnalysisService;
use super::state::AppState;
use super::{convert, errors};
use crate::alphabet::Alphabet;
use crate::game::{Action, Game};
use crate::notation::gcg;
use crate::proto::v1 as pb;
use crate::review::{self, Class, Grade, Method, Options, Plan, SeatSummary, TurnReview};
use prost::Message;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};
use uuid::Uuid;

const DEFAULT_MS: u32 = 1000;
const MIN_MS: u32 = 50;
const MAX_MS: u32 = 60_000;
/// Names the kept reviews' format in their key: a review kept by another format is not read (v2:
/// with mistakes graded; a v1 review is made again).
const FORMAT: &str = "v2";

pub type ReviewStream = Pin<Box<dyn Stream<Item = Result<pb::AnalyzeGameResponse, Status>> + Send>>;

/// The game a review judges.
pub(crate) struct Source {
    game: Arc<Game>,
    names: Vec<String>,
    /// Which turns a record showed the rack of (None: every rack known).
    shown: Option<Vec<bool>>,
    /// The stored game, whose review is kept with it (None: a record's, kept in memory by its
    /// request).
    stored: Option<Uuid>,
}

pub async fn analyze(
    service: &AnalysisService,
    request: Request<pb::AnalyzeGameRequest>,
) -> Result<Response<ReviewStream>, Status> {
    let state = &service.state;
    let caller = super::caller::Caller::of(&request);
    let metadata = request.metadata().clone();
    let req = request.into_inner();
    let ms = errors::bounded("ms_per_turn", req.ms_per_turn, DEFAULT_MS, MAX_MS)?;
    if ms < MIN_MS {
        return Err(errors::bad_field("ms_per_turn", format!("{ms}: at least {MIN_MS}")));
    }
    let source = match (req.game_id.is_empty(), req.gcg.is_empty()) {
        (false, false) => return Err(errors::bad_field("gcg", "give a game_id or a gcg record, not both")),
        (true, true) => return Err(errors::bad_field("game_id", "a game_id or a gcg record is required")),
        (false, true) => by_id(state, &req.game_id, &metadata).await?,
        (true, false) => by_record(state, &req).await?,
    };
    let players = source.game.config().seats;
    let mut seats: Vec<usize> = Vec::new();
    for &s in &req.seats {
        if s as usize >= players {
            return Err(errors::bad_field(
                "seats",
                format!("seat {s}: the game has seats 0 to {}", players - 1),
            ));
        }
        seats.push(s as usize);
    }
    seats.sort_unstable();
    seats.dedup();
    if seats.is_empty() {
        seats = (0..players).collect();
    }
    let key = kept_key(&seats, ms, req.seed);
    // A review kept from the same request.
    let memory_key = || {
        format!("{key} ruleset={} {} lexicon={} gcg={}", req.ruleset, req.ruleset_name, req.lexicon, req.gcg)
    };
    let keep = match source.stored {
        Some(id) => Kept::Store(id, key),
        None => Kept::Memory(memory_key()),
    };
    match &keep {
        Kept::Store(id, key) => match state.host.kept_review(*id, key.clone()).await {
            Ok(Some(body)) => match decode(&body) {
                Some(updates) => return Ok(kept(updates)),
                None => tracing::warn!(game = %id, "a kept review does not decode: reviewing again"),
            },
            Ok(None) => {}
            // The review can still be made: only keeping it may fail too.
            Err(e) => tracing::warn!(game = %id, error = %e, "reading a kept review failed"),
        },
        Kept::Memory(key) => {
            if let Some(updates) = service.reviews.recent.get(key) {
                return Ok(kept(updates.as_ref().clone()));
            }
        }
    }
    let ticket = caller.admit(&state.host)?;
    let options = Options {
        per_turn: Duration::from_millis(u64::from(ms)),
        seed: req.seed,
        stop: Some(ticket.stop()),
        ..Options::default()
    };
    let plan =
        Arc::new(Plan::new(source.game.clone(), source.shown.clone(), options, |s| seats.contains(&s)));
    let turns = plan.turns().len();
    let workers = state.host.thinking_threads();
    let place = service.reviews.lineup.join().ok_or_else(|| {
        let (running, waiting) = service.reviews.lineup.load();
        // About as long as a review like this one takes.
        let retry = Duration::from_millis(u64::from(ms) * turns.max(1) as u64 / workers as u64);
        errors::reviews_full(running, waiting, retry.max(Duration::from_secs(1)))
    })?;
    let (tx, rx) = mpsc::channel::<Result<pb::AnalyzeGameResponse, Status>>(16);
    let job = Job {
        state: state.clone(),
        reviews: service.reviews.clone(),
        names: source.names,
        seats,
        plan,
        keep,
        tx,
    };
    tokio::spawn(job.run(place));
    // The stream owns the ticket: when the client goes away, the review stops (its flag is
    // raised) and the client's place among the searches is free.
    let stream = tokio_stream::StreamExt::map(tokio_stream::wrappers::ReceiverStream::new(rx), move |m| {
        let _ = &ticket;
        m
    });
    Ok(Response::new(Box::pin(stream)))
}

/// The key a stored game's review is kept under: its format, the seats judged, the time a turn
/// and the seed (a review job's is every seat's, seed 0: AnalyzeGame's defaults).
pub(crate) fn kept_key(seats: &[usize], ms: u32, seed: u64) -> String {
    format!("{FORMAT} seats={seats:?} ms={ms} seed={seed}")
}

/// A finished game by id (finished as its caller sees it: a broadcast's spectator waits for its
/// end to be shown).
async fn by_id(
    state: &AppState,
    id: &str,
    metadata: &tonic::metadata::MetadataMap,
) -> Result<Source, Status> {
    let uuid = crate::host::parse_game_id(id).map_err(errors::host)?;
    let (snapshot, _) = state.seen_game(id, metadata).await?;
    crate::host::reviewable(snapshot.game()).map_err(errors::precondition)?;
    stored_source(state, uuid, &snapshot).await.map_err(|e| match e {
        SourceError::Store(e) => errors::host(e),
        SourceError::Record(why) => errors::internal(why),
    })
}

/// Why a stored game's source could not be read: the store (which may answer later), or its
/// imported record (which will not).
pub(crate) enum SourceError {
    Store(crate::host::HostError),
    Record(String),
}

/// A stored game, finished, as a review judges it: which racks its record showed, if it was
/// imported.
pub(crate) async fn stored_source(
    state: &AppState,
    uuid: Uuid,
    snapshot: &crate::host::Snapshot,
) -> Result<Source, SourceError> {
    let shown = match state.host.imported_record(uuid).await.map_err(SourceError::Store)? {
        Some(text) => Some(
            gcg::parse(&text)
                .map(|r| review::racks_shown(&r))
                .map_err(|e| SourceError::Record(format!("the game's imported record: {e}")))?,
        ),
        None => None,
    };
    Ok(Source {
        game: Arc::new(snapshot.game().clone()),
        names: snapshot.seats().iter().map(|s| s.name().to_string()).collect(),
        shown,
        stored: Some(uuid),
    })
}

/// A stored game's whole review made to be kept (a review job's): every seat's turns judged at
/// `ms` a turn on the pool's background lane, then the summary; the messages AnalyzeGame streams
/// and keeps, encoded as it keeps them. `stop` ends it early (an error). Its turns are judged on
/// every slot of the pool but one (`Host::widest_search`): a turn holds its slot for its whole
/// time, and a live game's bot, which needs one too, must never wait behind a review.
pub(crate) async fn review_to_keep(
    state: &AppState,
    source: Source,
    ms: u32,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> Result<Vec<u8>, String> {
    let seats: Vec<usize> = (0..source.game.config().seats).collect();
    let options =
        Options { per_turn: Duration::from_millis(u64::from(ms)), stop: Some(stop), ..Options::default() };
    let plan = Arc::new(Plan::new(source.game.clone(), source.shown.clone(), options, |_| true));
    let turns = plan.turns().len();
    let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(usize, Option<TurnReview>)>();
    for _ in 0..state.host.widest_search().min(turns) {
        judge_in_background(state.host.clone(), plan.clone(), done_tx.clone());
    }
    drop(done_tx);
    let alphabet = plan.game().config().rules.alphabet;
    let mut reviews: Vec<TurnReview> = Vec::with_capacity(turns);
    let mut kept = Vec::with_capacity(turns + 1);
    while reviews.len() < turns {
        let Some((i, judged)) = done_rx.recv().await else { return Err("the review was stopped".into()) };
        let Some(r) = judged else {
            // The turns still to judge are not started.
            if let Some(stop) = &plan.options().stop {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            return Err(format!("judging turn {} failed", plan.turns()[i].1 + 1));
        };
        kept.push(turn_update(&r, reviews.len() + 1, turns, 0, alphabet));
        reviews.push(r);
    }
    kept.push(last_update(&plan, reviews, &seats, &source.names));
    Ok(encode(&kept))
}

/// A judged turn's message: the `done`-th of `total`, `eta_ms` left.
fn turn_update(
    r: &TurnReview,
    done: usize,
    total: usize,
    eta_ms: u64,
    alphabet: Alphabet,
) -> pb::AnalyzeGameResponse {
    pb::AnalyzeGameResponse {
        turns_done: done as u32,
        turns: total as u32,
        eta_ms,
        turn: Some(turn_to(r, alphabet)),
        ..Default::default()
    }
}

/// A review's last message: each seat judged summed up.
fn last_update(
    plan: &Plan,
    mut reviews: Vec<TurnReview>,
    seats: &[usize],
    names: &[String],
) -> pb::AnalyzeGameResponse {
    let total = reviews.len() as u32;
    reviews.sort_by_key(|r| r.turn);
    let players = plan.game().config().seats;
    let summaries = review::summarize(plan.game(), &reviews);
    pb::AnalyzeGameResponse {
        turns_done: total,
        turns: total,
        seats: summaries
            .iter()
            .filter(|s| seats.contains(&s.seat))
            .map(|s| seat_to(s, names.get(s.seat).map_or("", |n| n.as_str()), players))
            .collect(),
        done: true,
        ..Default::default()
    }
}

/// A record, replayed as ImportGcg replays it.
async fn by_record(state: &AppState, req: &pb::AnalyzeGameRequest) -> Result<Source, Status> {
    let import = pb::ImportGcgRequest {
        gcg: req.gcg.clone(),
        ruleset: req.ruleset,
        ruleset_name: req.ruleset_name.clone(),
        lexicon: req.lexicon.clone(),
        ..Default::default()
    };
    let replayed = replay(state, &import).await?;
    Ok(Source {
        names: replayed.record.players.iter().map(player_name).collect(),
        shown: Some(review::racks_shown(&replayed.record)),
        game: Arc::new(replayed.game),
        stored: None,
    })
}

/// Where a finished review is kept, by what key: with the stored game, or in memory for a
/// record (by its request).
enum Kept {
    Store(Uuid, String),
    Memory(String),
}

/// A review under way: its turns, and the stream to its client.
struct Job {
    state: Arc<AppState>,
    reviews: Arc<Reviews>,
    names: Vec<String>,
    seats: Vec<usize>,
    /// The turns to judge and how.
    plan: Arc<Plan>,
    keep: Kept,
    tx: mpsc::Sender<Result<pb::AnalyzeGameResponse, Status>>,
}

impl Job {
    async fn run(self, mut place: Place) {
        let turns = self.plan.turns().len();
        let total = turns as u32;
        let workers = self.state.host.thinking_threads();
        let per_turn = self.plan.options().per_turn;
        let estimate = |left: usize| per_turn * left.div_ceil(workers) as u32;
        // Waiting for a place, told the place in line; a client gone meanwhile leaves it.
        let tx = self.tx.clone();
        let waited = tokio::select! {
            _ = place.run(|at| {
                let _ = tx.try_send(Ok(pb::AnalyzeGameResponse {
                    queue_position: at as u32,
                    turns: total,
                    eta_ms: estimate(turns).as_millis() as u64,
                    ..Default::default()
                }));
            }) => true,
            _ = self.tx.closed() => false,
        };
        if !waited {
            return;
        }
        let started = Instant::now();
        let progress = |done: usize| {
            let left = turns - done;
            let eta =
                if done == 0 { estimate(left) } else { started.elapsed().mul_f64(left as f64 / done as f64) };
            (done as u32, eta.as_millis() as u64)
        };
        let mut kept: Vec<pb::AnalyzeGameResponse> = Vec::new();
        let first = pb::AnalyzeGameResponse { turns: total, eta_ms: progress(0).1, ..Default::default() };
        if self.tx.send(Ok(first)).await.is_err() {
            return;
        }
        // Judge the turns a worker's worth at a time: the pool's other work goes first.
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(usize, Option<TurnReview>)>();
        for _ in 0..workers.min(turns) {
            judge_in_background(self.state.host.clone(), self.plan.clone(), done_tx.clone());
        }
        drop(done_tx);
        let mut reviews: Vec<TurnReview> = Vec::with_capacity(turns);
        let alphabet = self.plan.game().config().rules.alphabet;
        while reviews.len() < turns {
            let got = tokio::select! {
                got = done_rx.recv() => got,
                _ = self.tx.closed() => {
                    self.stop();
                    return;
                }
            };
            let Some((i, judged)) = got else {
                // Every worker's job ended with turns unjudged: none is left to judge them.
                self.stop();
                let _ = self.tx.send(Err(errors::internal("the review's jobs stopped"))).await;
                return;
            };
            // A turn that cannot be judged (or panicked) ends the review with an error.
            let Some(r) = judged else {
                self.stop();
                let turn = self.plan.turns()[i].1 + 1;
                let _ = self.tx.send(Err(errors::internal(format!("judging turn {turn} failed")))).await;
                return;
            };
            let (done, eta) = progress(reviews.len() + 1);
            let update = turn_update(&r, done as usize, turns, eta, alphabet);
            reviews.push(r);
            kept.push(update.clone());
            if self.tx.send(Ok(update)).await.is_err() {
                self.stop();
                return;
            }
        }
        let last = last_update(&self.plan, reviews, &self.seats, &self.names);
        kept.push(last.clone());
        // Kept before the last message goes: a client that asks again once it has it finds it.
        match self.keep {
            Kept::Store(id, key) => {
                if let Err(e) = self.state.host.keep_review(id, key, encode(&kept)).await {
                    tracing::warn!(game = %id, error = %e, "keeping a review failed");
                }
            }
            Kept::Memory(key) => self.reviews.recent.put(key, Arc::new(kept)),
        }
        let _ = self.tx.send(Ok(last)).await;
    }

    fn stop(&self) {
        if let Some(stop) = &self.plan.options().stop {
            stop.store(true, Ordering::Relaxed);
        }
    }
}

/// One of a review's workers: a job on the pool's background lane that judges the plan's next
/// turn and, while turns are left and the review goes on, queues itself again behind whatever
/// else waits for the pool.
fn judge_in_background(
    host: crate::host::Host,
    plan: Arc<Plan>,
    done: mpsc::UnboundedSender<(usize, Option<TurnReview>)>,
) {
    host.clone().think_in_background(move || {
        if let Some(judged) = plan.judge_next()
            && done.send(judged).is_ok()
        {
            judge_in_background(host, plan, done);
        }
    });
}

/// A kept review's messages, streamed again.
fn kept(mut updates: Vec<pb::AnalyzeGameResponse>) -> Response<ReviewStream> {
    for u in &mut updates {
        u.from_store = true;
    }
    Response::new(Box::pin(tokio_stream::iter(updates.into_iter().map(Ok))))
}

/// A review as kept in the store: its messages, each length-delimited.
fn encode(updates: &[pb::AnalyzeGameResponse]) -> Vec<u8> {
    let mut out = Vec::new();
    for u in updates {
        // Writing to a Vec cannot fail.
        let _ = u.encode_length_delimited(&mut out);
    }
    out
}

fn decode(mut body: &[u8]) -> Option<Vec<pb::AnalyzeGameResponse>> {
    let mut out = Vec::new();
    while !body.is_empty() {
        out.push(pb::AnalyzeGameResponse::decode_length_delimited(&mut body).ok()?);
    }
    out.last().is_some_and(|u| u.done).then_some(out)
}

fn class_to(c: Class) -> pb::TurnClass {
    match c {
        Class::Best => pb::TurnClass::Best,
        Class::Good => pb::TurnClass::Good,
        Class::Inaccuracy => pb::TurnClass::Inaccuracy,
        Class::Mistake => pb::TurnClass::Mistake,
        Class::Blunder => pb::TurnClass::Blunder,
    }
}

fn grade_to(g: Grade) -> pb::MistakeGrade {
    match g {
        Grade::None => pb::MistakeGrade::None,
        Grade::Small => pb::MistakeGrade::Small,
        Grade::Medium => pb::MistakeGrade::Medium,
        Grade::Large => pb::MistakeGrade::Large,
    }
}

fn move_to(j: &review::Judged, alphabet: Alphabet) -> pb::AnalyzedMove {
    let mut m = pb::AnalyzedMove {
        score: j.score,
        equity: j.equity,
        win_percent: if j.win.is_finite() { 100.0 * j.win } else { 0.0 },
        ..Default::default()
    };
    match &j.action {
        Action::Play(p) => m.play = Some(convert::play_to(p, alphabet)),
        Action::Exchange(t) => m.exchange = t.to_string(alphabet),
        Action::Pass | Action::Resign => m.pass = true,
    }
    m
}

pub(crate) fn turn_to(r: &TurnReview, alphabet: Alphabet) -> pb::TurnAnalysis {
    let judged = r.analysable;
    pb::TurnAnalysis {
        turn: r.turn,
        seat: r.seat as u32,
        position: r.cgp.clone(),
        rack: r.rack.map(|x| x.to_string(alphabet)).unwrap_or_default(),
        analysable: judged,
        played: Some(move_to(&r.played, alphabet)),
        best: judged.then(|| move_to(&r.best, alphabet)),
        win_lost: if r.method == Method::Static { r.lost } else { 100.0 * r.lost },
        class: (if judged { class_to(r.class) } else { pb::TurnClass::Unspecified }) as i32,
        method: match r.method {
            Method::Simulation => "simulation",
            Method::PreEndgame => "pre-endgame",
            Method::Endgame => "endgame",
            Method::Static => "static",
        }
        .to_string(),
        exact: r.exact,
        phony: r.phony,
        challenged: r.challenged,
        phony_unchallenged: r.phony_unchallenged,
        valid_challenged_off: r.valid_challenged_off,
        bingo: r.bingo,
        bingo_missed: r.bingo_missed,
        pass_or_exchange_beaten: r.pass_or_exchange_beaten,
        play_beaten_by_exchange: r.play_beaten_by_exchange,
        puzzle: r.puzzle,
        grade: (if judged { grade_to(r.grade) } else { pb::MistakeGrade::Unspecified }) as i32,
    }
}

fn seat_to(s: &SeatSummary, name: &str, seats: usize) -> pb::SeatAnalysis {
    pb::SeatAnalysis {
        seat: s.seat as u32,
        name: name.to_string(),
        turns: s.turns,
        mean_win_lost: if seats == 2 { 100.0 * s.mean_lost } else { s.mean_lost },
        accuracy: s.accuracy,
        best: s.classes[0],
        good: s.classes[1],
        inaccuracies: s.classes[2],
        mistakes: s.classes[3],
        blunders: s.classes[4],
        bingos: s.bingos,
        bingos_missed: s.bingos_missed,
        phonies: s.phonies,
        small_mistakes: s.grades[1],
        medium_mistakes: s.grades[2],
        large_mistakes: s.grades[3],
        mistake_index: s.mistake_index,
        phonies_let_go: s.phonies_let_go,
    }
}
