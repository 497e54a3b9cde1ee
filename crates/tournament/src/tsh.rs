//! TSH's `.t` files, as TSH (the program NASPA and ABSP directors run) writes and reads them:
//! a line a player, in seed order:
//!
//! ```text
//! Name Surname 1520 3 0 2; 412 50 388; p12 1 0 2
//! ```
//!
//! the name, the rating, each round's opponent by 1-based player number (0: none), `;`, the
//! player's score in each round (with no opponent: the spread, +50 a bye, −50 a forfeit lost),
//! and `; p12` with 1 (went first), 2 (second) or 0 (no game) a round. Scores may lag the
//! opponents (a round paired, not yet played); a score still to come before one that is in is
//! `00`, TSH's own mark for a value not there. Lines starting `#` and empty lines are skipped; a
//! byte-order mark before the first line is no part of it.
//!
//! The opponents and scores alone say what every round counts, as TSH counts it (its `Synch`,
//! with its default configuration), so that TSH and the rating bodies' programs, which skip the
//! fields they do not know, read the standings the division has:
//! - a game: its two scores;
//! - a bye, and an absence counted as a bye of a negative spread: opponent 0, the spread;
//! - a forfeit between two players: as TSH writes an absence, both with opponent 0, the winner
//!   +the forfeit spread, the loser −it;
//! - a round the player was in no line of (withdrawn, or added later: it counts nothing here):
//!   opponent 0, score 0, which TSH counts as no game; and `off 0` for a withdrawn player, the
//!   bye TSH gives an inactive player in each round it pairs, as dawgref pairs them no more;
//! - a score still to come: `00` (TSH's scores are by round, a missing one `00`), or nothing
//!   after the last score in.
//!
//! One result TSH's fields cannot hold: a line with no opponent and a spread of 0 (a bye of 0, or
//! a forfeit where forfeits are worth 0), a draw here and no game to TSH (unless its
//! configuration sets `zero_byes_tie`); it is written as TSH would write it, `0; 0`, and dawgref's
//! `unpaired` field below keeps it for dawgref.
//!
//! TSH keeps the `;` fields it does not know, and so does this reader. What TSH's own fields
//! cannot say is written in four of them, so that a file written here reads back as the same
//! division (`export` then `import`; the property tests hold it):
//! - `bot LEVEL`: the server's bot of that level plays as this player;
//! - `reserved N`: the player's reserved table (TSH keeps reservations in its configuration,
//!   `config reserved{'A'}[13] = 4`, not in the `.t` file);
//! - `forfeit …`: per round, `0`, or `N/S/W` for a forfeit against player N in which this player
//!   held seat S (1 first, 2 second) and won (W 1) or lost (W 0), where the opponent and score
//!   fields say "no opponent, ±the forfeit spread";
//! - `unpaired …`: per round, `1` where the player was in no line of it, else `0`: written where
//!   a line has such a round or a bye of 0, both `0; 0` in TSH's fields; without it, `0; 0` reads
//!   as TSH reads it, no game.
//!
//! Files written before scores to come were `00` held a score the score field could not (one
//! after a round still to be played) in a `late` field, per round the score or `-`: it is read.
//!
//! And of TSH's own: `off N`, the player has withdrawn (read; N not: dawgref pairs a withdrawn
//! player no more); `lifeg N`, the player's rated games before the event (read and written);
//! `board …`, per round the table (TSH's board) of the player's game, 0 for none (a bye, or no
//! line), written with `p12` and read as each game's table (a game whose rows name no board, or
//! one an earlier line has, is seated by the rule of the `tables` module, as TSH seats it);
//! and `newr …`, the rating estimate after each round paired (0: none), written when the
//! division rates its players ([`crate::ratings`]) and recomputed, not read.

use crate::division::MAX_TABLE;
use crate::division::{
    Controls, Division, GameResult, MAX_ROUNDS, Method, Pairing, Player, PlayerId, Round, zero_is_unrated,
};
pub use crate::name::name_problem;
use crate::tables;
use std::fmt::Write;

/// The division as a `.t` file.
pub fn export(d: &Division) -> String {
    // Each round paired: its lines and their tables (one a line while paired).
    let paired: Vec<(&Vec<Pairing>, &[u32])> = (d.rounds.iter())
        .map_while(|r| Some((r.pairings.as_ref()?, r.tables.as_deref().unwrap_or_default())))
        .collect();
    let mut out = String::new();
    let estimates = (!d.controls.rating_system.is_none()).then(|| crate::ratings::estimates_by_round(d));
    for (i, player) in d.players.iter().enumerate() {
        let me = PlayerId(i as u32);
        let (mut opponents, mut scores, mut p12) = (Vec::new(), Vec::new(), Vec::new());
        let (mut forfeits, mut unpaired, mut boards) = (Vec::new(), Vec::new(), Vec::new());
        // A bye of 0 reads `0; 0` as a round in no line does: dawgref's `unpaired` tells them apart.
        let mut bye_of_0 = false;
        for (lines, tables) in &paired {
            let Some((at, line)) = lines.iter().enumerate().find(|(_, l)| l.players().any(|p| p == me))
            else {
                // Not in the round (added later, or withdrawn): it counts nothing, which TSH
                // reads from no opponent and no spread.
                opponents.push(0);
                scores.push(Some(0));
                p12.push(0);
                forfeits.push(String::from("0"));
                unpaired.push(1);
                boards.push(0);
                continue;
            };
            unpaired.push(0);
            boards.push(tables.get(at).copied().unwrap_or(0));
            let mut forfeit = String::from("0");
            let (opponent, score, seat) = match *line {
                Pairing::Bye { spread, .. } => {
                    bye_of_0 |= spread == 0;
                    (0, Some(spread), 0)
                }
                Pairing::Game { first, second, result } => {
                    let seat = if first == me { 0 } else { 1 };
                    let other = if seat == 0 { second } else { first };
                    match result {
                        Some(GameResult::Scores(s)) => (other.0 + 1, Some(s[seat]), seat as u8 + 1),
                        Some(GameResult::Forfeit { winner }) => {
                            forfeit = format!("{}/{}/{}", other.0 + 1, seat + 1, u8::from(winner == seat));
                            let s = d.controls.forfeit_spread;
                            (0, Some(if winner == seat { s } else { -s }), 0)
                        }
                        None => (other.0 + 1, None, seat as u8 + 1),
                    }
                }
            };
            forfeits.push(forfeit);
            opponents.push(opponent);
            p12.push(seat);
            scores.push(score);
        }
        // Scores to come after the last one in are not written; one before it is `00`.
        while scores.last() == Some(&None) {
            scores.pop();
        }
        let _ = write!(out, "{} {}", player.name, zero_is_unrated::written(player.rating));
        for o in &opponents {
            let _ = write!(out, " {o}");
        }
        out.push(';');
        for s in &scores {
            match s {
                Some(s) => {
                    let _ = write!(out, " {s}");
                }
                None => out.push_str(" 00"),
            }
        }
        if !p12.is_empty() {
            out.push_str("; p12");
            for s in &p12 {
                let _ = write!(out, " {s}");
            }
            out.push_str("; board");
            for b in &boards {
                let _ = write!(out, " {b}");
            }
        }
        if forfeits.iter().any(|f| f != "0") {
            let _ = write!(out, "; forfeit {}", forfeits.join(" "));
        }
        if unpaired.contains(&1) || bye_of_0 {
            out.push_str("; unpaired");
            for u in &unpaired {
                let _ = write!(out, " {u}");
            }
        }
        if player.withdrawn {
            out.push_str("; off 0");
        }
        if let Some(level) = &player.bot {
            let _ = write!(out, "; bot {level}");
        }
        if let Some(games) = player.lifetime_games {
            let _ = write!(out, "; lifeg {games}");
        }
        if let Some(table) = player.reserved_table {
            let _ = write!(out, "; reserved {table}");
        }
        if let Some(by_round) = estimates.as_ref().map(|e| &e[i]).filter(|e| !e.is_empty()) {
            out.push_str("; newr");
            for e in by_round {
                let _ = write!(out, " {}", e.unwrap_or(0));
            }
        }
        out.push('\n');
    }
    out
}

/// Why a `.t` file was refused: the line (from 1) and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}")]
pub struct TshError {
    pub line: usize,
    pub what: String,
}

struct Row {
    line: usize,
    opponents: Vec<u32>,
    /// Per round: the score, None for `00` (not there).
    scores: Vec<Option<i32>>,
    p12: Vec<u8>,
    /// Per round: a forfeit's opponent (from 1), this player's seat (0 first) and whether
    /// they won it, or None.
    forfeits: Vec<Option<(u32, usize, bool)>>,
    unpaired: Vec<bool>,
    /// Per round: a score the score field could not hold (files written before `00`).
    late: Vec<Option<i32>>,
    /// Per round: the table (TSH's board) of the player's game, 0 for none.
    boards: Vec<u32>,
}

impl Row {
    /// The player's score in a round: in the score field, or else in `late`.
    fn score(&self, round: usize) -> Option<i32> {
        self.scores.get(round).copied().flatten().or(self.late.get(round).copied().flatten())
    }
}

/// The longest line a `.t` file may hold, in bytes: a player of [`MAX_ROUNDS`] rounds with
/// every field written takes about 4 KiB, and TSH's own fields a few more.
pub const MAX_LINE_BYTES: usize = 16 * 1024;

/// A division from a `.t` file: its players and the rounds already paired and played (each a
/// manual round), then `more` rounds to come by their methods.
pub fn import(name: &str, text: &str, controls: Controls, more: &[Method]) -> Result<Division, TshError> {
    let mut players = Vec::new();
    let mut rows = Vec::new();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        if raw.len() > MAX_LINE_BYTES {
            return Err(TshError {
                line,
                what: format!("{} bytes: a line holds at most {MAX_LINE_BYTES}", raw.len()),
            });
        }
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (player, row) = read_player(line, trimmed)?;
        players.push(player);
        rows.push(row);
    }
    let rounds = rows.iter().map(|r| r.opponents.len()).max().unwrap_or(0);
    let mut division = Division::new(name, players, &[], controls);
    for round in 0..rounds {
        let lines = read_round(&rows, round, rounds)?;
        // A game's wishes: the boards its rows name, then its players' reserved tables.
        let wishes = |i: usize| {
            let players = || lines[i].players();
            let named = players().filter_map(|p| rows[p.index()].boards.get(round).copied());
            named.chain(players().filter_map(|p| division.players[p.index()].reserved_table)).collect()
        };
        let tables = tables::assign(&lines, wishes);
        division.rounds.push(Round { method: Method::Manual, pairings: Some(lines), tables: Some(tables) });
    }
    division.rounds.extend(more.iter().map(|&m| Round::new(m)));
    Ok(division)
}

/// A player's line: the player, and the row their rounds are read from.
fn read_player(line: usize, trimmed: &str) -> Result<(Player, Row), TshError> {
    let err = |what: String| TshError { line, what };
    let mut fields = trimmed.split(';');
    let head: Vec<&str> = fields.next().unwrap_or_default().split_whitespace().collect();
    // The name runs to the first number: the rating.
    let Some(at) = head.iter().position(|w| w.parse::<u32>().is_ok()) else {
        return Err(err("no rating after the name".into()));
    };
    if at == 0 {
        return Err(err("no name before the rating".into()));
    }
    let rating = zero_is_unrated::read(head[at].parse().map_err(|_| err("a bad rating".into()))?);
    if head.len() - at - 1 > MAX_ROUNDS {
        return Err(err(format!("{} rounds: a division has at most {MAX_ROUNDS}", head.len() - at - 1)));
    }
    let opponents = head[at + 1..]
        .iter()
        .map(|w| w.parse::<u32>().map_err(|_| err(format!("opponent {w:?} is not a player number"))))
        .collect::<Result<Vec<u32>, _>>()?;
    let scores = fields
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .map(|w| match w {
            "00" => Ok(None),
            _ => w.parse::<i32>().map(Some).map_err(|_| err(format!("score {w:?} is not a number or 00"))),
        })
        .collect::<Result<Vec<Option<i32>>, _>>()?;
    let (mut p12, mut forfeits, mut unpaired, mut late) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut withdrawn, mut bot, mut lifetime_games, mut reserved_table) = (false, None, None, None);
    let mut boards = Vec::new();
    for field in fields {
        let mut words = field.split_whitespace();
        match words.next() {
            Some("p12") => {
                p12 = words
                    .map(|w| match w {
                        "0" | "1" | "2" => Ok(w.as_bytes()[0] - b'0'),
                        _ => Err(err(format!("p12 {w:?} is not 0, 1 or 2"))),
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some("forfeit") => {
                forfeits = words
                    .map(|w| {
                        let bad = || err(format!("forfeit {w:?} is not 0 or N/S/W (S 1 or 2, W 0 or 1)"));
                        if w == "0" {
                            return Ok(None);
                        }
                        let parts: Vec<&str> = w.split('/').collect();
                        match parts[..] {
                            [o, s @ ("1" | "2"), won @ ("0" | "1")] => match o.parse::<u32>() {
                                Ok(o) if o > 0 => Ok(Some((o, usize::from(s == "2"), won == "1"))),
                                _ => Err(bad()),
                            },
                            _ => Err(bad()),
                        }
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some("unpaired") => {
                unpaired = words
                    .map(|w| match w {
                        "0" | "1" => Ok(w == "1"),
                        _ => Err(err(format!("unpaired {w:?} is not 0 or 1"))),
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some("late") => {
                late = words
                    .map(|w| match w {
                        "-" => Ok(None),
                        _ => w
                            .parse::<i32>()
                            .map(Some)
                            .map_err(|_| err(format!("late {w:?} is not - or a score"))),
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some("off") => withdrawn = true,
            Some("lifeg") => {
                let games = words.next().unwrap_or_default();
                let games =
                    games.parse().map_err(|_| err(format!("lifeg {games:?} is not a count of games")))?;
                lifetime_games = Some(games);
            }
            Some("bot") => {
                let level = words.next().ok_or_else(|| err("bot names no level".into()))?;
                bot = Some(level.to_string());
            }
            Some("board") => {
                boards = words
                    .map(|w| match w.parse::<u32>() {
                        Ok(b) if b <= MAX_TABLE => Ok(b),
                        _ => Err(err(format!("board {w:?} is not 0 or a table, 1 to {MAX_TABLE}"))),
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some("reserved") => {
                let table = words.next().unwrap_or_default();
                match table.parse::<u32>() {
                    Ok(t) if (1..=MAX_TABLE).contains(&t) => reserved_table = Some(t),
                    _ => return Err(err(format!("reserved {table:?} is not a table, 1 to {MAX_TABLE}"))),
                }
            }
            _ => {}
        }
    }
    if scores.len() > opponents.len() {
        return Err(err(format!("{} scores for {} rounds", scores.len(), opponents.len())));
    }
    let name = head[..at].join(" ");
    if let Some(why) = name_problem(&name) {
        return Err(err(format!("{name:?}: {why}")));
    }
    let player = Player { name, rating, withdrawn, bot, lifetime_games, reserved_table, account: None };
    Ok((player, Row { line, opponents, scores, p12, forfeits, unpaired, late, boards }))
}

/// A round's lines, from every player's row (a pair's line made once, from its lower number).
fn read_round(rows: &[Row], round: usize, rounds: usize) -> Result<Vec<Pairing>, TshError> {
    let n = rows.len();
    let mut lines = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let err = |what: String| TshError { line: row.line, what };
        let Some(&opponent) = row.opponents.get(round) else {
            return Err(err(format!("no opponent for round {} (others have {rounds} rounds)", round + 1)));
        };
        let score = row.score(round);
        if row.unpaired.get(round) == Some(&true) {
            if opponent != 0 {
                return Err(err(format!("round {}: unpaired, yet meets player {opponent}", round + 1)));
            }
            continue;
        }
        if let Some(&Some((o, seat, won))) = row.forfeits.get(round) {
            let theirs = rows.get(o as usize - 1).filter(|_| o as usize - 1 != i);
            let Some(theirs) = theirs else {
                return Err(err(format!("round {}: no player {o} to forfeit with", round + 1)));
            };
            if theirs.forfeits.get(round) != Some(&Some((i as u32 + 1, 1 - seat, !won))) {
                return Err(err(format!("round {}: player {o} does not name this forfeit back", round + 1)));
            }
            if opponent != 0 {
                return Err(err(format!("round {}: a forfeit, yet meets player {opponent}", round + 1)));
            }
            if (o as usize - 1) < i {
                continue; // the pair's line is made from its lower number
            }
            let (me, them) = (PlayerId(i as u32), PlayerId(o - 1));
            let (first, second) = if seat == 0 { (me, them) } else { (them, me) };
            let winner = if won { seat } else { 1 - seat };
            lines.push(Pairing::Game { first, second, result: Some(GameResult::Forfeit { winner }) });
            continue;
        }
        if opponent == 0 {
            // No opponent: the spread of a bye or an absence; none, or 0, TSH counts as no game,
            // unless dawgref's `unpaired 0` says the player had a line there (a bye of 0).
            let player = PlayerId(i as u32);
            match (score, row.unpaired.get(round)) {
                (Some(spread), _) if spread != 0 => lines.push(Pairing::Bye { player, spread }),
                (Some(_), Some(false)) => lines.push(Pairing::Bye { player, spread: 0 }),
                (None, Some(false)) => {
                    return Err(err(format!("round {}: no opponent and no score", round + 1)));
                }
                _ => {}
            }
            continue;
        }
        let o = opponent as usize - 1;
        if o >= n || o == i {
            return Err(err(format!("round {}: no player {opponent} to meet", round + 1)));
        }
        let theirs = &rows[o];
        if theirs.opponents.get(round) != Some(&(i as u32 + 1)) {
            return Err(err(format!(
                "round {}: player {opponent} does not name player {} back",
                round + 1,
                i + 1
            )));
        }
        if o < i {
            continue; // the pair's line is made from its lower number
        }
        // p12 names who went first; without it, the lower number.
        let i_first = !matches!((row.p12.get(round), theirs.p12.get(round)), (Some(2), _) | (_, Some(1)));
        let (first, second) = if i_first { (i, o) } else { (o, i) };
        let result = match (rows[first].score(round), rows[second].score(round)) {
            (Some(a), Some(b)) => Some(GameResult::Scores([a, b])),
            (None, None) => None,
            _ => {
                return Err(err(format!(
                    "round {}: one score of the game with player {opponent}",
                    round + 1
                )));
            }
        };
        lines.push(Pairing::Game { first: PlayerId(first as u32), second: PlayerId(second as u32), result });
    }
    Ok(lines)
}
