//! ImportGcg's request as a game: the record parsed, its ruleset and lexicon found (or
//! guessed), every line replayed and checked against the words and the written scores (on the
//! pool: a long record is CPU work), and its players seated as people.

use super::auth;
use super::convert;
use super::errors;
use super::new_game::NAME_CHARS;
use super::state::AppState;
use crate::game::record::{CheckReport, check_record_with, import_game};
use crate::game::{Game, GameConfig};
use crate::host::{Seat, SeatKind};
use crate::notation::gcg;
use crate::proto::v1 as pb;
use crate::rules::Ruleset;
use std::sync::Arc;
use tonic::Status;

/// An imported game, its seats and their tokens, and what checking the record found.
pub struct Imported {
    pub game: Game,
    pub seats: Vec<Seat>,
    pub tokens: Vec<String>,
    pub report: CheckReport,
}

/// The game a record describes, checked.
pub async fn import(state: &AppState, req: &pb::ImportGcgRequest) -> Result<Imported, Status> {
    state.check_room()?;
    let Replayed { game, report, record } = replay(state, req).await?;
    let mut seats = Vec::new();
    let mut tokens = Vec::new();
    for p in &record.players {
        let (token, hash) = auth::new_token()?;
        seats.push(Seat::new(player_name(p), SeatKind::Human { token: Some(hash) }));
        tokens.push(token);
    }
    Ok(Imported { game, seats, tokens, report })
}

/// A record's player as a seat's name: the full name when the record gives one, else the nick.
pub fn player_name(p: &gcg::Player) -> String {
    let name: String = p.name.chars().filter(|c| !c.is_control()).take(NAME_CHARS).collect();
    if name.trim().is_empty() { p.nick.clone() } else { name }
}

/// A record replayed into a game (not held by the server), with what checking it found.
pub struct Replayed {
    pub game: Game,
    pub report: CheckReport,
    pub record: gcg::Record,
}

/// Replay a record as ImportGcg does (the ruleset, lexicon and challenge rule from the request,
/// or as the record suggests): INVALID_ARGUMENT when it does not replay.
pub async fn replay(state: &AppState, req: &pb::ImportGcgRequest) -> Result<Replayed, Status> {
    let record = gcg::parse(&req.gcg).map_err(|e| errors::bad_field("gcg", e.to_string()))?;
    // The record's own lexicon, when it is one of ours.
    let named = record.lexicon.as_deref().and_then(|l| state.host.lexicons().get(l)).cloned();
    let kind = if req.ruleset != 0 {
        convert::ruleset_from(req.ruleset)?
    } else {
        crate::game::record::guess_ruleset(&record, named.as_deref().map(|l| l.alphabet()))
    };
    let rules = Arc::new(Ruleset::new(kind));
    let words = !req.lexicon.is_empty();
    let lexicon = match (&named, words) {
        (_, true) => state.lexicon(&req.lexicon)?,
        (Some(l), false) if l.alphabet() == rules.alphabet => l.clone(),
        _ => state.lexicon(rules.default_lexicon)?,
    };
    if lexicon.alphabet() != rules.alphabet {
        return Err(errors::bad_field(
            "lexicon",
            format!("{} does not fit the {kind} ruleset", crate::text::clip(&req.lexicon)),
        ));
    }
    if !(2..=4).contains(&record.players.len()) {
        return Err(errors::bad_field("gcg", format!("{} players: a game has 2 to 4", record.players.len())));
    }
    let mut config = GameConfig::new(rules.clone(), lexicon.clone(), 0);
    config.seats = record.players.len();
    // Records in the field give one bonus per failed challenge.
    config.bonus_per_word = false;
    config.challenge = if req.challenge_rule != 0 {
        convert::challenge_from(req.challenge_rule)?
    } else {
        crate::game::record::guess_challenge(&record)
    };
    // Checking every line and replaying the game is CPU work: on the pool.
    let replayed = state
        .host
        .think(move || {
            let mut report = check_record_with(&record, rules, &lexicon, words);
            let game = import_game(&record, config)?;
            // The written totals must be the game's: a difference no line explains is one more.
            report.reconcile_finals(&record, game.scores());
            Ok::<_, crate::game::record::ImportError>(Replayed { game, report, record })
        })
        .await
        .ok_or_else(|| errors::internal("the record's replay failed"))?;
    replayed.map_err(|e| errors::bad_field("gcg", e.to_string()))
}
