//! The files a rating body takes from a division: its rated games, and its players with their
//! estimates, as CSV (RFC 4180: a field with a comma, a quote or a line break in quotes, a quote
//! doubled). The columns are the API's (`RatingsFile` in tournaments.proto).

use super::{estimates, rated_games};
use crate::division::{Division, GameResult, Pairing};
use std::fmt::Write;

/// A CSV field: as it is, or quoted when it must be.
fn field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// One line a rated game (both scores in), in round and line order.
pub fn games_csv(division: &Division) -> String {
    let mut out = String::from(
        "round,first,first_name,first_rating,first_score,second,second_name,second_rating,second_score\n",
    );
    let players = &division.players;
    for (k, round) in division.rounds.iter().enumerate() {
        for line in round.pairings.iter().flatten() {
            if let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line {
                let (p, q) = (&players[first.index()], &players[second.index()]);
                let _ = writeln!(
                    out,
                    "{},{},{},{},{a},{},{},{},{b}",
                    k + 1,
                    first.0 + 1,
                    field(&p.name),
                    p.rating,
                    second.0 + 1,
                    field(&q.name),
                    q.rating,
                );
            }
        }
    }
    out
}

/// One line a player, in seed order, with the estimate from every result in.
pub fn players_csv(division: &Division) -> String {
    let mut out = String::from("player,name,rating,lifetime_games,rated_games,wins,estimate,change\n");
    let games = rated_games(division, division.rounds.len());
    for ((i, p), estimate) in division.players.iter().enumerate().zip(estimates(division)) {
        let wins = games[i].iter().fold(0.0, |wins, g| wins + g.score);
        let lifetime = p.lifetime_games.map(|g| g.to_string()).unwrap_or_default();
        let shown = estimate.map(|e| e.to_string()).unwrap_or_default();
        let change = estimate.filter(|_| p.rating != 0).map(|e| format!("{:+}", e - p.rating as i32));
        let _ = writeln!(
            out,
            "{},{},{},{lifetime},{},{wins},{shown},{}",
            i + 1,
            field(&p.name),
            p.rating,
            games[i].len(),
            change.unwrap_or_default(),
        );
    }
    out
}
