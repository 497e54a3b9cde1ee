//! The wire messages made from a kept record, once, for an answer: a tournament, a division with
//! its standings, a round with its games, a player. The only place a division's lines become
//! the wire's sentinels (a `second` of 0 for a bye, a `forfeited_by` of 0 for none).

use super::super::convert;
use crate::proto::v1 as pb;
use dawgref_events::{DivisionId, DivisionRecord, GameSettings, Record, TournamentEvent, Watched};
use dawgref_tournament::ratings::RatingSystem;
use dawgref_tournament::{
    Controls, Division, GameResult, Method, Pairing, PairingId, Player, RoundId, zero_is_unrated,
};

/// The whole tournament as the wire shows it; `you`: the caller's player seat.
pub(super) fn tournament(record: &Record, you: Option<pb::TournamentSeat>) -> pb::Tournament {
    pb::Tournament {
        slug: record.slug().to_string(),
        name: record.name().to_string(),
        game: Some(settings(record.game())),
        divisions: record.division_ids().map(|d| division(record, d)).collect(),
        events: record.event_count(),
        you,
    }
}

/// Division `d` as the wire shows it: with its standings.
pub(super) fn division(record: &Record, d: DivisionId) -> pb::TournamentDivision {
    let entry = record.entry(d);
    let div = entry.division();
    pb::TournamentDivision {
        name: div.name().to_string(),
        players: (div.players().iter().enumerate()).map(|(i, p)| player(i as u32 + 1, p)).collect(),
        rounds: entry.round_ids().map(|k| round(entry, k)).collect(),
        controls: Some(controls(div.controls())),
        standings: standings(div),
    }
}

/// Round `k` of a division as the wire shows it, each line with its game.
pub(super) fn round(entry: &DivisionRecord, k: RoundId) -> pb::TournamentRound {
    let round = &entry.division().rounds()[k.index()];
    pb::TournamentRound {
        number: k.number(),
        spec: Some(spec(round.method)),
        paired: round.pairings.is_some(),
        started: entry.started(k),
        pairings: (entry.pairings(k))
            .map(|(i, line)| pb::TournamentPairing {
                game_id: entry.game_id(k, i).unwrap_or_default().to_string(),
                ..pairing(i, line)
            })
            .collect(),
    }
}

/// Player `number` (from 1).
pub(super) fn player(number: u32, p: &Player) -> pb::TournamentPlayer {
    pb::TournamentPlayer {
        number,
        name: p.name.clone(),
        rating: zero_is_unrated::written(p.rating),
        bot: level(p).map(bot),
        withdrawn: p.withdrawn,
        lifetime_games: p.lifetime_games,
    }
}

/// The level of the server bot that plays `p`, if one does.
pub(super) fn level(p: &Player) -> Option<crate::bot::BotLevel> {
    p.bot.as_deref().and_then(|level| level.parse().ok())
}

/// A bot level as the wire numbers it.
pub(super) fn bot(level: crate::bot::BotLevel) -> i32 {
    super::super::convert::bot_to(level) as i32
}

fn spec(method: Method) -> pb::RoundSpec {
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

/// The controls as they apply (a spread left unset shows the default it is).
fn controls(c: &Controls) -> pb::DivisionControls {
    pb::DivisionControls {
        bye_spread: Some(c.bye_spread),
        forfeit_spread: Some(c.forfeit_spread),
        spread_cap: c.spread_cap,
        gibsonize: c.gibson_spread.is_some(),
        gibson_spread: c.gibson_spread.unwrap_or(0),
        min_placement: c.min_placement,
        rating_system: rating_system(c.rating_system) as i32,
    }
}

/// A rating system as the wire numbers it.
pub(super) fn rating_system(system: RatingSystem) -> pb::RatingSystem {
    match system {
        RatingSystem::None => pb::RatingSystem::Unspecified,
        RatingSystem::Nsa2008 => pb::RatingSystem::Nsa2008,
        RatingSystem::Naspa2024 => pb::RatingSystem::Naspa2024,
        RatingSystem::NaspaClub => pb::RatingSystem::NaspaClub,
        RatingSystem::Absp => pb::RatingSystem::Absp,
    }
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

/// The games' settings as the director gave them: a ruleset named by its enum where it has one
/// and by its name always (as a game's view names it), what was not said unspecified.
pub(super) fn settings(g: &GameSettings) -> pb::TournamentGameSettings {
    pb::TournamentGameSettings {
        ruleset: g.ruleset.map_or(0, |k| convert::ruleset_to(k) as i32),
        ruleset_name: g.ruleset.map(|k| k.name().to_string()).unwrap_or_default(),
        lexicon: g.lexicon.clone(),
        challenge_rule: g.challenge.map_or(0, |c| convert::challenge_to(c) as i32),
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

/// An event of the tournament as WatchTournament and the log send it.
pub(super) fn event(e: TournamentEvent) -> pb::WatchTournamentResponse {
    let TournamentEvent { number, kind, division, round, pairing, detail, unix_ms, by, players } = e;
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
