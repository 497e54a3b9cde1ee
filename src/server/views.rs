//! What a viewer is shown of a game, as messages: views and events. Whose racks and exchanged
//! tiles they carry is the host's privacy policy ([`Viewer::sees_rack_of`]); this module only
//! writes down what the policy allows.

use super::convert::{board_to, challenge_to, end_reason, play_to, ruleset_to};
use crate::alphabet::Alphabet;
use crate::game::{Event, EventKind, Game};
use crate::host::{Answer, Answers, ChallengeDone, DirectorDone, Seat, Session, Snapshot, TurnDone, Viewer};
use crate::proto::v1 as pb;
use prost::Message;
use tonic::Status;

/// The game of a session as `viewer` sees it now.
pub fn session_view(session: &Session, viewer: Viewer) -> pb::GameView {
    snapshot_view(session, &session.snapshot(), viewer, session.now_ms())
}

/// A snapshot of a session's game as `viewer` sees it at `now_ms`.
pub fn snapshot_view(session: &Session, snapshot: &Snapshot, viewer: Viewer, now_ms: u64) -> pb::GameView {
    view(&session.id().to_string(), snapshot, viewer, now_ms)
}

/// The game as `viewer` may see it. Clocks read at `now_ms`, never below the overtime allowed
/// (a flag that fell is a loss at that instant, whenever it is looked at).
pub fn view(id: &str, snapshot: &Snapshot, viewer: Viewer, now_ms: u64) -> pb::GameView {
    let mut v = game_view(id, snapshot.game(), snapshot.seats(), viewer, now_ms);
    v.labels = snapshot.labels().iter().cloned().collect();
    // A seat a registered bot plays by its account, as its game's label marks it.
    for seat in &mut v.seats {
        if let Some(name) = v.labels.get(&dawgref_events::bot_account_label(seat.seat as usize)) {
            seat.bot_account = name.clone();
        }
    }
    v
}

fn game_view(id: &str, game: &Game, seats: &[Seat], viewer: Viewer, now_ms: u64) -> pb::GameView {
    let g = game;
    let cfg = g.config();
    let alphabet = cfg.rules.alphabet;
    let seats = seats
        .iter()
        .enumerate()
        .map(|(i, s)| pb::SeatView {
            seat: i as u32,
            name: s.name().to_string(),
            bot: s.is_bot(),
            open: s.is_open(),
            score: g.scores()[i],
            rack_size: g.rack(i).map_or(0, |r| r.len() as u32),
            time_left_ms: g
                .clocks()
                .map(|c| c.remaining_ms(i, now_ms).max(-(c.config().max_overtime_ms as i64))),
            // From the game's labels (`view`).
            bot_account: String::new(),
        })
        .collect();
    let outcome = g.outcome();
    let mine = viewer.seat().filter(|&s| viewer.sees_rack_of(s));
    pb::GameView {
        game_id: id.to_string(),
        ruleset: ruleset_to(cfg.rules.kind) as i32,
        ruleset_name: cfg.rules.kind.name().to_string(),
        lexicon: cfg.lexicon.name().to_string(),
        challenge_rule: challenge_to(cfg.challenge) as i32,
        board: Some(board_to(g.board())),
        seats,
        my_seat: viewer.seat().map(|s| s as u32),
        my_rack: mine.and_then(|s| g.rack(s)).map(|r| r.to_string(alphabet)).unwrap_or_default(),
        bag: g.bag_len() as u32,
        to_move: g.to_move() as u32,
        turn: g.turn(),
        scoreless_turns: g.scoreless_turns(),
        events: g.history().len() as u64,
        challengeable: g.challengeable().is_some(),
        awaiting_final_challenge: g.awaiting_final_challenge(),
        over: g.is_over(),
        end_reason: outcome.map(|o| end_reason(o.reason)).unwrap_or_default(),
        winners: outcome.map(|o| o.winners.iter().map(|&w| w as u32).collect()).unwrap_or_default(),
        paused: g.paused(),
        labels: Default::default(),
    }
}

/// An event as `viewer` may see it: the rack (and exchanged tiles) only for the viewer's seat; a
/// challenge's word verdicts only when `verdicts` ([`Viewer::sees_verdicts`]).
pub fn event(e: &Event, alphabet: Alphabet, viewer: Viewer, verdicts: bool) -> pb::WatchGameResponse {
    let own = viewer.sees_rack_of(e.seat);
    let mut out = pb::WatchGameResponse {
        number: e.number as u64,
        seat: e.seat as u32,
        points: e.points,
        cumulative: e.cumulative,
        rack: if own { e.rack.to_string(alphabet) } else { String::new() },
        time_ms: e.time_ms,
        undone: e.undone,
        director: e.director.clone().unwrap_or_default(),
        ..Default::default()
    };
    out.kind = match &e.kind {
        EventKind::Play { play, words } => {
            out.play = Some(play_to(play, alphabet));
            out.words = words.clone();
            "play"
        }
        EventKind::PhonyWithdrawn { play } => {
            out.play = Some(play_to(play, alphabet));
            "phony_withdrawn"
        }
        EventKind::Challenged { challenger, acceptable, words } => {
            out.challenger = Some(*challenger as u32);
            out.acceptable = Some(*acceptable);
            if verdicts {
                out.verdicts = words
                    .iter()
                    .map(|(word, valid)| pb::ChallengedWord { word: word.clone(), valid: *valid })
                    .collect();
            }
            "challenged"
        }
        EventKind::ChallengeBonus { challenger } => {
            out.challenger = Some(*challenger as u32);
            "challenge_bonus"
        }
        EventKind::TurnLost => "turn_lost",
        EventKind::Pass => "pass",
        EventKind::Exchange { tiles } => {
            out.tile_count = tiles.len() as u32;
            if own {
                out.tiles = tiles.to_string(alphabet);
            }
            "exchange"
        }
        // End-of-game racks are public: they are counted in front of everyone.
        EventKind::EndRackPoints { rack, .. } | EventKind::RackPenalty { rack } => {
            out.tiles = rack.to_string(alphabet);
            out.tile_count = rack.len() as u32;
            if matches!(e.kind, EventKind::EndRackPoints { .. }) { "end_rack_points" } else { "rack_penalty" }
        }
        EventKind::TimePenalty { .. } => "time_penalty",
        EventKind::Resign => "resign",
        EventKind::OutOfTime => "out_of_time",
        EventKind::GameOver { reason } => {
            out.end_reason = end_reason(*reason);
            "game_over"
        }
        EventKind::Paused => "paused",
        EventKind::Resumed => "resumed",
        EventKind::ScoreAdjusted { reason } => {
            out.text = reason.clone();
            "score_adjusted"
        }
        EventKind::ClockAdjusted { delta_ms, reason } => {
            out.text = reason.clone();
            out.delta_ms = *delta_ms;
            "clock_adjusted"
        }
        EventKind::TurnUndone { from } => {
            out.undone_from = *from as u64;
            "turn_undone"
        }
        EventKind::Note { text } => {
            out.text = text.clone();
            "note"
        }
    }
    .to_string();
    out
}

/// A turn's answer, the same whether it is sent now or written down for a retry.
pub fn turn_response(d: &TurnDone) -> pb::SubmitTurnResponse {
    let game = d.snapshot.game();
    let alphabet = game.config().rules.alphabet;
    pb::SubmitTurnResponse {
        points: d.points,
        play: d.play.as_ref().map(|p| play_to(p, alphabet)),
        view: Some(view(&d.id.to_string(), &d.snapshot, Viewer::Seat(d.seat), d.now_ms)),
    }
}

/// A director's answer: the game as a watcher sees it, the same whether sent now or written
/// down for a retry.
pub fn director_view(d: &DirectorDone) -> pb::GameView {
    view(&d.id.to_string(), &d.snapshot, Viewer::Director, d.now_ms)
}

/// The response of a director's action on a game. Each action's response is its own message, and
/// each is the one field `GameView view = 1`, so the bytes written down for one decode as any.
pub trait DirectorResponse: Message + Default + 'static {
    fn with_view(view: pb::GameView) -> Self;
}

macro_rules! director_responses {
    ($($name:ident),*) => {
        $(impl DirectorResponse for pb::$name {
            fn with_view(view: pb::GameView) -> Self {
                pb::$name { view: Some(view) }
            }
        })*
    };
}

director_responses!(
    PauseGameResponse,
    ResumeGameResponse,
    AdjustScoreResponse,
    AdjustClockResponse,
    UndoTurnResponse,
    SetResultResponse,
    AddNoteResponse
);

/// A challenge's answer, the same whether it is sent now or written down for a retry.
pub fn challenge_response(d: &ChallengeDone) -> pb::ChallengeResponse {
    pb::ChallengeResponse {
        acceptable: d.verdict.acceptable,
        invalid_words: d.verdict.invalid_words.clone().unwrap_or_default(),
        view: Some(view(&d.id.to_string(), &d.snapshot, Viewer::Seat(d.seat), d.now_ms)),
    }
}

/// The answer to a request that may be a retry: made now (no request id), or decoded from the
/// bytes written down for its request id, now or the first time (so a retry's answer is the
/// first one's, byte for byte).
pub fn answer<T, M: Message + Default + 'static>(
    answer: Answer<T>,
    make: impl FnOnce(&T) -> M,
) -> Result<M, Status> {
    match answer {
        Answer::Done(done) => Ok(make(&done)),
        Answer::Remembered(bytes) => M::decode(bytes.as_slice())
            .map_err(|e| super::errors::internal(format!("a remembered response: {e}"))),
    }
}

/// How the host writes answers down: as the messages this module makes, encoded.
pub struct EncodedAnswers;

impl Answers for EncodedAnswers {
    fn turn(&self, done: &TurnDone) -> Vec<u8> {
        turn_response(done).encode_to_vec()
    }

    fn challenge(&self, done: &ChallengeDone) -> Vec<u8> {
        challenge_response(done).encode_to_vec()
    }

    fn director(&self, done: &DirectorDone) -> Vec<u8> {
        // Any director response: they are one shape.
        pb::PauseGameResponse::with_view(director_view(done)).encode_to_vec()
    }
}
