//! Games as GCG records: writing a game's history, and replaying a record — ours, macondo's or
//! Quackle's — recomputing every score, so that a record whose written figures differ from the
//! rules is reported line by line instead of being accepted.

use super::{Action, EventKind, Game, MAX_TIME_PENALTY};
use crate::alphabet::Alphabet;
use crate::board::Board;
use crate::lexicon::Lexicon;
use crate::notation::gcg::{MoveKind, MoveLine, Record};
use crate::notation::{format_play, parse_coordinate, parse_tiles, tiles_read};
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::Ruleset;
use crate::score::evaluate_normalized;
use crate::script::guess_alphabet;
use std::fmt::Write as _;
use std::sync::Arc;

/// Write a game as GCG (macondo dialect). `names[seat]` are the players' display names.
pub fn write_gcg(game: &Game, names: &[String]) -> String {
    write_gcg_for(game, names, &|_| true, true)
}

/// The longest nickname written in a record, in characters.
const NICK_CHARS: usize = 24;

/// Nicknames for a record's players, from their display names: one word of letters, digits,
/// `_`, `-` and `.` (anything else becomes `_`, so no `:` or space can break a move line), at
/// most [`NICK_CHARS`] characters, `seatN` for an empty name, and unique (a repeat gets `_N`,
/// N its seat). Whatever the names, the record reads back with one nickname per seat.
pub fn nicknames(names: &[String]) -> Vec<String> {
    let mut nicks: Vec<String> = Vec::with_capacity(names.len());
    for (seat, name) in names.iter().enumerate() {
        let mut nick: String = name
            .chars()
            .map(|c| if c.is_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
            .take(NICK_CHARS)
            .collect();
        if nick.is_empty() {
            nick = format!("seat{seat}");
        }
        while nicks.contains(&nick) {
            nick = format!("{nick}_{seat}");
        }
        nicks.push(nick);
    }
    nicks
}

/// A display name as a `#player` line may carry it: one line, no control characters.
fn pragma_name(name: &str, nick: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let clean = clean.split_whitespace().collect::<Vec<_>>().join(" ");
    if clean.is_empty() { nick.to_string() } else { clean }
}

/// Write a game as GCG showing the racks of the seats `shown` accepts. For the others, move
/// lines carry no rack (GCG allows that) and exchanges give only the number of tiles (`-3`):
/// what the seat drew and kept stays theirs. Seats are named by [`nicknames`] of `names`.
/// Turns the director took back are left out; the director's actions are `#note director: …`
/// lines (`#note director (name): …` for a director key's) where they happened (a score
/// adjustment shows in the totals that follow it), and each
/// challenge is a `#note challenge: …` line naming every word with its verdict when `verdicts`
/// (otherwise only the play's verdict).
pub fn write_gcg_for(game: &Game, names: &[String], shown: &dyn Fn(usize) -> bool, verdicts: bool) -> String {
    let cfg = game.config();
    let alphabet = cfg.rules.alphabet;
    let mut names = names.to_vec();
    names.resize(cfg.seats, String::new());
    let nicks = nicknames(&names);
    let nick = |s: usize| nicks[s].clone();
    let mut out = String::from("#character-encoding UTF-8\n");
    for (s, name) in names.iter().enumerate() {
        let _ = writeln!(out, "#player{} {} {}", s + 1, nicks[s], pragma_name(name, &nicks[s]));
    }
    let _ = writeln!(out, "#lexicon {}", cfg.lexicon.name());
    let _ = writeln!(
        out,
        "#description dawgref ruleset {} challenge {} seed {}",
        cfg.rules.kind, cfg.challenge, cfg.seed
    );
    for e in game.history().iter().filter(|e| !e.undone) {
        if let Some(note) = director_note(e, &nick(e.seat), alphabet, verdicts) {
            let _ = writeln!(out, "#note {note}");
            continue;
        }
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
            | EventKind::GameOver { .. }
            | EventKind::Paused
            | EventKind::Resumed
            | EventKind::ScoreAdjusted { .. }
            | EventKind::ClockAdjusted { .. }
            | EventKind::TurnUndone { .. }
            | EventKind::Note { .. } => {
                continue;
            }
        };
        let sign = if e.points >= 0 { "+" } else { "" };
        let _ = writeln!(out, ">{}: {}{} {}{} {}", nick(e.seat), rack, body, sign, e.points, e.cumulative);
    }
    out
}

/// The `#note` a record writes for a director's event or a challenge (one line).
fn director_note(e: &super::Event, nick: &str, alphabet: Alphabet, verdicts: bool) -> Option<String> {
    let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let _ = alphabet;
    // `director:` for the root director, `director (name):` for a director key.
    let director = match &e.director {
        Some(name) => format!("director ({name}):"),
        None => "director:".to_string(),
    };
    Some(match &e.kind {
        EventKind::Paused => format!("{director} game paused"),
        EventKind::Resumed => format!("{director} game resumed"),
        EventKind::ScoreAdjusted { reason } => {
            format!("{director} {nick} score {:+} ({}), total {}", e.points, one_line(reason), e.cumulative)
        }
        EventKind::ClockAdjusted { delta_ms, reason } => {
            format!("{director} {nick} clock {:+} ms ({})", delta_ms, one_line(reason))
        }
        EventKind::TurnUndone { .. } => format!("{director} the last turn was taken back"),
        EventKind::Note { text } => format!("{director} {}", one_line(text)),
        // GCG has no move line for these; a reader of ours takes the resignation back in.
        EventKind::Resign => format!("{nick} resigned"),
        EventKind::OutOfTime => format!("{nick} lost on time"),
        EventKind::Challenged { acceptable, words, .. } => {
            let verdict = if *acceptable { "acceptable" } else { "not acceptable" };
            if verdicts {
                let each: Vec<String> = words
                    .iter()
                    .map(|(w, ok)| format!("{w} {}", if *ok { "valid" } else { "invalid" }))
                    .collect();
                format!("challenge: {nick}'s play {verdict}: {}", each.join(", "))
            } else {
                format!("challenge: {nick}'s play {verdict}")
            }
        }
        _ => return None,
    })
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

impl CheckReport {
    /// Hold the written final totals against `scores`, the game the record was imported into:
    /// when no line explains a difference, the player's last line is one more mismatch.
    pub fn reconcile_finals(&mut self, rec: &Record, scores: &[i32]) {
        if !self.mismatches.is_empty() {
            return;
        }
        for ((nick, total), &score) in self.finals.iter().zip(scores) {
            if *total != score
                && let Some(last) = rec.moves.iter().rev().find(|m| &m.nick == nick)
            {
                self.mismatches.push(Mismatch {
                    line: last.line,
                    text: last.text.clone(),
                    recorded: (last.score, last.cumulative),
                    recomputed: (last.score, score),
                    note: Some(format!("the replayed game ends with {score} for {nick}")),
                });
            }
        }
    }
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
            MoveKind::Pass => 0,
            MoveKind::Exchange { tiles } => {
                if let Some(n) = exchange_count(tiles)
                    && !(1..=rules.rack_size).contains(&n)
                {
                    note = Some(format!("an exchange of {n} tiles: a rack holds {}", rules.rack_size));
                }
                0
            }
            MoveKind::ChallengeBonus => m.score,
            // Counted as written when it can be a time penalty; else not at all.
            MoveKind::TimePenalty if (-MAX_TIME_PENALTY..=0).contains(&m.score) => m.score,
            MoveKind::TimePenalty => {
                note = Some(format!("a time penalty is 0 to -{MAX_TIME_PENALTY} points"));
                0
            }
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

/// The count of an exchange written as a number of tiles (`-3`); None when it names tiles. A
/// count too large for any type is `usize::MAX`: still a count, and refused as one.
fn exchange_count(tiles: &str) -> Option<usize> {
    (!tiles.is_empty() && tiles.bytes().all(|b| b.is_ascii_digit()))
        .then(|| tiles.parse().unwrap_or(usize::MAX))
}

fn replay_play(board: &Board, alphabet: Alphabet, coordinate: &str, word: &str) -> Result<Play, String> {
    let (dir, row, col) = parse_coordinate(coordinate).map_err(|e| e.to_string())?;
    let tiles = parse_tiles(word, alphabet, 0).map_err(|e| e.to_string())?;
    let play = Play::new(dir, row, col, &tiles).map_err(|e| e.to_string())?;
    play.normalized(board).map_err(|ps| ps.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; "))
}

/// The ruleset of a record that does not say: the one a dawgref export names in its
/// description (when its tiles are the lexicon's), else its lexicon's (`lexicon`: the alphabet
/// of the lexicon the record names, when it is one of ours), else the first of the alphabet its
/// tiles are in ([`guess_alphabet`]:
/// Spanish for a record with Ñ or `[CH]`, Скрэббл for Cyrillic unless the record says Эрудит,
/// English for A to Z). None when no ruleset's tiles spell its plays and racks.
pub fn guess_ruleset(record: &Record, lexicon: Option<Alphabet>) -> Option<crate::rules::RulesetKind> {
    use crate::rules::RulesetKind;
    // The record's own word first (Super English and English share a lexicon: only the record
    // can tell them apart), when it agrees with the lexicon's tiles.
    let described = record.pragmas.iter().filter(|(k, _)| k == "description").find_map(|(_, v)| {
        let mut words = v.split_whitespace();
        words.find(|w| *w == "ruleset")?;
        words.next()?.parse::<RulesetKind>().ok()
    });
    if let Some(kind) = described
        && lexicon.is_none_or(|a| a == kind.alphabet())
    {
        return Some(kind);
    }
    if let Some(alphabet) = lexicon {
        // The first ruleset of the lexicon's alphabet: the shipped ones are registered first.
        if let Some(kind) = RulesetKind::of_alphabet(alphabet) {
            return Some(kind);
        }
    }
    // Tiles as the record spells them: a play's word (`.` played through, lower case a blank),
    // else a rack, an exchange's or the end's tiles.
    let spelled: Vec<(bool, &str)> = record
        .moves
        .iter()
        .flat_map(|m| {
            let tiles = match &m.kind {
                MoveKind::Play { word, .. } => Some((true, word.as_str())),
                MoveKind::Exchange { tiles } if exchange_count(tiles).is_none() => {
                    Some((false, tiles.as_str()))
                }
                MoveKind::EndRack { rack } => Some((false, rack.as_str())),
                _ => None,
            };
            tiles.into_iter().chain(m.rack.as_deref().map(|r| (false, r)))
        })
        .collect();
    let alphabet = guess_alphabet(
        &spelled,
        |&(_, text)| text,
        |alphabet, &(play, text)| tiles_read(alphabet, play, text),
    )?;
    Some(RulesetKind::for_alphabet(alphabet))
}

/// The challenge rule a record was played under, when nobody says: 5pt or 10pt when it has a
/// challenge bonus line of that size, else single.
pub fn guess_challenge(record: &Record) -> super::ChallengeRule {
    use super::ChallengeRule;
    match record.moves.iter().find(|m| m.kind == MoveKind::ChallengeBonus).map(|m| m.score) {
        Some(10) => ChallengeRule::TenPoint,
        Some(_) => ChallengeRule::FivePoint,
        None => ChallengeRule::Single,
    }
}

/// What an importer asks of a record's game; None: as the record suggests.
#[derive(Clone, Debug, Default)]
pub struct ImportAsk {
    pub ruleset: Option<crate::rules::RulesetKind>,
    /// A lexicon by name.
    pub lexicon: Option<String>,
    pub challenge: Option<super::ChallengeRule>,
}

/// Why a record's game could not be set up: a lexicon asked for that is not there or does not
/// fit the ruleset, or a record that is no game (its players).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Lexicon(String),
    #[error("{0}")]
    Record(String),
}

/// A record's game as every importer sets it up (ImportGcg, `dawgref analyze`, the lab, the
/// fuzzer): the ruleset asked for, else guessed from the record (its own lexicon's alphabet
/// helping); the lexicon asked for, else the record's own when `find` has it and it fits the
/// ruleset, else the ruleset's default; one seat per player (2 to 4); one bonus per failed
/// challenge, as the field's records score it; the challenge rule asked for, else guessed.
/// Then [`import_game`] replays it.
pub fn import_setup(
    record: &Record,
    ask: &ImportAsk,
    find: impl Fn(&str) -> Option<Arc<Lexicon>>,
) -> Result<super::GameConfig, SetupError> {
    let own = record.lexicon.as_deref().and_then(&find);
    let kind = match ask.ruleset {
        Some(kind) => kind,
        None => guess_ruleset(record, own.as_deref().map(|l| l.alphabet())).ok_or_else(|| {
            SetupError::Record("no ruleset's tiles spell the record's plays: name its ruleset".into())
        })?,
    };
    let rules = Arc::new(Ruleset::new(kind));
    let lexicon = match (&ask.lexicon, own) {
        (Some(name), _) => find(name)
            .ok_or_else(|| SetupError::Lexicon(format!("unknown lexicon {:?}", crate::text::clip(name))))?,
        (None, Some(l)) if l.alphabet() == rules.alphabet => l,
        _ => find(rules.default_lexicon).ok_or_else(|| {
            SetupError::Lexicon(format!(
                "the {kind} ruleset's lexicon {} is not loaded",
                rules.default_lexicon
            ))
        })?,
    };
    if lexicon.alphabet() != rules.alphabet {
        return Err(SetupError::Lexicon(format!("{} does not fit the {kind} ruleset", lexicon.name())));
    }
    if !(2..=4).contains(&record.players.len()) {
        return Err(SetupError::Record(format!("{} players: a game has 2 to 4", record.players.len())));
    }
    let mut config = super::GameConfig::new(rules, lexicon, 0);
    config.seats = record.players.len();
    config.bonus_per_word = false;
    config.challenge = ask.challenge.unwrap_or_else(|| guess_challenge(record));
    Ok(config)
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
    let alphabet = config.rules.alphabet;
    let seats = config.seats;
    let mut config = config;
    config.doubled_end_rack = seats == 2 && doubles_end_rack(rec, &config.rules);
    let mut game = Game::new(config).map_err(|e| ImportError { line: 0, reason: e.to_string() })?;
    let seat_of = |nick: &str| rec.players.iter().position(|p| p.nick == nick);
    let (last_move, counted) = end_counted_racks(rec, seat_of);
    let mut now = 0u64;
    for (i, m) in rec.moves.iter().enumerate() {
        let fail = |reason: String| ImportError { line: m.line, reason };
        let seat = seat_of(&m.nick)
            .ok_or_else(|| fail(format!("unknown player {:?}", crate::text::clip(&m.nick))))?;
        now += 1000;
        if let MoveKind::TimePenalty = m.kind {
            // An implausible penalty is not counted (the check reports its line).
            if (-MAX_TIME_PENALTY..=0).contains(&m.score) {
                game.record_time_penalty(seat, -m.score, now).map_err(|e| fail(e.to_string()))?;
            }
            continue;
        }
        if game.is_over() {
            if matches!(m.kind, MoveKind::EndRack { .. }) {
                continue;
            }
            return Err(fail("the game is already over".into()));
        }
        let is_move = matches!(m.kind, MoveKind::Play { .. } | MoveKind::Pass | MoveKind::Exchange { .. });
        if is_move {
            match &m.rack {
                Some(rack) => {
                    let r = Rack::parse(rack, alphabet).map_err(|e| fail(e.to_string()))?;
                    game.stack_rack(seat, &r).map_err(|e| fail(e.to_string()))?;
                }
                None => hold_unseen_rack(&mut game, seat, m).map_err(fail)?,
            }
        }
        if Some(i) == last_move {
            // A pass keeps the rack the end counts; a play or an exchange changes it.
            let mover_counted = matches!(m.kind, MoveKind::Pass);
            give_counted_racks(&mut game, seat, mover_counted, &counted);
        }
        replay_line(&mut game, m, seat, now).map_err(fail)?;
    }
    if let Some(nick) = &rec.resigned
        && !game.is_over()
    {
        let fail = |reason: String| ImportError { line: rec.moves.last().map_or(0, |m| m.line), reason };
        let seat = seat_of(nick)
            .ok_or_else(|| fail(format!("unknown player {:?} resigned", crate::text::clip(nick))))?;
        game.act(seat, Action::Resign, now + 1000).map_err(|e| fail(e.to_string()))?;
    }
    Ok(game)
}

/// Whether a two-player record gives the player who went out twice the other rack: it keeps its
/// own totals, so the game counts the end the same way.
fn doubles_end_rack(rec: &Record, rules: &Ruleset) -> bool {
    rec.moves.iter().any(|m| match &m.kind {
        MoveKind::EndRack { rack } if m.score > 0 => {
            Rack::parse(rack, rules.alphabet).is_ok_and(|r| m.score == 2 * rules.rack_total(&r))
        }
        _ => false,
    })
}

/// The racks the end counts, as the record's lines after its last move name them: a penalty
/// line names its own seat's rack, and in a two-player game the out player's points name the
/// other's. A replay would otherwise count the fresh racks it drew for the seats whose racks no
/// move line showed since (a game that ends on scoreless turns, a loser's rack, any rack of a
/// record that shows none). Each seat is given its rack before that last move. Returns the
/// index of the last move line and each counted seat with its rack.
fn end_counted_racks(
    rec: &Record,
    seat_of: impl Fn(&str) -> Option<usize>,
) -> (Option<usize>, Vec<(usize, &str)>) {
    let last_move = rec.moves.iter().rposition(|m| {
        matches!(
            m.kind,
            MoveKind::Play { .. }
                | MoveKind::Pass
                | MoveKind::Exchange { .. }
                | MoveKind::Withdrawn
                | MoveKind::ChallengeBonus
        )
    });
    let counted: Vec<(usize, &str)> = match last_move {
        Some(i) => rec.moves[i + 1..]
            .iter()
            .filter_map(|m| match &m.kind {
                MoveKind::EndRack { rack } if m.score < 0 => seat_of(&m.nick).map(|s| (s, rack.as_str())),
                MoveKind::EndRack { rack } if rec.players.len() == 2 => {
                    seat_of(&m.nick).map(|s| (1 - s, rack.as_str()))
                }
                _ => None,
            })
            .collect(),
        None => Vec::new(),
    };
    (last_move, counted)
}

/// Before the last move: every rack at once (giving one seat its rack draws the others afresh),
/// the mover's as it stands unless `mover_counted` (its move keeps the rack the end counts).
/// Racks the tiles left cannot make (a record typed by hand) are not given: the end then counts
/// the racks drawn, and the import's check names the total that differs.
fn give_counted_racks(game: &mut Game, mover: usize, mover_counted: bool, counted: &[(usize, &str)]) {
    let alphabet = game.config().rules.alphabet;
    let given: Vec<(usize, Rack)> = counted
        .iter()
        .filter(|(s, _)| *s != mover || mover_counted)
        .filter_map(|&(s, rack)| Some((s, Rack::parse(rack, alphabet).ok()?)))
        .collect();
    if given.is_empty() {
        return;
    }
    let mut racks: Vec<Rack> =
        (0..game.config().seats).map(|s| game.rack(s).copied().unwrap_or_default()).collect();
    for (seat, rack) in given {
        racks[seat] = rack;
    }
    game.stack_racks(&racks).ok();
}

/// One line of a record made in the game: its move, or the challenge it records, or the pass
/// that accepts a play that went out.
fn replay_line(game: &mut Game, m: &MoveLine, seat: usize, now: u64) -> Result<(), String> {
    let alphabet = game.config().rules.alphabet;
    let seats = game.config().seats;
    match &m.kind {
        MoveKind::Play { coordinate, word } => {
            let play = replay_play(game.board(), alphabet, coordinate, word)?;
            game.act(seat, Action::Play(play), now).map_err(|e| e.to_string())?;
        }
        MoveKind::Pass => game.act(seat, Action::Pass, now).map_err(|e| e.to_string())?,
        MoveKind::Exchange { tiles } => {
            let rack = game.rack(seat).copied().unwrap_or_default();
            let throw = exchange_throw(&rack, tiles, alphabet)?;
            game.act(seat, Action::Exchange(throw), now).map_err(|e| e.to_string())?;
        }
        // The record's ruling, not this lexicon's: a play it says came off comes off (and
        // one it says stood stands) even where the words' verdicts differ here.
        MoveKind::Withdrawn | MoveKind::ChallengeBonus => {
            let challenger = (1..seats).map(|k| (seat + k) % seats).next().unwrap_or(0);
            let stood = matches!(m.kind, MoveKind::ChallengeBonus);
            game.challenge_ruled(challenger, stood, now).map_err(|e| e.to_string())?;
        }
        // The record counts the racks: the play that went out was accepted.
        MoveKind::EndRack { .. } if game.awaiting_final_challenge() => {
            let next = game.to_move();
            game.act(next, Action::Pass, now).map_err(|e| e.to_string())?;
        }
        // The record's game is over here, the replay's is not: it would be another game.
        MoveKind::EndRack { .. } => {
            let racks: Vec<String> =
                (0..seats).map(|s| game.rack(s).map_or(0, Rack::len).to_string()).collect();
            return Err(format!(
                "the record counts the racks at the end, but the game is not over: {} tiles in the bag, racks of {}",
                game.bag_len(),
                racks.join(", ")
            ));
        }
        MoveKind::TimePenalty => {}
    }
    Ok(())
}

/// The tiles an exchange line puts back, from the rack it was made from.
fn exchange_throw(rack: &Rack, tiles: &str, alphabet: Alphabet) -> Result<Rack, String> {
    match exchange_count(tiles) {
        Some(n) if !(1..=rack.len()).contains(&n) => {
            Err(format!("an exchange of {n} tiles from a rack of {}", rack.len()))
        }
        // Only a count: which tiles went back is unknown, any will do.
        Some(n) => {
            let mut t = Rack::new();
            for x in rack.tiles().take(n) {
                match x {
                    Some(l) => t.add(l),
                    None => t.add_blank(),
                }
            }
            Ok(t)
        }
        None => Rack::parse(tiles, alphabet).map_err(|e| e.to_string()),
    }
}

/// The tiles a play lays, as a rack (a blank as a blank).
fn laid_of(play: &Play) -> Rack {
    let mut laid = Rack::new();
    for &t in play.tiles().iter().filter(|&&t| t != crate::alphabet::EMPTY) {
        laid.add_tile(t);
    }
    laid
}

/// A move whose line shows no rack (a player's or a watcher's record, a record kept by hand):
/// the rack it was made from is unknown, so the seat is given the tiles the move uses (a play's
/// tiles laid, an exchange's tiles named) beside as many of its current tiles as it held: the
/// number of tiles on each rack and in the bag stays the game's, so the end comes where the
/// record's came.
fn hold_unseen_rack(game: &mut Game, seat: usize, m: &MoveLine) -> Result<(), String> {
    let alphabet = game.config().rules.alphabet;
    let (used, what) = match &m.kind {
        MoveKind::Play { coordinate, word } => {
            let play = replay_play(game.board(), alphabet, coordinate, word)?;
            (laid_of(&play), format!("the play {}", format_play(&play, alphabet)))
        }
        MoveKind::Exchange { tiles } if exchange_count(tiles).is_none() => {
            let throw = Rack::parse(tiles, alphabet).map_err(|e| e.to_string())?;
            (throw, format!("the exchange of {}", throw.to_string(alphabet)))
        }
        _ => return Ok(()),
    };
    let mut rest = game.rack(seat).copied().unwrap_or_default();
    if rest.contains(&used) {
        return Ok(());
    }
    let held = rest.len();
    if used.len() > held {
        return Err(format!("{what} uses {} tiles from a rack of {held}", used.len()));
    }
    // The tiles it used and still holds stay; the rest of the rack keeps what it can.
    for t in used.tiles() {
        match t {
            Some(l) => rest.take(l),
            None => rest.take_blank(),
        };
    }
    let mut rack = used;
    for t in rest.tiles() {
        if rack.len() >= held {
            break;
        }
        match t {
            Some(l) => rack.add(l),
            None => rack.add_blank(),
        }
    }
    game.stack_rack(seat, &rack).map_err(|e| format!("{e} ({what})"))
}
