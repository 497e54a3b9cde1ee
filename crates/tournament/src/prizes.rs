//! A division's prize list as TSH configures it (its `prize` lines), and who takes each prize
//! now: places, places within a rating class, the high game, the high loss and the most bingos.
//! Computed from the standings and statistics given, so it is live: provisional until the last
//! result is in (the caller decides when to show it).
//!
//! The rules are TSH's (`TSH::Command::PRiZes`, the `rank`, `highwin` and `highloss` prizes):
//! - Prizes are awarded in the list's order, which is the order of priority (TSH's `order=`
//!   only reorders the printout).
//! - A tie shares the prize: every player level on what the prize measures takes it, marked
//!   shared (TSH prints "(shared)"); no seed or count-back breaks it.
//! - A place is a competition rank (two tied for 2nd are both 2nd, the next is 4th), and the
//!   prize for place `n` goes to the best-ranked group placed `n` or below: with 2nd shared, the
//!   3rd place prize goes to whoever is 4th.
//! - A player may take any number of prizes, unless the prizes share an exclusive group
//!   (TSH's `exclusive=`): one who has taken a prize of the group is passed over for a later one
//!   of it, which goes to the next in line. A tie's players all count as having taken it (TSH
//!   marks them only when it prints, which it calls a known fault).
//! - A withdrawn player keeps their games, so their place and their records: TSH does not pass
//!   them over, nor does this.
//! - A place goes only to a player with a game with scores (TSH's `GamesPlayed`: no byes, no
//!   forfeits).
//!
//! Where this differs from TSH, and why: TSH's class is a label on the player; here a class is a
//! band of ratings going in (and whether unrated players are in it), because a division's
//! players carry ratings and no labels. TSH has `highwin`, the highest winning score; the high
//! game here is the highest score, as [`Statistics`] keeps it, a draw's included (the highest
//! score of all is a win unless it was drawn). TSH has no bingo prize (it never sees a game's
//! moves); here it needs every count, which only the server's own games give. Not here: TSH's
//! other prize types (low win, spread, upsets, best record over some rounds, …), places counted
//! from the bottom, and a 2nd high game or high loss.

use crate::MAX_PLAYERS;
use crate::division::{Division, GameResult, Pairing, PlayerId};
use crate::standings::{Standing, Standings};
use crate::statistics::{Feat, Statistics};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;

/// The most prizes a division's list holds.
pub const MAX_PRIZES: usize = 500;
/// The most characters in a prize's value, a class's name or an exclusive group's name.
pub const MAX_TEXT: usize = 100;

/// A band of ratings going in ([`crate::Player::rating`]), and whether unrated players are in
/// it: the players a class prize is open to. A class of unrated players alone is `below: 1`
/// with `unrated`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Class {
    /// As the list shows it: "Class B", "Under 1400".
    pub name: String,
    /// Ratings of at least this (None: no floor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_least: Option<u32>,
    /// Ratings below this (None: no ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below: Option<u32>,
    /// Whether unrated players are in the class.
    #[serde(default)]
    pub unrated: bool,
}

impl Class {
    /// Whether a player rated `rating` going in (None: unrated) is in the class.
    pub fn holds(&self, rating: Option<u32>) -> bool {
        match rating {
            None => self.unrated,
            Some(r) => self.at_least.is_none_or(|floor| r >= floor) && self.below.is_none_or(|top| r < top),
        }
    }
}

/// What a prize is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrizeKind {
    /// TSH's `rank`: this place (from 1) of the standings.
    Place(u32),
    /// TSH's `rank` with `class=`: this place (from 1) among the class's players.
    ClassPlace { class: Class, place: u32 },
    /// The highest score in a game.
    HighGame,
    /// TSH's `highloss`: the highest losing score.
    HighLoss,
    /// The most bingos over the event (not TSH's: see the module's notes).
    MostBingos,
}

impl PrizeKind {
    /// As a prize list names it: "2nd place", "Class B: 1st place", "High loss".
    pub fn description(&self) -> String {
        match self {
            PrizeKind::Place(place) => format!("{} place", ordinal(*place)),
            PrizeKind::ClassPlace { class, place } => format!("{}: {} place", class.name, ordinal(*place)),
            PrizeKind::HighGame => "High game".into(),
            PrizeKind::HighLoss => "High loss".into(),
            PrizeKind::MostBingos => "Most bingos".into(),
        }
    }
}

/// One line of a prize list: TSH's `prize TYPE PLACE DIVISION VALUE [exclusive=GROUP]` for one
/// division.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Prize {
    pub kind: PrizeKind,
    /// What it is worth, as the director writes it: "$100", "a trophy".
    pub what: String,
    /// TSH's `exclusive=`: its group (None: none). A player who has taken a prize of the group
    /// is passed over for every later prize of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclusive: Option<String>,
}

impl Prize {
    pub fn new(kind: PrizeKind, what: impl Into<String>) -> Prize {
        Prize { kind, what: what.into(), exclusive: None }
    }

    /// This prize in the exclusive group `group`.
    pub fn exclusive(self, group: impl Into<String>) -> Prize {
        Prize { exclusive: Some(group.into()), ..self }
    }

    /// What makes this prize one no list can hold, if anything.
    fn problem(&self) -> Option<Problem> {
        let place = match &self.kind {
            PrizeKind::Place(place) => Some(*place),
            PrizeKind::ClassPlace { class, place } => {
                if let Some(p) = text_problem("class name", &class.name) {
                    return Some(p);
                }
                // Ratings start at 1 (0 is written for unrated).
                let floor = class.at_least.unwrap_or(1).max(1);
                if let Some(below) = class.below
                    && below <= floor
                    && !class.unrated
                {
                    return Some(Problem::EmptyClass { name: class.name.clone(), at_least: floor, below });
                }
                Some(*place)
            }
            PrizeKind::HighGame | PrizeKind::HighLoss | PrizeKind::MostBingos => None,
        };
        match place {
            Some(0) => return Some(Problem::PlaceZero),
            Some(p) if p as usize > MAX_PLAYERS => return Some(Problem::PlaceTooFar(p)),
            _ => {}
        }
        text_problem("value", &self.what)
            .or_else(|| self.exclusive.as_deref().and_then(|g| text_problem("exclusive group", g)))
    }
}

/// What is wrong with a text: empty, too long, or holding a line break or control character
/// (a prize list is shown on one line a prize, and written to CSV and the hall display).
fn text_problem(field: &'static str, text: &str) -> Option<Problem> {
    let chars = text.chars().count();
    if text.trim().is_empty() {
        Some(Problem::Empty { field })
    } else if chars > MAX_TEXT {
        Some(Problem::TooLong { field, chars })
    } else if text.chars().any(char::is_control) {
        Some(Problem::Control { field })
    } else {
        None
    }
}

/// What is wrong with one prize.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("place 0: places count from 1")]
    PlaceZero,
    #[error("place {0}: a division has at most {MAX_PLAYERS} players")]
    PlaceTooFar(u32),
    #[error(
        "class {name}: no rating is at least {at_least} and below {below}, and it takes no unrated player"
    )]
    EmptyClass { name: String, at_least: u32, below: u32 },
    #[error("its {field} is empty")]
    Empty { field: &'static str },
    #[error("its {field} is {chars} characters: at most {MAX_TEXT}")]
    TooLong { field: &'static str, chars: usize },
    #[error("its {field} holds a line break or another control character")]
    Control { field: &'static str },
}

/// Why a prize list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("a division has at most {MAX_PRIZES} prizes: this list has {0}")]
    TooMany(usize),
    /// `number` counts from 1, as the list is shown.
    #[error("prize {number}: {problem}")]
    Prize { number: usize, problem: Problem },
}

/// A division's prizes in order of priority, each checked ([`PrizeList::new`]); one read back
/// (serde) is checked the same way.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Vec<Prize>", into = "Vec<Prize>")]
pub struct PrizeList {
    prizes: Vec<Prize>,
}

impl PrizeList {
    /// The list, refused with the first prize that is wrong (by its number, from 1): a place of
    /// 0 or past the most players, a class no player can be in, an empty, overlong or
    /// multi-line value, class name or group; or more than [`MAX_PRIZES`] prizes.
    pub fn new(prizes: Vec<Prize>) -> Result<PrizeList, Error> {
        if prizes.len() > MAX_PRIZES {
            return Err(Error::TooMany(prizes.len()));
        }
        if let Some((i, problem)) = prizes.iter().enumerate().find_map(|(i, p)| Some((i, p.problem()?))) {
            return Err(Error::Prize { number: i + 1, problem });
        }
        Ok(PrizeList { prizes })
    }

    pub fn prizes(&self) -> &[Prize] {
        &self.prizes
    }
}

impl TryFrom<Vec<Prize>> for PrizeList {
    type Error = Error;

    fn try_from(prizes: Vec<Prize>) -> Result<PrizeList, Error> {
        PrizeList::new(prizes)
    }
}

impl From<PrizeList> for Vec<Prize> {
    fn from(list: PrizeList) -> Vec<Prize> {
        list.prizes
    }
}

/// What took a prize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// A record in the standings, at `place` (from 1, the first of a tie's places; for a class
    /// prize, the place among the class's players).
    Record { place: u32, win_points: u32, losses: u32, draws: u32, spread: i64 },
    /// A game: the player's earliest game with the score that took it.
    Game(Feat),
    /// Bingos over the event.
    Bingos(u32),
}

/// Why nobody takes a prize now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// Nobody it is open to has a game with scores.
    NoGames,
    /// Nobody has lost a game with scores.
    NoLoss,
    /// Nobody has a bingo.
    NoBingo,
    /// Nobody is placed there or below (a tie above it, or too few players with games).
    NoneAtPlace(u32),
    /// Everyone in line for it has taken a prize of its exclusive group.
    AllTaken(String),
    /// Bingo counts are not known for these players, who have games with scores (none listed:
    /// not known for anyone, as when the games were not played on the server).
    BingosNotKnown(Vec<PlayerId>),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::NoGames => write!(f, "no player it is open to has a game with scores"),
            Why::NoLoss => write!(f, "no game with scores has been lost"),
            Why::NoBingo => write!(f, "no player has a bingo"),
            Why::NoneAtPlace(place) => write!(f, "no player is placed {} or below", ordinal(*place)),
            Why::AllTaken(group) => {
                write!(f, "everyone in line for it has taken a prize of exclusive group {group}")
            }
            Why::BingosNotKnown(players) if players.is_empty() => {
                write!(f, "bingo counts are not known (the games were not played on the server)")
            }
            Why::BingosNotKnown(players) => {
                let list: Vec<String> = players.iter().map(|p| p.to_string()).collect();
                write!(f, "bingo counts are not known for {}", list.join(", "))
            }
        }
    }
}

/// Who takes a prize now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Winner {
    /// `player` takes it by `claim`; `shared` with the others of a tie (each an [`Award`] of the
    /// same prize).
    Taken { player: PlayerId, claim: Claim, shared: bool },
    /// Nobody, and why.
    Nobody(Why),
}

/// One prize and one of its takers (a shared prize has an award for each), or nobody.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Award {
    /// The prize's place in the list, from 0.
    pub prize: usize,
    pub winner: Winner,
}

/// One in line for a prize: ranked by `key` (higher first), ties sharing.
struct Candidate {
    player: PlayerId,
    key: [i64; 3],
    claim: Claim,
}

/// Who takes each prize of `list` now, in the list's order, by the rules in the module's notes.
/// `standings` and `statistics` are of the same results of `division` (`Standings::of` and
/// `Statistics::of`, or both of a division held back for spectators); `bingos` is each player's
/// bingo count by [`PlayerId`] (None, or a player's None or missing: not known). Deterministic:
/// a tie's takers come in standings order for a place or bingos, in game order for a game.
pub fn award(
    list: &PrizeList,
    division: &Division,
    standings: &Standings,
    statistics: &Statistics,
    bingos: Option<&[Option<u32>]>,
) -> Vec<Award> {
    let mut taken: HashSet<(&str, PlayerId)> = HashSet::new();
    let mut awards = Vec::new();
    for (i, prize) in list.prizes.iter().enumerate() {
        let (candidates, place) = match candidates(&prize.kind, division, standings, statistics, bingos) {
            Ok(c) => c,
            Err(why) => {
                awards.push(Award { prize: i, winner: Winner::Nobody(why) });
                continue;
            }
        };
        let group = prize.exclusive.as_deref();
        let passed_over = |p: PlayerId| group.is_some_and(|g| taken.contains(&(g, p)));
        let (winners, someone_passed_over) = select(&candidates, place, passed_over);
        if winners.is_empty() {
            let why = match group {
                Some(g) if someone_passed_over => Why::AllTaken(g.to_string()),
                _ => Why::NoneAtPlace(place),
            };
            awards.push(Award { prize: i, winner: Winner::Nobody(why) });
            continue;
        }
        let shared = winners.len() > 1;
        for c in winners {
            if let Some(g) = group {
                taken.insert((g, c.player));
            }
            awards.push(Award {
                prize: i,
                winner: Winner::Taken { player: c.player, claim: c.claim.clone(), shared },
            });
        }
    }
    awards
}

/// Those in line for a prize of `kind`, best first, and the place (from 1) the prize is for;
/// or why nobody is.
fn candidates(
    kind: &PrizeKind,
    division: &Division,
    standings: &Standings,
    statistics: &Statistics,
    bingos: Option<&[Option<u32>]>,
) -> Result<(Vec<Candidate>, u32), Why> {
    let has_games = |p: PlayerId| statistics.players.get(p.index()).is_some_and(|f| f.games > 0);
    let found = match kind {
        PrizeKind::Place(place) => (records(standings, has_games), *place),
        PrizeKind::ClassPlace { class, place } => {
            let in_class =
                |p: PlayerId| division.players().get(p.index()).is_some_and(|x| class.holds(x.rating));
            (records(standings, |p| has_games(p) && in_class(p)), *place)
        }
        PrizeKind::HighGame => {
            // Statistics has each player's high score; the game it came in is their earliest
            // with it.
            let high = |p: PlayerId| statistics.players.get(p.index()).and_then(|f| f.high_game);
            let mut first: Vec<Option<Feat>> = vec![None; division.players().len()];
            for g in scored_games(division) {
                let kept = &mut first[g.player.index()];
                if kept.is_none() && high(g.player) == Some(g.score) {
                    *kept = Some(g);
                }
            }
            let mut best: Vec<Candidate> = first
                .into_iter()
                .flatten()
                .map(|g| Candidate {
                    player: g.player,
                    key: [i64::from(g.score), 0, 0],
                    claim: Claim::Game(g),
                })
                .collect();
            best.sort_by_key(|c| (std::cmp::Reverse(c.key), game_order(&c.claim)));
            (best, 1)
        }
        PrizeKind::HighLoss => {
            // Statistics keeps the division's one high loss; a tie, or a taker passed over,
            // needs each player's own.
            let mut best: Vec<Option<Feat>> = vec![None; division.players().len()];
            for g in scored_games(division).into_iter().filter(|g| g.score < g.opponent_score) {
                let kept = &mut best[g.player.index()];
                if kept.is_none_or(|k| g.score > k.score) {
                    *kept = Some(g);
                }
            }
            let mut best: Vec<Candidate> = best
                .into_iter()
                .flatten()
                .map(|g| Candidate {
                    player: g.player,
                    key: [i64::from(g.score), 0, 0],
                    claim: Claim::Game(g),
                })
                .collect();
            best.sort_by_key(|c| (std::cmp::Reverse(c.key), game_order(&c.claim)));
            (best, 1)
        }
        PrizeKind::MostBingos => {
            let Some(counts) = bingos else {
                return Err(Why::BingosNotKnown(Vec::new()));
            };
            let count = |p: PlayerId| counts.get(p.index()).copied().flatten();
            let players: Vec<PlayerId> = standings.ranked.iter().copied().filter(|&p| has_games(p)).collect();
            let mut unknown: Vec<PlayerId> =
                players.iter().copied().filter(|&p| count(p).is_none()).collect();
            if !unknown.is_empty() {
                unknown.sort();
                return Err(Why::BingosNotKnown(unknown));
            }
            let mut best: Vec<Candidate> = players
                .into_iter()
                .filter_map(|player| {
                    let n = count(player).filter(|&n| n > 0)?;
                    Some(Candidate { player, key: [i64::from(n), 0, 0], claim: Claim::Bingos(n) })
                })
                .collect();
            // Stable: a tie stays in standings order.
            best.sort_by_key(|c| std::cmp::Reverse(c.key));
            (best, 1)
        }
    };
    if found.0.is_empty() {
        return Err(match kind {
            PrizeKind::HighLoss => Why::NoLoss,
            PrizeKind::MostBingos => Why::NoBingo,
            _ => Why::NoGames,
        });
    }
    Ok(found)
}

/// The players `eligible` in standings order, each by their record, with the place it holds
/// among them.
fn records(standings: &Standings, eligible: impl Fn(PlayerId) -> bool) -> Vec<Candidate> {
    let key = |r: &Standing| [i64::from(r.win_points), -i64::from(r.losses), r.spread];
    let mut out: Vec<Candidate> = Vec::new();
    let mut place = 0;
    for &player in standings.ranked.iter().filter(|&&p| eligible(p)) {
        let r = standings.record(player);
        if out.last().is_none_or(|last| last.key != key(r)) {
            place = out.len() as u32 + 1;
        }
        let claim = Claim::Record {
            place,
            win_points: r.win_points,
            losses: r.losses,
            draws: r.draws,
            spread: r.spread,
        };
        out.push(Candidate { player, key: key(r), claim });
    }
    out
}

/// Round and pairing of a game claim (others sort first; only games are sorted by it).
fn game_order(claim: &Claim) -> (usize, usize) {
    match claim {
        Claim::Game(g) => (g.round, g.pairing),
        _ => (0, 0),
    }
}

/// TSH's choice of takers: the first group of equals (by key) placed at `place` or below,
/// without those `passed_over`; and whether anyone placed there or below was passed over.
fn select(
    candidates: &[Candidate],
    place: u32,
    passed_over: impl Fn(PlayerId) -> bool,
) -> (Vec<&Candidate>, bool) {
    let mut winners: Vec<&Candidate> = Vec::new();
    let mut someone_passed_over = false;
    let mut rank = 0;
    for (i, c) in candidates.iter().enumerate() {
        if i == 0 || c.key != candidates[i - 1].key {
            if !winners.is_empty() {
                break;
            }
            rank = i as u32 + 1;
        }
        if rank < place {
            continue;
        }
        if passed_over(c.player) {
            someone_passed_over = true;
        } else {
            winners.push(c);
        }
    }
    (winners, someone_passed_over)
}

/// Every game with scores as each of its players saw it, in round and pairing order.
fn scored_games(division: &Division) -> Vec<Feat> {
    let mut out = Vec::new();
    for (round, r) in division.rounds().iter().enumerate() {
        for (pairing, line) in r.pairings.iter().flatten().enumerate() {
            if let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line {
                out.push(Feat {
                    round,
                    pairing,
                    player: first,
                    opponent: second,
                    score: a,
                    opponent_score: b,
                });
                out.push(Feat {
                    round,
                    pairing,
                    player: second,
                    opponent: first,
                    score: b,
                    opponent_score: a,
                });
            }
        }
    }
    out
}

/// 1st, 2nd, 3rd, 4th, … 11th, 12th, 13th, … 21st.
pub fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

impl Claim {
    /// As the prize list shows it: a record as TSH prints one ("2-1 +180", a draw a half each
    /// way), a game by round and score against whom ("round 2: 520-400 v Ed"), bingos.
    pub fn text(&self, division: &Division) -> String {
        match self {
            Claim::Record { win_points, losses, draws, spread, .. } => {
                let halves = |h: u32| {
                    if h.is_multiple_of(2) { format!("{}", h / 2) } else { format!("{}.5", h / 2) }
                };
                format!("{}-{} {spread:+}", halves(*win_points), halves(2 * losses + draws))
            }
            Claim::Game(g) => {
                let opponent = division.players().get(g.opponent.index()).map_or("?", |p| p.name.as_str());
                format!("round {}: {}-{} v {opponent}", g.round + 1, g.score, g.opponent_score)
            }
            Claim::Bingos(1) => "1 bingo".into(),
            Claim::Bingos(n) => format!("{n} bingos"),
        }
    }
}

/// The awards as CSV, as [`crate::csv`] writes every file: a header, then a line an award (a
/// shared prize a line a taker, as TSH's `prizes.csv`): the prize's number (from 1), its
/// description and value, the player's number (from 1) and name, what took it, and a note
/// ("shared", or why nobody takes it).
pub fn csv(list: &PrizeList, division: &Division, awards: &[Award]) -> String {
    let mut out = crate::csv::line(&[
        "prize".into(),
        "description".into(),
        "value".into(),
        "player".into(),
        "name".into(),
        "achievement".into(),
        "note".into(),
    ]);
    for a in awards {
        // An award is of this list; one of another list's prizes has no line here.
        let Some(prize) = list.prizes.get(a.prize) else {
            continue;
        };
        let (player, name, achievement, note) = match &a.winner {
            Winner::Taken { player, claim, shared } => (
                (player.0 + 1).to_string(),
                division.players().get(player.index()).map_or(String::new(), |p| p.name.clone()),
                claim.text(division),
                if *shared { "shared".to_string() } else { String::new() },
            ),
            Winner::Nobody(why) => (String::new(), String::new(), String::new(), why.to_string()),
        };
        out.push_str(&crate::csv::line(&[
            (a.prize + 1).to_string(),
            prize.kind.description(),
            prize.what.clone(),
            player,
            name,
            achievement,
            note,
        ]));
    }
    out
}
