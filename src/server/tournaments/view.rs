//! The wire messages made from a kept record, once, for an answer: a tournament, a division with
//! its standings, a round with its games, a player. The only place a division's lines become
//! the wire's sentinels (a `second` of 0 for a bye, a `forfeited_by` of 0 for none).

use super::super::convert;
use crate::proto::v1 as pb;
use dawgref_events::{DivisionId, DivisionRecord, Record, TournamentEvent, Watched};
use dawgref_tournament::{
    Division, GameResult, Pairing, PairingId, Player, PlayerId, RoundId, zero_is_unrated,
};

/// The whole tournament as the wire shows it; `you`: the caller's player seat.
pub(super) fn tournament(record: &Record, you: Option<pb::TournamentSeat>) -> pb::Tournament {
    pb::Tournament {
        slug: record.slug().to_string(),
        name: record.name().to_string(),
        game: Some(convert::settings_to(record.game())),
        divisions: record.division_ids().map(|d| division(record, d)).collect(),
        events: record.event_count(),
        you,
    }
}

/// Player `player` of division `d` as the caller they are, with their current game.
pub(super) fn seat(record: &Record, d: DivisionId, player: PlayerId) -> pb::TournamentSeat {
    pb::TournamentSeat {
        division: record.division_at(d).name().to_string(),
        player: player.0 + 1,
        current_game_id: record.entry(d).current_game(player).unwrap_or_default().to_string(),
    }
}

/// Division `d` as the wire shows it: with its standings.
pub(super) fn division(record: &Record, d: DivisionId) -> pb::TournamentDivision {
    let entry = record.entry(d);
    let div = entry.division();
    pb::TournamentDivision {
        name: div.name().to_string(),
        players: (0..div.players().len()).map(|i| player(entry, PlayerId(i as u32))).collect(),
        rounds: entry.round_ids().map(|k| round(entry, k)).collect(),
        controls: Some(convert::controls_to(div.controls())),
        standings: standings(div),
        result_reports: convert::reports_to(entry.reports_mode()) as i32,
        bots_only: entry.bots_only(),
        review_ms_per_turn: entry.review_ms(),
    }
}

/// Round `k` of a division as the wire shows it, each line with its game.
pub(super) fn round(entry: &DivisionRecord, k: RoundId) -> pb::TournamentRound {
    let round = &entry.division().rounds()[k.index()];
    pb::TournamentRound {
        number: k.number(),
        spec: Some(convert::round_spec(round.method)),
        paired: round.pairings.is_some(),
        started: entry.started(k),
        pairings: (entry.pairings(k)).map(|(i, line)| in_round(entry, k, i, line)).collect(),
    }
}

/// Round `k`'s line `i` as the wire shows it: with its game, and the players' reports kept
/// (as many as the record holds for its viewer).
pub(super) fn in_round(
    entry: &DivisionRecord,
    k: RoundId,
    i: PairingId,
    line: &Pairing,
) -> pb::TournamentPairing {
    let reports = entry.reports(k, i);
    let seats: Vec<u32> = line.players().map(|p| p.0 + 1).collect();
    let reports = (0..seats.len())
        .filter_map(|seat| Some(pb::ResultReport { player: seats[seat], scores: reports.by(seat)?.to_vec() }))
        .collect();
    pb::TournamentPairing {
        game_id: entry.game_id(k, i).unwrap_or_default().to_string(),
        table: entry.division().table(k.index(), i.index()).unwrap_or(0),
        reports,
        ..pairing(i, line)
    }
}

/// Player `id` of division `entry`.
pub(super) fn player(entry: &DivisionRecord, id: PlayerId) -> pb::TournamentPlayer {
    let p = &entry.division().players()[id.index()];
    pb::TournamentPlayer {
        number: id.0 + 1,
        name: p.name.clone(),
        rating: zero_is_unrated::written(p.rating),
        bot: level(p).map(|level| convert::bot_to(level) as i32),
        withdrawn: p.withdrawn,
        lifetime_games: p.lifetime_games,
        reserved_table: p.reserved_table,
        checked_in: entry.checked_in(id),
        bot_account: p.account.clone().unwrap_or_default(),
    }
}

/// The level of the server bot that plays `p`, if one does.
pub(super) fn level(p: &Player) -> Option<crate::bot::BotLevel> {
    p.bot.as_deref().and_then(|level| level.parse().ok())
}

/// Line `i` of a round, without its game.
fn pairing(i: PairingId, line: &Pairing) -> pb::TournamentPairing {
    let number = i.number();
    match *line {
        Pairing::Bye { player, spread } => pb::TournamentPairing {
            number,
            first: player.0 + 1,
            done: true,
            bye_spread: spread,
            ..Default::default()
        },
        Pairing::Game { first, second, result } => {
            let (first, second) = (first.0 + 1, second.0 + 1);
            let mut p =
                pb::TournamentPairing { number, first, second, done: result.is_some(), ..Default::default() };
            match result {
                Some(GameResult::Scores(s)) => p.scores = s.to_vec(),
                Some(forfeit @ GameResult::Forfeit { .. }) => {
                    p.forfeited_by = if forfeit.forfeiter() == Some(0) { first } else { second }
                }
                None => {}
            }
            p
        }
    }
}

/// The standings of a division as the wire shows them, with each player's rating estimate.
pub(crate) fn standings(division: &Division) -> Vec<pb::DivisionStanding> {
    let s = dawgref_tournament::Standings::of(division);
    let estimates = dawgref_tournament::ratings::estimates(division);
    s.ranked
        .iter()
        .enumerate()
        .map(|(rank, &p)| {
            let r = s.record(p);
            pb::DivisionStanding {
                rank: rank as u32 + 1,
                player: p.0 + 1,
                wins: r.wins(),
                losses: r.losses,
                spread: r.spread,
                byes: r.byes,
                rating: zero_is_unrated::written(division.players()[p.index()].rating),
                estimate: estimates[p.index()],
            }
        })
        .collect()
}

/// An event of the tournament as WatchTournament and the log send it.
pub(super) fn event(e: TournamentEvent) -> pb::WatchTournamentResponse {
    // What a result and a round's pairings were then is the spectators' cut's, never sent.
    let TournamentEvent {
        number,
        kind,
        division,
        round,
        pairing,
        detail,
        unix_ms,
        by,
        players,
        scores: _,
        forfeit_winner: _,
        lines: _,
    } = e;
    pb::WatchTournamentResponse {
        number,
        kind,
        division,
        round,
        pairing,
        detail,
        unix_ms,
        by,
        players,
        standings: vec![],
    }
}

/// An event as WatchTournament sends it, with its division's standings when it carries them.
pub(super) fn watched(w: Watched) -> pb::WatchTournamentResponse {
    let standings = w.division.as_ref().map(standings).unwrap_or_default();
    pb::WatchTournamentResponse { standings, ..event(w.event) }
}
