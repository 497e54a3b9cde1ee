//! The one privacy policy. A [`Viewer`] is who asks: a seat proven by its token, or a watcher
//! (no token). Everything a live game shows anyone goes through here: views, events, GCG
//! exports and the rack an analysis of a live game may use. Nothing else decides what a viewer
//! may see.
//!
//! The rules: a seat sees its own rack and its own exchanged tiles, nobody else's; end-of-game
//! racks are counted in front of everyone, so they are public; a finished game's record shows
//! every rack.

use super::auth;
use super::convert::{board_to, challenge_to, end_reason, play_to, ruleset_to};
use super::errors;
use super::session::{Seat, SeatKind};
use crate::alphabet::Alphabet;
use crate::game::record::write_gcg_for;
use crate::game::{Event, EventKind, Game};
use crate::proto::v1 as pb;
use crate::rack::Rack;
use tonic::Status;
use tonic::metadata::MetadataMap;

/// Who is looking at a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// The holder of this seat's token.
    Seat(usize),
    /// Anyone else who knows the game's id: no racks.
    Watcher,
}

impl Viewer {
    /// The viewer a request's metadata proves: no token is a watcher; a token that fits no
    /// seat is UNAUTHENTICATED (never silently a watcher).
    pub fn of(metadata: &MetadataMap, seats: &[Seat]) -> Result<Viewer, Status> {
        let Some(token) = auth::bearer(metadata)? else { return Ok(Viewer::Watcher) };
        let hashes: Vec<_> = seats
            .iter()
            .map(|s| match s.kind {
                SeatKind::Human { token } => token,
                SeatKind::Bot(_) => None,
            })
            .collect();
        auth::find_seat(&token, &hashes)
            .map(Viewer::Seat)
            .ok_or_else(|| errors::unauthenticated("the token does not belong to a seat of this game"))
    }

    /// The seat, for an action that needs one.
    pub fn seat(self) -> Option<usize> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Watcher => None,
        }
    }

    /// The seat an action needs; a watcher is UNAUTHENTICATED.
    pub fn required_seat(self) -> Result<usize, Status> {
        self.seat().ok_or_else(|| {
            errors::unauthenticated("this action needs the seat's token (authorization: Bearer <token>)")
        })
    }

    /// Whether `seat`'s rack and exchanged tiles are shown in a live view or event.
    fn sees_rack_of(self, seat: usize) -> bool {
        self == Viewer::Seat(seat)
    }

    /// Whether `seat`'s racks are written into the game's record: once the game is over, all.
    fn sees_record_rack_of(self, seat: usize, over: bool) -> bool {
        over || self.sees_rack_of(seat)
    }

    /// The rack an analysis of a live game may use: the viewer's own, never another seat's.
    pub fn own_rack(self, game: &Game) -> Option<Rack> {
        self.seat().and_then(|s| game.rack(s).copied())
    }
}

/// The game as `viewer` may see it. Clocks read at `now_ms`, never below the overtime allowed
/// (a flag that fell is a loss at that instant, whenever it is looked at).
pub fn view(id: &str, game: &Game, seats: &[Seat], viewer: Viewer, now_ms: u64) -> pb::GameView {
    let g = game;
    let cfg = g.config();
    let alphabet = cfg.rules.alphabet;
    let seats = seats
        .iter()
        .enumerate()
        .map(|(i, s)| pb::SeatView {
            seat: i as u32,
            name: s.name.clone(),
            bot: matches!(s.kind, SeatKind::Bot(_)),
            open: matches!(s.kind, SeatKind::Human { token: None }),
            score: g.scores()[i],
            rack_size: g.rack(i).map_or(0, |r| r.len() as u32),
            time_left_ms: g
                .clocks()
                .map(|c| c.remaining_ms(i, now_ms).max(-(c.config().max_overtime_ms as i64))),
        })
        .collect();
    let outcome = g.outcome();
    let mine = viewer.seat().filter(|&s| viewer.sees_rack_of(s));
    pb::GameView {
        game_id: id.to_string(),
        ruleset: ruleset_to(cfg.rules.kind) as i32,
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
    }
}

/// An event as `viewer` may see it: the rack (and exchanged tiles) only for the viewer's seat.
pub fn event(e: &Event, alphabet: Alphabet, viewer: Viewer) -> pb::GameEvent {
    let own = viewer.sees_rack_of(e.seat);
    let mut out = pb::GameEvent {
        number: e.number as u64,
        seat: e.seat as u32,
        points: e.points,
        cumulative: e.cumulative,
        rack: if own { e.rack.to_string(alphabet) } else { String::new() },
        time_ms: e.time_ms,
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
        EventKind::Challenged { challenger, acceptable } => {
            out.challenger = Some(*challenger as u32);
            out.acceptable = Some(*acceptable);
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
    }
    .to_string();
    out
}

/// The game's record as GCG: while it is on, only the viewer's own racks (other lines carry no
/// rack, other exchanges only a count); once over, every rack.
pub fn gcg(game: &Game, seats: &[Seat], viewer: Viewer) -> String {
    let names: Vec<String> = seats.iter().map(|s| s.name.clone()).collect();
    let over = game.is_over();
    write_gcg_for(game, &names, &|seat| viewer.sees_record_rack_of(seat, over))
}
