//! A division's statistics from its results: the division's records (high game, high loss, high
//! combined, biggest win), and per player the games with scores, points for and against and
//! their averages, their high game, how often they moved first, and their performance rating (on
//! the scale of the division's rating system: [`crate::ratings::performances`]).
//!
//! Only games with scores count (a forfeit or a bye has none); a game counts where its result
//! is, whoever entered it. The records' ties go to the earliest game (by round, then pairing).
//! Bingos are not here: they are in a game's moves, which this crate never sees.

use crate::division::{Division, GameResult, Pairing, PlayerId};

/// One game of a record: who scored what against whom, where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Feat {
    /// Round and pairing, 0-based.
    pub round: usize,
    pub pairing: usize,
    /// The player the record is of (for a high combined, the one who moved first).
    pub player: PlayerId,
    pub opponent: PlayerId,
    pub score: i32,
    pub opponent_score: i32,
}

/// One player's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerFigures {
    /// Games with scores.
    pub games: u32,
    pub points_for: i64,
    pub points_against: i64,
    /// Their highest score (None before a game with scores).
    pub high_game: Option<i32>,
    /// Games with scores in which they moved first.
    pub firsts: u32,
    /// See [`crate::ratings::performances`]: None with no game against a rated opponent that the
    /// division's rating system rates.
    pub performance_rating: Option<i32>,
}

impl PlayerFigures {
    /// Points for a game (0.0 with no games).
    pub fn average_for(&self) -> f64 {
        average(self.points_for, self.games)
    }

    /// Points against a game (0.0 with no games).
    pub fn average_against(&self) -> f64 {
        average(self.points_against, self.games)
    }
}

fn average(points: i64, games: u32) -> f64 {
    if games == 0 { 0.0 } else { points as f64 / f64::from(games) }
}

/// A division's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistics {
    /// Games with scores.
    pub games: u32,
    /// The highest score.
    pub high_game: Option<Feat>,
    /// The highest losing score (the player lost).
    pub high_loss: Option<Feat>,
    /// The highest sum of both scores (`player` moved first).
    pub high_combined: Option<Feat>,
    /// The largest winning margin (the player won).
    pub biggest_win: Option<Feat>,
    /// By player id.
    pub players: Vec<PlayerFigures>,
}

impl Statistics {
    /// The figures of `division`'s results in.
    pub fn of(division: &Division) -> Statistics {
        let mut stats = Statistics {
            players: vec![PlayerFigures::default(); division.players().len()],
            ..Default::default()
        };
        for (k, round) in division.rounds().iter().enumerate() {
            for (i, line) in round.pairings.iter().flatten().enumerate() {
                let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line else {
                    continue;
                };
                stats.games += 1;
                let both = [(first, second, a, b), (second, first, b, a)];
                for (player, opponent, score, against) in both {
                    let feat =
                        Feat { round: k, pairing: i, player, opponent, score, opponent_score: against };
                    let figures = &mut stats.players[player.index()];
                    figures.games += 1;
                    figures.points_for += i64::from(score);
                    figures.points_against += i64::from(against);
                    figures.high_game = figures.high_game.max(Some(score));
                    figures.firsts += u32::from(player == first);
                    keep_best(&mut stats.high_game, feat, scored);
                    if score < against {
                        keep_best(&mut stats.high_loss, feat, scored);
                    }
                    if score > against {
                        keep_best(&mut stats.biggest_win, feat, margin);
                    }
                }
                let feat = Feat {
                    round: k,
                    pairing: i,
                    player: first,
                    opponent: second,
                    score: a,
                    opponent_score: b,
                };
                keep_best(&mut stats.high_combined, feat, sum);
            }
        }
        for (figures, performance) in stats.players.iter_mut().zip(crate::ratings::performances(division)) {
            figures.performance_rating = performance;
        }
        stats
    }
}

/// Keep `feat` where it beats the one kept by `value` (a tie keeps the earlier game).
fn keep_best(kept: &mut Option<Feat>, feat: Feat, value: fn(&Feat) -> i32) {
    if kept.as_ref().is_none_or(|old| value(&feat) > value(old)) {
        *kept = Some(feat);
    }
}

/// A feat's score, margin and sum of both scores.
fn scored(f: &Feat) -> i32 {
    f.score
}

fn margin(f: &Feat) -> i32 {
    f.score - f.opponent_score
}

fn sum(f: &Feat) -> i32 {
    f.score + f.opponent_score
}
