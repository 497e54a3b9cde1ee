//! Rebuilding games from the store: at start-up every unfinished game, later any finished game a
//! request names. A game is rebuilt by replaying its log through the engine, step by step, with
//! the clock readings that were logged; each step must be accepted exactly as it was the first
//! time. A game whose record or log cannot be replayed is quarantined with the reason: never
//! dropped, never served half-built, and never in the way of the other games.

use super::auth::TokenHash;
use super::session::{Core, Seat, SeatKind, Session};
use super::state::AppState;
use crate::bot::BotLevel;
use crate::game::Game;
use crate::game::record::import_game;
use crate::notation::gcg;
use crate::store::record::{Batch, GameRecord, SeatRecord, Step, StepKind};
use crate::store::{StoreError, StoredGame};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use uuid::Uuid;

/// What start-up recovery did.
#[derive(Debug, Default)]
pub struct RecoveryReport {
    pub loaded: usize,
    /// Games set aside, with the reason.
    pub quarantined: Vec<(Uuid, String)>,
    pub elapsed: Duration,
}

/// Load every unfinished game from the store into `state`, quarantining those that cannot be
/// replayed. Each becomes a session through the same constructor as a new game: its task re-arms
/// the clock's timer and sets the bots whose turn it is thinking.
pub async fn recover(state: &Arc<AppState>) -> Result<RecoveryReport, StoreError> {
    let started = Instant::now();
    let worker = state.clone();
    // Reading and replaying every log is CPU work: it runs on the pool.
    let replayed = state
        .pool
        .run(move || {
            let games = worker.store.unfinished()?;
            Ok::<_, StoreError>(games.iter().map(|g| (g.id, replay(&worker, g))).collect::<Vec<_>>())
        })
        .await
        .ok_or_else(|| StoreError::Io("recovery task failed".into()))??;
    let mut report = RecoveryReport::default();
    for (id, result) in replayed {
        match result {
            Ok(Replayed { core, last_ms, bot_delay_ms }) => {
                state.hold(&Session::start(state, id, last_ms, core, bot_delay_ms));
                report.loaded += 1;
            }
            Err(reason) => {
                tracing::error!(game = %id, %reason, "game quarantined: its log cannot be replayed");
                state.store.quarantine(id, &reason).wait().await?;
                report.quarantined.push((id, reason));
            }
        }
    }
    state.metrics.games_live.set(state.live_games() as i64);
    state.metrics.quarantined.set(report.quarantined.len() as i64);
    report.elapsed = started.elapsed();
    Ok(report)
}

/// The seats as a new game's record holds them.
pub fn record_seats(seats: &[Seat]) -> Vec<SeatRecord> {
    seats
        .iter()
        .map(|s| match s.kind {
            SeatKind::Human { token } => SeatRecord {
                name: s.name.clone(),
                bot: String::new(),
                token_hash: token.map(|t| t.to_vec()).unwrap_or_default(),
            },
            SeatKind::Bot(level) => {
                SeatRecord { name: s.name.clone(), bot: level.name().to_string(), token_hash: Vec::new() }
            }
        })
        .collect()
}

fn seat_of(i: usize, s: &SeatRecord) -> Result<Seat, String> {
    let kind = if s.bot.is_empty() {
        let token = match s.token_hash.len() {
            0 => None,
            32 => Some(TokenHash::try_from(s.token_hash.as_slice()).map_err(|e| e.to_string())?),
            n => return Err(format!("seat {i}'s token hash has {n} bytes")),
        };
        SeatKind::Human { token }
    } else {
        SeatKind::Bot(s.bot.parse::<BotLevel>().map_err(|e| format!("seat {i}: {e}"))?)
    };
    Ok(Seat { name: s.name.clone(), kind })
}

/// Apply one logged step; it must do what it did the first time.
fn apply(game: &mut Game, seats: &mut [Seat], step: &Step) -> Result<(), String> {
    let seat = step.seat as usize;
    if seat >= seats.len() {
        return Err(format!("step for seat {seat} of a {}-seat game", seats.len()));
    }
    match step.step_kind() {
        StepKind::Play | StepKind::Exchange | StepKind::Pass | StepKind::Resign => {
            let action = step.to_action(game.config().rules.alphabet)?;
            game.act(seat, action, step.now_ms).map_err(|e| format!("turn refused on replay: {e}"))
        }
        StepKind::Challenge => {
            game.challenge(seat, step.now_ms).map(|_| ()).map_err(|e| format!("challenge refused: {e}"))
        }
        StepKind::Tick => {
            if game.tick(step.now_ms) {
                Ok(())
            } else {
                Err("a logged time loss did not happen".into())
            }
        }
        StepKind::Join => {
            let hash = TokenHash::try_from(step.token_hash.as_slice())
                .map_err(|_| format!("join of seat {seat}: token hash of {} bytes", step.token_hash.len()))?;
            let s = &mut seats[seat];
            if !matches!(s.kind, SeatKind::Human { token: None }) {
                return Err(format!("join of seat {seat}, which is not open"));
            }
            s.kind = SeatKind::Human { token: Some(hash) };
            if !step.name.is_empty() {
                s.name = step.name.clone();
            }
            Ok(())
        }
        StepKind::Unknown => Err(format!("unknown step kind {}", step.kind)),
    }
}

/// A stored game after replaying its log: its state, the last clock reading in the log, and
/// its bots' pace.
pub struct Replayed {
    pub core: Core,
    pub last_ms: u64,
    pub bot_delay_ms: u32,
}

/// Replay a stored game's log. Errors say what could not be replayed and where.
pub fn replay(state: &AppState, stored: &StoredGame) -> Result<Replayed, String> {
    let record = GameRecord::decode_bytes(&stored.record)?;
    let config = record.config(state.lexicons.get(&record.lexicon).cloned())?;
    let mut seats =
        record.seats.iter().enumerate().map(|(i, s)| seat_of(i, s)).collect::<Result<Vec<_>, _>>()?;
    let mut game = if record.imported_gcg.is_empty() {
        Game::new(config).map_err(|e| format!("the game cannot be set up: {e}"))?
    } else {
        let parsed = gcg::parse(&record.imported_gcg).map_err(|e| format!("imported record: {e}"))?;
        import_game(&parsed, config).map_err(|e| format!("imported record: {e}"))?
    };
    let mut done = HashMap::new();
    let mut last_ms = 0;
    for (i, (seq, row)) in stored.log.iter().enumerate() {
        if *seq != i as u64 {
            return Err(format!("log row {i} is missing (next stored row is {seq})"));
        }
        let batch = Batch::decode_bytes(row).map_err(|e| format!("log row {seq}: {e}"))?;
        for step in &batch.steps {
            apply(&mut game, &mut seats, step).map_err(|e| format!("log row {seq}: {e}"))?;
            last_ms = last_ms.max(step.now_ms);
        }
        if let Some(d) = batch.done {
            done.insert((d.seat as usize, d.request_id), d.response);
        }
    }
    if stored.log.is_empty() {
        return Err("the log has no rows".into());
    }
    game.check_invariants().map_err(|e| format!("replayed game breaks an invariant: {e}"))?;
    let bot_delay_ms = record.bot_delay_ms.unwrap_or_else(|| super::session::default_bot_delay_ms(&seats));
    Ok(Replayed { core: Core::new(game, seats, done, stored.log.len() as u64), last_ms, bot_delay_ms })
}
