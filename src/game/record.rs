//! Games as GCG records: writing a game's history, and replaying a record — ours, macondo's or
//! Quackle's — recomputing every score, so that a record whose written figures differ from the
//! rules is reported line by line instead of being accepted.

use super::{EventKind, Game};
use crate::alphabet::Alphabet;
use crate::board::Board;
use crate::lexicon::Lexicon;
use crate::notation::gcg::{MoveKind, Record};
use crate::notation::{format_play, parse_coordinate, parse_tiles};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::score::evaluate_normalized;
use std::fmt::Write as _;
use std::sync::Arc;

/// Write a game as GCG (macondo dialect). `nicks[seat]` name the players.
pub fn write_gcg(game: &Game, nicks: &[String]) -> String {
    write_gcg_for(game, nicks, &|_| true)
}

/// Write a game as GCG showing the racks of the seats `shown` accepts. For the others, move
/// lines carry no rack (GCG allows that) and exchanges give only the number of tiles (`-3`):
/// what the seat drew and kept stays theirs.
pub fn write_gcg_for(game: &Game, nicks: &[String], shown: &dyn Fn(usize) -> bool) -> String {
    let cfg = game.config();
    let alphabet = cfg.rules.alphabet;
    let nick = |s: usize| nicks.get(s).cloned().unwrap_or_else(|| format!("seat{}", s + 1));
    let mut out = String::from("#character-encoding UTF-8\n");
    for s in 0..cfg.seats {
        let _ = writeln!(out, "#player{} {} {}", s + 1, nick(s), nick(s));
    }
    let _ = writeln!(out, "#lexicon {}", cfg.lexicon.name());
    let _ = writeln!(
        out,
        "#description dawgref ruleset {} challenge {} seed {}",
        cfg.rules.kind, cfg.challenge, cfg.seed
    );
    for e in game.history() {
        let visible = shown(e.seat);
        let rack = if visible { format!("{} ", e.rack.to_string(alphabet)) } else { String::new() };
        let body = match &e.kind {
            EventKind::Play { play, .. } => format_play(play, alphabet),
            EventKind::PhonyWithdrawn { .. } => "--".to_string(),
            EventKind::ChallengeBonus { .. } => "(challenge)".to_string(),
            // GCG has no line for a lost turn; it is a pass in effect.
            EventKind::TurnLost | EventKind::Pass => "-".to_string(),
            EventKind::Exchange { tiles } if visible => format!("-{}", tiles.to_string(alphabet)),
            EventKind::Exchange { tiles } => format!("-{}", tiles.len()),
            EventKind::EndRackPoints { rack: r, .. } => {
                let _ = writeln!(
                    out,
                    ">{}: ({}) +{} {}",
                    nick(e.seat),
                    r.to_string(alphabet),
                    e.points,
                    e.cumulative
                );
                continue;
            }
            EventKind::RackPenalty { rack: r } => format!("({})", r.to_string(alphabet)),
            EventKind::TimePenalty { .. } => "(time)".to_string(),
            EventKind::Challenged { .. }
            | EventKind::Resign
            | EventKind::OutOfTime
            | EventKind::GameOver { .. } => {
                continue;
            }
        };
        let sign = if e.points >= 0 { "+" } else { "" };
        let _ = writeln!(out, ">{}: {}{} {}{} {}", nick(e.seat), rack, body, sign, e.points, e.cumulative);
    }
    out
}

/// A line whose written figures differ from the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub line: usize,
    pub text: String,
    pub recorded: (i32, i32),
    pub recomputed: (i32, i32),
    /// Why, when the play itself could not be replayed.
    pub note: Option<String>,
}

/// The result of replaying a record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Final scores by player, in seat order.
    pub finals: Vec<(String, i32)>,
    pub mismatches: Vec<Mismatch>,
    /// Words of plays not in the lexicon (when one was given), with their line.
    pub unknown_words: Vec<(usize, String)>,
}

/// Replay a record on a board of `rules`, recomputing every score. With a lexicon, the words of
/// each play are also looked up (a phony that stood is noted, not a mismatch).
pub fn check_record(rec: &Record, rules: Arc<Ruleset>, lexicon: &Lexicon) -> CheckReport {
    check_record_with(rec, rules, lexicon, false)
}

/// [`check_record`], choosing whether words are looked up.
pub fn check_record_with(rec: &Record, rules: Arc<Ruleset>, lexicon: &Lexicon, words: bool) -> CheckReport {
    let alphabet: Alphabet = rules.alphabet;
    let dawg = lexicon.dawg();
    let mut board = Board::new(rules.clone());
    let players = rec.players.len().max(1);
    let seat_of = |nick: &str| rec.players.iter().position(|p| p.nick == nick);
    let mut running = vec![0i32; players];
    let mut last_play: Vec<Option<(Play, i32)>> = vec![None; players];
    let mut report = CheckReport::default();
    for m in &rec.moves {
        let Some(seat) = seat_of(&m.nick) else { continue };
        let mut note = None;
        let recomputed = match &m.kind {
            MoveKind::Play { coordinate, word } => match replay_play(&board, alphabet, coordinate, word) {
                Ok(play) => {
                    let eval = evaluate_normalized(&board, &play);
                    if words {
                        for w in &eval.words {
                            let letters: Vec<u8> =
                                w.tiles.iter().map(|&t| crate::alphabet::tile_letter(t)).collect();
                            if !lexicon.contains(&letters) {
                                report.unknown_words.push((m.line, alphabet.word_string(&letters)));
                            }
                        }
                    }
                    let placements: Vec<_> = play.placements().map(|p| (p.row, p.col, p.tile)).collect();
                    board.place(&placements, dawg);
                    last_play[seat] = Some((play, eval.total));
                    eval.total
                }
                Err(why) => {
                    note = Some(why);
                    m.score
                }
            },
            MoveKind::Withdrawn => match last_play[seat].take() {
                Some((play, score)) => {
                    let squares: Vec<_> = play.placements().map(|p| (p.row, p.col)).collect();
                    board.remove(&squares, dawg);
                    -score
                }
                None => {
                    note = Some("no play to withdraw".to_string());
                    m.score
                }
            },
            MoveKind::Pass | MoveKind::Exchange { .. } => 0,
            MoveKind::ChallengeBonus | MoveKind::TimePenalty => m.score,
            MoveKind::EndRack { rack } => match Rack::parse(rack, alphabet) {
                Ok(r) => {
                    let v = rules.rack_total(&r);
                    if m.score < 0 {
                        -v
                    } else if m.score == v || players != 2 {
                        v
                    } else {
                        // Two-player NASPA records give the player who went out twice the rack.
                        2 * v
                    }
                }
                Err(e) => {
                    note = Some(e.to_string());
                    m.score
                }
            },
        };
        // Quackle's dialect writes a withdrawal as +0 and lets the total show it.
        let score_ok = m.score == recomputed || (matches!(m.kind, MoveKind::Withdrawn) && m.score == 0);
        // Saturating: the written figures are untrusted input.
        let expected_total = running[seat].saturating_add(recomputed);
        if !score_ok || expected_total != m.cumulative || note.is_some() {
            report.mismatches.push(Mismatch {
                line: m.line,
                text: m.text.clone(),
                recorded: (m.score, m.cumulative),
                recomputed: (recomputed, expected_total),
                note,
            });
        }
        // Carry on from the written total, so one bad line is reported once.
        running[seat] = m.cumulative;
    }
    report.finals = rec.players.iter().zip(&running).map(|(p, &s)| (p.nick.clone(), s)).collect();
    report
}

fn replay_play(board: &Board, alphabet: Alphabet, coordinate: &str, word: &str) -> Result<Play, String> {
    let (dir, row, col) = parse_coordinate(coordinate).map_err(|e| e.to_string())?;
    let tiles = parse_tiles(word, alphabet, 0).map_err(|e| e.to_string())?;
    let play = Play::new(dir, row, col, &tiles).map_err(|e| e.to_string())?;
    play.normalized(board).map_err(|ps| ps.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))
}

/// Why a record could not be replayed into a game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("GCG line {line}: {reason}")]
pub struct ImportError {
    pub line: usize,
    pub reason: String,
}

/// Replay a record into a live game: each move line's rack is given to its player, its move is
/// made through the game's own methods (scores recomputed by the engine), a withdrawal is a
/// successful challenge by the next seat, a challenge bonus a failed one. End-of-game and
/// penalty lines are left to the engine. The result is the finished game, or one that can be
/// resumed from where the record stops. `config.seats` must equal the record's players.
pub fn import_game(rec: &Record, config: super::GameConfig) -> Result<Game, ImportError> {
    use super::Action;
    let alphabet = config.rules.alphabet;
    let seats = config.seats;
    let mut game = Game::new(config).map_err(|e| ImportError { line: 0, reason: e.to_string() })?;
    let seat_of = |nick: &str| rec.players.iter().position(|p| p.nick == nick);
    let mut now = 0u64;
    for m in &rec.moves {
        let fail = |reason: String| ImportError { line: m.line, reason };
        let seat = seat_of(&m.nick).ok_or_else(|| fail(format!("unknown player {}", m.nick)))?;
        now += 1000;
        if game.is_over() {
            if matches!(m.kind, MoveKind::EndRack { .. } | MoveKind::TimePenalty) {
                continue;
            }
            return Err(fail("the game is already over".into()));
        }
        let is_move = matches!(m.kind, MoveKind::Play { .. } | MoveKind::Pass | MoveKind::Exchange { .. });
        if is_move && let Some(rack) = &m.rack {
            let r = Rack::parse(rack, alphabet).map_err(|e| fail(e.to_string()))?;
            game.stack_rack(seat, &r).map_err(|e| fail(e.to_string()))?;
        }
        match &m.kind {
            MoveKind::Play { coordinate, word } => {
                let play = replay_play(game.board(), alphabet, coordinate, word).map_err(fail)?;
                game.act(seat, Action::Play(play), now).map_err(|e| fail(e.to_string()))?;
            }
            MoveKind::Pass => game.act(seat, Action::Pass, now).map_err(|e| fail(e.to_string()))?,
            MoveKind::Exchange { tiles } => {
                let rack = game.rack(seat).copied().unwrap_or_default();
                let throw = match tiles.parse::<usize>() {
                    // Only a count: which tiles went back is unknown, any will do.
                    Ok(n) => {
                        let mut t = Rack::new();
                        for x in rack.tiles().take(n) {
                            match x {
                                Some(l) => t.add(l),
                                None => t.add_blank(),
                            }
                        }
                        t
                    }
                    Err(_) => Rack::parse(tiles, alphabet).map_err(|e| fail(e.to_string()))?,
                };
                game.act(seat, Action::Exchange(throw), now).map_err(|e| fail(e.to_string()))?;
            }
            MoveKind::Withdrawn | MoveKind::ChallengeBonus => {
                let challenger = (1..seats).map(|k| (seat + k) % seats).next().unwrap_or(0);
                game.challenge(challenger, now).map_err(|e| fail(e.to_string()))?;
            }
            // The record counts the racks: the play that went out was accepted.
            MoveKind::EndRack { .. } if game.awaiting_final_challenge() => {
                let next = game.to_move();
                game.act(next, Action::Pass, now).map_err(|e| fail(e.to_string()))?;
            }
            MoveKind::EndRack { .. } | MoveKind::TimePenalty => {}
        }
    }
    Ok(game)
}
