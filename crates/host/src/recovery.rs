//! Rebuilding a game from the store: at start-up every unfinished game, later any game a
//! request names that is not in memory. A game is rebuilt by replaying its log through the engine, step by step, with
//! the clock readings that were logged; each step must be accepted exactly as it was the first
//! time. A game whose record or log cannot be replayed is quarantined with the reason: never
//! dropped, never served half-built, and never in the way of the other games.

use super::state::{Asker, Core, Remembered, Seat, TokenHash, TournamentLink, default_bot_delay_ms};
use dawgref_engine::game::Game;
use dawgref_engine::game::record::import_game;
use dawgref_engine::lexicon::Lexicon;
use dawgref_engine::notation::gcg;
use dawgref_store::StoredGame;
use dawgref_store::record::{Batch, GameRecord, Step, StepKind};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The loaded lexicons by name: a record names its lexicon, and replay finds it here.
pub type Lexicons = BTreeMap<String, Arc<Lexicon>>;

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
        StepKind::Director => {
            let action = step.to_director()?;
            game.direct(action, step.director_name(), step.now_ms)
                .map_err(|e| format!("director's action refused on replay: {e}"))
        }
        StepKind::Undo => game
            .undo_turn(step.director_name(), step.now_ms)
            .map_err(|e| format!("undo refused on replay: {e}")),
        StepKind::Join => {
            let hash = TokenHash::try_from(step.token_hash.as_slice())
                .map_err(|_| format!("join of seat {seat}: token hash of {} bytes", step.token_hash.len()))?;
            let s = &mut seats[seat];
            if !s.is_open() {
                return Err(format!("join of seat {seat}, which is not open"));
            }
            s.join(&step.name, hash);
            Ok(())
        }
        StepKind::NewToken => {
            let hash = TokenHash::try_from(step.token_hash.as_slice()).map_err(|_| {
                format!("new token of seat {seat}: a hash of {} bytes", step.token_hash.len())
            })?;
            seats[seat].new_token(hash).ok_or_else(|| format!("new token of seat {seat}, not a person's"))
        }
        StepKind::Unknown => Err(format!("unknown step kind {}", step.kind)),
    }
}

/// A stored game after replaying its log: its state, the clock reading it resumes at, and its
/// bots' pace.
pub struct Replayed {
    pub(crate) core: Core,
    /// The last clock reading in the log (time the server was down is nobody's); for a
    /// correspondence clock, the time since the game was created, whichever is later (its moves'
    /// deadlines are on the calendar); for a finished game, the last reading plus the calendar's
    /// time since its last row.
    pub(crate) last_ms: u64,
    pub(crate) bot_delay_ms: u32,
}

impl Replayed {
    /// The game as its log rebuilt it.
    pub fn game(&self) -> &Game {
        self.core.game()
    }

    /// The answers the log remembers, by asker and request id.
    pub fn remembered_responses(&self) -> &Remembered {
        self.core.remembered_responses()
    }
}

/// Replay a stored game's log. Errors say what could not be replayed and where.
pub fn replay(lexicons: &Lexicons, stored: &StoredGame) -> Result<Replayed, String> {
    let record = GameRecord::decode_bytes(&stored.record)?;
    let config = record.config(lexicons.get(&record.lexicon).cloned())?;
    let mut seats = record
        .seats
        .iter()
        .enumerate()
        .map(|(i, s)| Seat::from_record(i, s))
        .collect::<Result<Vec<_>, _>>()?;
    let mut game = if record.imported_gcg.is_empty() {
        Game::new(config).map_err(|e| format!("the game cannot be set up: {e}"))?
    } else {
        let parsed = gcg::parse(&record.imported_gcg).map_err(|e| format!("imported record: {e}"))?;
        import_game(&parsed, config).map_err(|e| format!("imported record: {e}"))?
    };
    let mut done = Remembered::new();
    let mut last_ms = 0;
    // The last row's time on the calendar, if it was kept.
    let mut last_unix_ms = 0;
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
            done.insert((Asker::from_row(d.seat), d.request_id), d.response);
        }
        last_unix_ms = batch.unix_ms;
    }
    if stored.log.is_empty() {
        return Err("the log has no rows".into());
    }
    game.check_invariants().map_err(|e| format!("replayed game breaks an invariant: {e}"))?;
    let bot_delay_ms = record.bot_delay_ms.unwrap_or_else(|| default_bot_delay_ms(&seats));
    if game.config().clock.is_some_and(|c| c.per_move) && record.created_unix_ms > 0 {
        let since = unix_ms().saturating_sub(record.created_unix_ms);
        last_ms = last_ms.max(since);
    }
    // A finished game's clock charges nobody: it reads as the calendar has moved since its last
    // row, so that a reader holding it back (a broadcast's delay) counts from when it ended, not
    // from when it was loaded. (Its last row was written no sooner than its last reading, so
    // every event reads as no earlier than it happened.)
    if game.is_over() && last_unix_ms > 0 {
        last_ms = last_ms.saturating_add(unix_ms().saturating_sub(last_unix_ms));
    }
    let labels = record.labels.iter().map(|l| (l.key.clone(), l.value.clone())).collect();
    let tournament = record.tournament.as_ref().map(TournamentLink::of);
    let core =
        Core::new(game, seats, done, stored.log.len() as u64).with_labels(labels).with_tournament(tournament);
    Ok(Replayed { core, last_ms, bot_delay_ms })
}

/// Milliseconds since the Unix epoch, by the wall clock.
pub fn unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}
