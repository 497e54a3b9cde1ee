//! Proto ↔ engine conversion of values that carry no secret. What a viewer may see of a game
//! (views, events, records) is decided by the host's privacy policy and written in `views`, not here.

use super::errors;
use crate::alphabet::{Alphabet, tile_is_blank, tile_letter};
use crate::board::{Board, Direction};
use crate::bot::BotLevel;
use crate::game::{ChallengeRule, EndReason};
use crate::host::{HostError, PlayInput, TileInput, TileRef};
use crate::notation::format_play;
use crate::play::{Play, Problem};
use crate::proto::v1 as pb;
use crate::rules::RulesetKind;
use crate::score::Evaluation;
use tonic::Status;

/// The wire enum's rulesets, each with the one it names: the only mapping between the two,
/// read one way by [`ruleset_from`] and the other by [`ruleset_to`]. Unspecified names none.
fn wire_rulesets() -> [(pb::Ruleset, RulesetKind); 3] {
    let [english, russian, erudit] = RulesetKind::classic();
    [(pb::Ruleset::English, english), (pb::Ruleset::Russian, russian), (pb::Ruleset::Erudit, erudit)]
}

/// The ruleset the enum names; unspecified is English, the ruleset played when nothing says.
pub fn ruleset_from(v: i32) -> Result<RulesetKind, HostError> {
    let wire =
        pb::Ruleset::try_from(v).map_err(|_| HostError::field("ruleset", format!("unknown ruleset {v}")))?;
    Ok(wire_rulesets().into_iter().find(|&(w, _)| w == wire).map_or(RulesetKind::english(), |(_, k)| k))
}

/// A request's ruleset: `ruleset_name` when given (it must agree with the enum when both are),
/// else the enum. `field` names the enum's field in errors.
pub fn ruleset_named(v: i32, name: &str, field: &str) -> Result<RulesetKind, HostError> {
    let by_enum = ruleset_from(v)?;
    if name.is_empty() {
        return Ok(by_enum);
    }
    let named = RulesetKind::by_name(name).ok_or_else(|| {
        HostError::field(
            format!("{field}_name"),
            format!("{} (ListRulesets)", crate::rules::UnknownRuleset(name.into())),
        )
    })?;
    if v != 0 && named != by_enum {
        return Err(HostError::field(
            format!("{field}_name"),
            format!("{named} disagrees with {field} {by_enum}; give one, or the same ruleset twice"),
        ));
    }
    Ok(named)
}

/// The enum of a ruleset: one of the three, else unspecified (its name says which).
pub fn ruleset_to(k: RulesetKind) -> pb::Ruleset {
    wire_rulesets().into_iter().find(|&(_, c)| c == k).map_or(pb::Ruleset::Unspecified, |(w, _)| w)
}

pub fn challenge_from(v: i32) -> Result<ChallengeRule, HostError> {
    use pb::ChallengeRule as P;
    match P::try_from(v) {
        Ok(P::Unspecified | P::Single) => Ok(ChallengeRule::Single),
        Ok(P::Void) => Ok(ChallengeRule::Void),
        Ok(P::Double) => Ok(ChallengeRule::Double),
        Ok(P::FivePoint) => Ok(ChallengeRule::FivePoint),
        Ok(P::TenPoint) => Ok(ChallengeRule::TenPoint),
        Ok(P::Triple) => Ok(ChallengeRule::Triple),
        Err(_) => Err(HostError::field("challenge_rule", format!("unknown challenge rule {v}"))),
    }
}

pub fn challenge_to(r: ChallengeRule) -> pb::ChallengeRule {
    match r {
        ChallengeRule::Void => pb::ChallengeRule::Void,
        ChallengeRule::Single => pb::ChallengeRule::Single,
        ChallengeRule::Double => pb::ChallengeRule::Double,
        ChallengeRule::FivePoint => pb::ChallengeRule::FivePoint,
        ChallengeRule::TenPoint => pb::ChallengeRule::TenPoint,
        ChallengeRule::Triple => pb::ChallengeRule::Triple,
    }
}

/// A bot level as the wire names it.
pub fn bot_to(level: BotLevel) -> pb::BotLevel {
    match level {
        BotLevel::Weak => pb::BotLevel::Weak,
        BotLevel::Greedy => pb::BotLevel::Greedy,
        BotLevel::Strong => pb::BotLevel::Strong,
        BotLevel::Champion => pb::BotLevel::Champion,
    }
}

pub fn bot_from(v: i32) -> Result<BotLevel, Status> {
    match pb::BotLevel::try_from(v) {
        Ok(pb::BotLevel::Unspecified | pb::BotLevel::Strong) => Ok(BotLevel::Strong),
        Ok(pb::BotLevel::Weak) => Ok(BotLevel::Weak),
        Ok(pb::BotLevel::Greedy) => Ok(BotLevel::Greedy),
        Ok(pb::BotLevel::Champion) => Ok(BotLevel::Champion),
        Err(_) => Err(errors::bad_field("seats.bot", format!("unknown bot level {v}"))),
    }
}

pub fn mode_from(v: i32) -> Result<crate::movegen::Mode, Status> {
    match pb::Direction::try_from(v) {
        Ok(pb::Direction::Unspecified | pb::Direction::Both) => Ok(crate::movegen::Mode::Both),
        Ok(pb::Direction::Across) => Ok(crate::movegen::Mode::Across),
        Ok(pb::Direction::Down) => Ok(crate::movegen::Mode::Down),
        Err(_) => Err(errors::bad_field("mode", format!("unknown direction {v}"))),
    }
}

fn direction_to(d: Direction) -> pb::Direction {
    match d {
        Direction::Across => pb::Direction::Across,
        Direction::Down => pb::Direction::Down,
    }
}

pub fn board_to(board: &Board) -> pb::Board {
    let a = board.rules().alphabet;
    let grid = board.grid();
    let rows = grid.chunks(board.size()).map(|row| a.write_tiles(row.iter().copied())).collect();
    pb::Board { rows, grid: grid.to_vec() }
}

/// A play as notation plus its new tiles.
pub fn play_to(play: &Play, alphabet: Alphabet) -> pb::Play {
    pb::Play {
        notation: format_play(play, alphabet),
        tiles: play
            .placements()
            .map(|p| pb::Tile {
                row: p.row as u32,
                col: p.col as u32,
                letter: alphabet.label(tile_letter(p.tile)).to_string(),
                blank: tile_is_blank(p.tile),
            })
            .collect(),
    }
}

/// A play from the request: its notation when given, else its tiles, read against `board`.
pub fn play_from(p: &pb::Play, board: &Board) -> Result<Play, Status> {
    let tiles = p.tiles.iter().map(|t| TileRef { letter: &t.letter, row: t.row, col: t.col, blank: t.blank });
    crate::host::play_input(board, &p.notation, tiles).map_err(errors::input)
}

/// A play from a turn request, handed to the host as it was written.
pub fn play_input(p: pb::Play) -> PlayInput {
    PlayInput {
        notation: p.notation,
        tiles: p
            .tiles
            .into_iter()
            .map(|t| TileInput { letter: t.letter, row: t.row, col: t.col, blank: t.blank })
            .collect(),
    }
}

pub fn problem_to(p: &Problem) -> pb::Problem {
    use pb::ProblemCode as C;
    let mut out = pb::Problem { message: p.to_string(), ..Default::default() };
    let (code, square) = match p {
        Problem::OffBoard { row, col } => (C::OffBoard, Some((*row, *col))),
        Problem::NoTiles => (C::NoTiles, None),
        Problem::NotInLine => (C::NotInLine, None),
        Problem::Gap { row, col } => (C::Gap, Some((*row, *col))),
        Problem::SquareTaken { row, col } => (C::SquareTaken, Some((*row, *col))),
        Problem::DuplicateSquare { row, col } => (C::DuplicateSquare, Some((*row, *col))),
        Problem::BadTile { row, col } => (C::BadTile, Some((*row, *col))),
        Problem::NotConnected => (C::NotConnected, None),
        Problem::FirstPlayNotOnStart { row, col } => (C::FirstPlayNotOnCentre, Some((*row, *col))),
        Problem::FirstPlayOneTile => (C::FirstPlayOneTile, None),
        Problem::NotOnRack { missing } => {
            out.tiles = missing.clone();
            (C::NotOnRack, None)
        }
        Problem::BlankNotDesignated => (C::BlankNotDesignated, None),
        Problem::WordsNotInLexicon { words } => {
            out.words = words.clone();
            (C::WordsNotInLexicon, None)
        }
        Problem::RepeatedWords { words } => {
            out.words = words.clone();
            (C::RepeatedWords, None)
        }
    };
    out.code = code as i32;
    if let Some((r, c)) = square {
        out.row = Some(r as u32);
        out.col = Some(c as u32);
    }
    out
}

pub fn evaluation_to(play: &Play, e: &Evaluation, alphabet: Alphabet) -> pb::Evaluation {
    pb::Evaluation {
        play: Some(play_to(play, alphabet)),
        words: e
            .words
            .iter()
            .map(|w| pb::WordScore {
                word: w.tiles.iter().map(|&t| alphabet.label(tile_letter(t))).collect(),
                direction: direction_to(w.dir) as i32,
                row: w.row as u32,
                col: w.col as u32,
                base: w.base,
                word_multiplier: w.word_multiplier,
                score: w.score,
            })
            .collect(),
        tiles: e
            .tiles
            .iter()
            .map(|t| pb::TileScore {
                row: t.row as u32,
                col: t.col as u32,
                letter: alphabet.label(tile_letter(t.tile)).to_string(),
                blank: tile_is_blank(t.tile),
                new: t.new,
                face: t.face,
                letter_multiplier: t.letter_multiplier,
            })
            .collect(),
        bonus: e.bonus,
        total: e.total,
    }
}

pub fn end_reason(r: EndReason) -> String {
    match r {
        EndReason::WentOut(s) => format!("seat {s} went out"),
        EndReason::ScorelessTurns => "scoreless turns".to_string(),
        EndReason::Resigned(s) => format!("seat {s} resigned"),
        EndReason::OutOfTime(s) => format!("seat {s} ran out of time"),
        EndReason::LostChallenge(s) => format!("seat {s} lost the challenge"),
        EndReason::Forfeit(s) => format!("seat {s} forfeited (director)"),
        EndReason::Adjudicated => "adjudicated (director)".to_string(),
        EndReason::Voided => "void (director)".to_string(),
    }
}

/// A page size or result limit as a request gives it (AIP-158): 0 means `default`, and one
/// above the documented `max` is served as `max`, not refused.
pub fn page_size(given: u32, default: u32, max: u32) -> u32 {
    if given == 0 { default } else { given.min(max) }
}
