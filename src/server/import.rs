//! ImportGcg's request as a game: the record parsed, its ruleset and lexicon found (or
//! guessed), every line replayed and checked against the words and the written scores (on the
//! pool: a long record is CPU work), and its players seated as people.

use super::auth;
use super::convert;
use super::errors;
use super::new_game::NAME_CHARS;
use super::state::AppState;
use crate::game::record::{CheckReport, check_record_with, import_game};
use crate::game::{ChallengeRule, Game, GameConfig};
use crate::host::{Seat, SeatKind};
use crate::notation::gcg;
use crate::proto::v1 as pb;
use crate::rules::{Ruleset, RulesetKind};
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
    let record = gcg::parse(&req.gcg).map_err(|e| errors::bad_field("gcg", e.to_string()))?;
    // The record's own lexicon, when it is one of ours.
    let named = record.lexicon.as_deref().and_then(|l| state.host.lexicons().get(l)).cloned();
    let kind = if req.ruleset != 0 {
        convert::ruleset_from(req.ruleset)?
    } else {
        infer_ruleset(&record, named.as_deref())
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
    state.check_room()?;
    let mut config = GameConfig::new(rules.clone(), lexicon.clone(), 0);
    config.seats = record.players.len();
    // Records in the field give one bonus per failed challenge.
    config.bonus_per_word = false;
    config.challenge = if req.challenge_rule != 0 {
        convert::challenge_from(req.challenge_rule)?
    } else {
        let bonus = record.moves.iter().find(|m| m.kind == gcg::MoveKind::ChallengeBonus).map(|m| m.score);
        match bonus {
            Some(10) => ChallengeRule::TenPoint,
            Some(_) => ChallengeRule::FivePoint,
            None => ChallengeRule::Single,
        }
    };
    let mut seats = Vec::new();
    let mut tokens = Vec::new();
    for p in &record.players {
        let (token, hash) = auth::new_token()?;
        let name: String = p.name.chars().filter(|c| !c.is_control()).take(NAME_CHARS).collect();
        let name = if name.trim().is_empty() { p.nick.clone() } else { name };
        seats.push(Seat::new(name, SeatKind::Human { token: Some(hash) }));
        tokens.push(token);
    }
    // Checking every line and replaying the game is CPU work: on the pool.
    let replayed = state
        .host
        .pool()
        .run(move || {
            let mut report = check_record_with(&record, rules, &lexicon, words);
            let game = import_game(&record, config)?;
            // The written totals must be the game's: a difference no line explains is one more.
            report.reconcile_finals(&record, game.scores());
            Ok::<_, crate::game::record::ImportError>((game, report))
        })
        .await
        .ok_or_else(|| errors::internal("the record's replay failed"))?;
    let (game, report) = replayed.map_err(|e| errors::bad_field("gcg", e.to_string()))?;
    Ok(Imported { game, seats, tokens, report })
}

/// The ruleset of a record that does not say: its lexicon's (when the record names one of
/// ours), else the one a dawgref export names in its description, else its letters' alphabet
/// (Cyrillic is Скрэббл unless the record says Эрудит).
fn infer_ruleset(record: &gcg::Record, lexicon: Option<&crate::lexicon::Lexicon>) -> RulesetKind {
    use crate::alphabet::Alphabet;
    if let Some(l) = lexicon {
        return match l.alphabet() {
            Alphabet::English => RulesetKind::English,
            Alphabet::Russian => RulesetKind::Russian,
            Alphabet::Erudit => RulesetKind::Erudit,
        };
    }
    let described = record.pragmas.iter().filter(|(k, _)| k == "description").find_map(|(_, v)| {
        let mut words = v.split_whitespace();
        words.find(|w| *w == "ruleset")?;
        words.next()?.parse::<RulesetKind>().ok()
    });
    if let Some(kind) = described {
        return kind;
    }
    let cyrillic = record.moves.iter().any(|m| {
        let text = match &m.kind {
            gcg::MoveKind::Play { word, .. } => word.as_str(),
            _ => m.rack.as_deref().unwrap_or(""),
        };
        text.chars().any(|c| matches!(c, '\u{0400}'..='\u{04FF}'))
    });
    if cyrillic { RulesetKind::Russian } else { RulesetKind::English }
}
