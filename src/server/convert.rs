//! Proto ↔ domain conversion of values that carry no secret (the engine's, and a tournament's:
//! its rounds' methods, a division's controls, the games' settings). What a viewer may see of a game
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
use dawgref_events::{ClockSettings, GameOptions, GameSettings, Invalid, ReportsMode};
use dawgref_tournament::ratings::RatingSystem;
use dawgref_tournament::{Controls, Method};
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

// A tournament's values: its rounds' methods, a division's controls, the games' settings.

/// Each round's method as the wire gives it at `field` (unspecified: Swiss), an unknown method
/// refused; whether a division can pair by it is the events layer's to say.
pub fn methods_from(field: &str, specs: &[pb::RoundSpec]) -> Result<Vec<Method>, Status> {
    let method = |(k, spec): (usize, &pb::RoundSpec)| {
        let wire = pb::PairingMethod::try_from(spec.method).map_err(|_| {
            errors::bad_field(&format!("{field}[{k}].method"), format!("{}: no such method", spec.method))
        })?;
        Ok(match wire {
            pb::PairingMethod::Unspecified | pb::PairingMethod::Swiss => Method::Swiss,
            pb::PairingMethod::RoundRobin => Method::RoundRobin,
            pb::PairingMethod::KingOfTheHill => Method::KingOfTheHill,
            pb::PairingMethod::Factor => Method::Factor(spec.factor),
            pb::PairingMethod::InitialFontes => Method::InitialFontes(spec.fontes_rounds),
            pb::PairingMethod::Random => Method::Random,
            pb::PairingMethod::Manual => Method::Manual,
        })
    };
    specs.iter().enumerate().map(method).collect()
}

/// A round's method as the wire shows it.
pub fn round_spec(method: Method) -> pb::RoundSpec {
    let of = |m: pb::PairingMethod| pb::RoundSpec { method: m as i32, ..Default::default() };
    match method {
        Method::RoundRobin => of(pb::PairingMethod::RoundRobin),
        Method::Swiss => of(pb::PairingMethod::Swiss),
        Method::KingOfTheHill => of(pb::PairingMethod::KingOfTheHill),
        Method::Factor(factor) => pb::RoundSpec { factor, ..of(pb::PairingMethod::Factor) },
        Method::InitialFontes(fontes_rounds) => {
            pb::RoundSpec { fontes_rounds, ..of(pb::PairingMethod::InitialFontes) }
        }
        Method::Random => of(pb::PairingMethod::Random),
        Method::Manual => of(pb::PairingMethod::Manual),
    }
}

/// The wire's rating systems, each with the one it names (unspecified: none).
const RATING_SYSTEMS: [(pb::RatingSystem, RatingSystem); 5] = [
    (pb::RatingSystem::Unspecified, RatingSystem::None),
    (pb::RatingSystem::Nsa2008, RatingSystem::Nsa2008),
    (pb::RatingSystem::Naspa2024, RatingSystem::Naspa2024),
    (pb::RatingSystem::NaspaClub, RatingSystem::NaspaClub),
    (pb::RatingSystem::Absp, RatingSystem::Absp),
];

/// A rating system as the wire numbers it.
pub fn rating_system_to(system: RatingSystem) -> pb::RatingSystem {
    RATING_SYSTEMS.iter().find(|(_, s)| *s == system).map_or(pb::RatingSystem::Unspecified, |(w, _)| *w)
}

/// How a division takes its players' reports, as the wire gives it at `field` (unspecified:
/// `unset`, or refused when None).
pub fn reports_from(field: &str, wire: i32, unset: Option<ReportsMode>) -> Result<ReportsMode, Status> {
    match pb::ResultReports::try_from(wire) {
        Ok(pb::ResultReports::Unspecified) => unset.ok_or_else(|| errors::invalid(Invalid::NoReportsMode)),
        Ok(pb::ResultReports::Off) => Ok(ReportsMode::Off),
        Ok(pb::ResultReports::BothAgree) => Ok(ReportsMode::BothAgree),
        Ok(pb::ResultReports::OneSuffices) => Ok(ReportsMode::OneSuffices),
        Err(_) => Err(errors::bad_field(field, format!("{wire}: not a ResultReports"))),
    }
}

/// How a division takes its players' reports, as the wire numbers it.
pub fn reports_to(mode: ReportsMode) -> pb::ResultReports {
    match mode {
        ReportsMode::Off => pb::ResultReports::Off,
        ReportsMode::BothAgree => pb::ResultReports::BothAgree,
        ReportsMode::OneSuffices => pb::ResultReports::OneSuffices,
    }
}

/// A division's controls as the wire gives them at `field` (an unknown rating system refused):
/// unset spreads are the crate's defaults (North American play), the seed the layer's to draw.
pub fn controls_from(field: &str, c: pb::DivisionControls) -> Result<Controls, Status> {
    let wire = pb::RatingSystem::try_from(c.rating_system).map_err(|_| {
        let why = format!("{}: not a RatingSystem", c.rating_system);
        errors::bad_field(&format!("{field}.rating_system"), why)
    })?;
    let unset = Controls::default();
    Ok(Controls {
        bye_spread: c.bye_spread.unwrap_or(unset.bye_spread),
        forfeit_spread: c.forfeit_spread.unwrap_or(unset.forfeit_spread),
        spread_cap: c.spread_cap,
        gibson_spread: c.gibsonize.then_some(c.gibson_spread),
        min_placement: c.min_placement.max(1),
        seed: 0,
        rating_system: RATING_SYSTEMS
            .iter()
            .find(|(w, _)| *w == wire)
            .map_or(RatingSystem::None, |(_, s)| *s),
    })
}

/// A division's controls as they apply (a spread left unset shows the default it is).
pub fn controls_to(c: &Controls) -> pb::DivisionControls {
    pb::DivisionControls {
        bye_spread: Some(c.bye_spread),
        forfeit_spread: Some(c.forfeit_spread),
        spread_cap: c.spread_cap,
        gibsonize: c.gibson_spread.is_some(),
        gibson_spread: c.gibson_spread.unwrap_or(0),
        min_placement: c.min_placement,
        rating_system: rating_system_to(c.rating_system) as i32,
    }
}

/// The wire's options as a game's settings keep them.
pub fn options_from(o: pb::GameOptions) -> GameOptions {
    GameOptions {
        bonus_per_challenge: o.bonus_per_challenge,
        reveal_invalid_words: o.reveal_invalid_words,
        blank_scores_letter: o.blank_scores_letter,
        no_repeated_words: o.no_repeated_words,
        scoreless_turn_limit: o.scoreless_turn_limit,
        exchange_limit: o.exchange_limit,
    }
}

/// The wire's clock as a game's settings keep it.
pub fn clock_from(c: pb::ClockSpec) -> ClockSettings {
    ClockSettings {
        initial_ms: c.initial_ms,
        increment_ms: c.increment_ms,
        max_overtime_ms: c.max_overtime_ms,
        penalty_per_minute: c.penalty_per_minute,
        per_move_ms: c.per_move_ms,
    }
}

/// A tournament's game settings as the wire gives them: the ruleset and the challenge rule by
/// what they are (None where the call does not say), as CreateGame reads them.
pub fn settings_from(g: &pb::TournamentGameSettings) -> Result<GameSettings, HostError> {
    let named = g.ruleset != 0 || !g.ruleset_name.is_empty();
    Ok(GameSettings {
        ruleset: named.then(|| ruleset_named(g.ruleset, &g.ruleset_name, "ruleset")).transpose()?,
        lexicon: g.lexicon.clone(),
        challenge: (g.challenge_rule != 0).then(|| challenge_from(g.challenge_rule)).transpose()?,
        options: g.options.map(options_from),
        clock: g.clock.map(clock_from),
        bot_delay_ms: g.bot_delay_ms,
    })
}

/// A tournament's game settings as the director gave them: a ruleset named by its enum where it
/// has one and by its name always (as a game's view names it), what was not said unspecified.
pub fn settings_to(g: &GameSettings) -> pb::TournamentGameSettings {
    pb::TournamentGameSettings {
        ruleset: g.ruleset.map_or(0, |k| ruleset_to(k) as i32),
        ruleset_name: g.ruleset.map(|k| k.name().to_string()).unwrap_or_default(),
        lexicon: g.lexicon.clone(),
        challenge_rule: g.challenge.map_or(0, |c| challenge_to(c) as i32),
        options: g.options.map(|o| pb::GameOptions {
            bonus_per_challenge: o.bonus_per_challenge,
            reveal_invalid_words: o.reveal_invalid_words,
            blank_scores_letter: o.blank_scores_letter,
            no_repeated_words: o.no_repeated_words,
            scoreless_turn_limit: o.scoreless_turn_limit,
            exchange_limit: o.exchange_limit,
        }),
        clock: g.clock.map(|c| pb::ClockSpec {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            max_overtime_ms: c.max_overtime_ms,
            penalty_per_minute: c.penalty_per_minute,
            per_move_ms: c.per_move_ms,
        }),
        bot_delay_ms: g.bot_delay_ms,
    }
}
