//! ExportRatings' files: a division's rated games, and its players with their estimates, as CSV
//! (the columns are `RatingsFile`'s in the server's tournaments.proto; quoted as every CSV the
//! server writes, [`crate::csv`]).

use super::{estimates, rated_records};
use crate::csv::field;
use crate::division::zero_is_unrated::written;
use crate::{Division, GameResult, Pairing};
use std::fmt::Write;

/// One line a rated game (both scores in), in round and line order.
pub fn games_csv(division: &Division) -> String {
    let mut out = String::from(
        "round,first,first_name,first_rating,first_score,second,second_name,second_rating,second_score\n",
    );
    let players = division.players();
    for (k, round) in division.rounds().iter().enumerate() {
        for line in round.pairings.iter().flatten() {
            if let Pairing::Game { first, second, result: Some(GameResult::Scores([a, b])) } = *line {
                let (p, q) = (&players[first.index()], &players[second.index()]);
                let _ = writeln!(
                    out,
                    "{},{},{},{},{a},{},{},{},{b}",
                    k + 1,
                    first.0 + 1,
                    field(&p.name),
                    written(p.rating),
                    second.0 + 1,
                    field(&q.name),
                    written(q.rating),
                );
            }
        }
    }
    out
}

/// One line a player, in seed order, with the estimate from every result in.
pub fn players_csv(division: &Division) -> String {
    let mut out = String::from("player,name,rating,lifetime_games,rated_games,wins,estimate,change\n");
    let records = rated_records(division);
    for ((i, p), estimate) in division.players().iter().enumerate().zip(estimates(division)) {
        let (games, wins) = records[i];
        let lifetime = p.lifetime_games.map(|g| g.to_string()).unwrap_or_default();
        let shown = estimate.map(|e| e.to_string()).unwrap_or_default();
        let change = estimate.zip(p.rating).map(|(e, r)| format!("{:+}", e - r as i32));
        let _ = writeln!(
            out,
            "{},{},{},{lifetime},{games},{wins},{shown},{}",
            i + 1,
            field(&p.name),
            written(p.rating),
            change.unwrap_or_default(),
        );
    }
    out
}
