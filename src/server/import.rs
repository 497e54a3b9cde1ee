//! ImportGcg's request as a game: the record parsed, its ruleset and lexicon found (or
//! guessed), every line replayed and checked against the words and the written scores (on the
//! pool: a long record is CPU work), and its players seated as people.

use super::auth;
use super::convert;
use super::errors;
use super::new_game::NAME_CHARS;
use super::state::AppState;
use crate::game::Game;
use crate::game::record::{CheckReport, ImportAsk, SetupError, check_record_with, import_game, import_setup};
use crate::host::{Seat, SeatKind};
use crate::notation::gcg;
use crate::proto::v1 as pb;
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
    let ImportedRecord { game, report, record } = replay(state, req).await?;
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
pub struct ImportedRecord {
    pub game: Game,
    pub report: CheckReport,
    pub record: gcg::Record,
}

/// Replay a record as ImportGcg does (the ruleset, lexicon and challenge rule from the request,
/// or as the record suggests): INVALID_ARGUMENT when it does not replay.
pub async fn replay(state: &AppState, req: &pb::ImportGcgRequest) -> Result<ImportedRecord, Status> {
    let record = gcg::parse(&req.gcg).map_err(|e| errors::bad_field("gcg", e.to_string()))?;
    let words = !req.lexicon.is_empty();
    if words {
        // An unknown lexicon named with the ones there are.
        state.lexicon(&req.lexicon)?;
    }
    let ask = ImportAsk {
        ruleset: (req.ruleset != 0 || !req.ruleset_name.is_empty())
            .then(|| convert::ruleset_named(req.ruleset, &req.ruleset_name, "ruleset"))
            .transpose()
            .map_err(errors::host)?,
        lexicon: words.then(|| req.lexicon.clone()),
        challenge: (req.challenge_rule != 0)
            .then(|| convert::challenge_from(req.challenge_rule))
            .transpose()
            .map_err(errors::host)?,
    };
    let config = import_setup(&record, &ask, |name| state.host.lexicons().get(name).cloned()).map_err(
        |e| match e {
            SetupError::Lexicon(why) => errors::bad_field("lexicon", why),
            SetupError::Record(why) => errors::bad_field("gcg", why),
        },
    )?;
    let (rules, lexicon) = (config.rules.clone(), config.lexicon.clone());
    // Checking every line and replaying the game is CPU work: on the pool.
    let replayed = state
        .host
        .think(move || {
            let mut report = check_record_with(&record, rules, &lexicon, words);
            let game = import_game(&record, config)?;
            // The written totals must be the game's: a difference no line explains is one more.
            report.reconcile_finals(&record, game.scores());
            Ok::<_, crate::game::record::ImportError>(ImportedRecord { game, report, record })
        })
        .await
        .ok_or_else(|| errors::internal("the record's replay failed"))?;
    replayed.map_err(|e| errors::bad_field("gcg", e.to_string()))
}
