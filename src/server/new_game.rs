//! A new game, checked: [`GameSpec`], a game in the engine's and the host's terms, made into a
//! game's configuration by [`build`], the one constructor every door calls (CreateGame, through
//! [`new_game`], which reads its request's ruleset and options, lexicon, seats with their names
//! and tokens, seed, clock and the bots' pace; and a tournament's round, from its settings,
//! through [`from_settings`], by [`TournamentGames`], StartRound's way to make its games). Every
//! refusal names its field.

use super::auth;
use super::convert;
use super::errors;
use super::state::AppState;
use crate::bot::BotLevel;
use crate::game::record::nicknames;
use crate::game::{ChallengeRule, ClockConfig, GameConfig};
use crate::host::{HostError, Seat, SeatKind, TournamentLink, default_bot_delay_ms};
use crate::lexicon::Lexicon;
use crate::proto::v1 as pb;
use crate::rules::RulesetKind;
use crate::rules::{BlankValue, Ruleset, ScorelessLimit};
use dawgref_events::{
    ClockSettings, DivisionId, EventsError, GameOptions, GameSettings, LobbyGames, LobbySeat, Record,
    RoundGames, game_labels,
};
use dawgref_tournament::{PlayerId, RoundId};
use std::sync::Arc;
use tonic::Status;

/// The longest display name of a seat, in characters.
pub const NAME_CHARS: usize = 64;

/// A display name as given, if it is one: at most [`NAME_CHARS`] characters, no control
/// characters (a name is shown on one line).
pub fn display_name(field: &str, name: &str) -> Result<String, Status> {
    let chars = name.chars().count();
    if chars > NAME_CHARS {
        return Err(errors::bad_field(field, format!("{chars} characters: a name has at most {NAME_CHARS}")));
    }
    if name.chars().any(char::is_control) {
        return Err(errors::bad_field(field, "a name has no control characters"));
    }
    Ok(name.to_string())
}

/// A game configuration, its seats, each human seat's token (None for bots and open seats),
/// its bots' pace and its labels.
pub type NewGame = (GameConfig, Vec<Seat>, Vec<Option<String>>, u32, Vec<(String, String)>);

/// Labels a game may carry, and their keys' and values' lengths in characters.
const MAX_LABELS: usize = 16;
pub const MAX_LABEL_KEY: usize = 40;
const MAX_LABEL_VALUE: usize = 100;

/// A label's key or a director key's name: 1 to [`MAX_LABEL_KEY`] characters of a-z, 0-9, '_',
/// '-' and '.' (no '=', no space: the store and the GCG notes rely on both).
pub fn is_name(text: &str) -> bool {
    (1..=MAX_LABEL_KEY).contains(&text.chars().count())
        && text.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '_' | '-' | '.'))
}

/// A slug (a tournament's, a broadcast's) or a division's name: a path segment of the pages, so
/// never `.` or `..`.
pub fn check_slug(field: &str, name: &str) -> Result<(), Status> {
    if !is_name(name) || name.chars().all(|c| c == '.') {
        return Err(errors::bad_field(
            field,
            "1 to 40 characters of a-z, 0-9, '_', '-' and '.', not only dots",
        ));
    }
    Ok(())
}

/// The longest name of an event (a tournament's, a broadcast's), in characters.
const TITLE_CHARS: usize = 200;

/// An event's name for people (a tournament's, a broadcast's): 1 to [`TITLE_CHARS`] characters,
/// no control characters.
pub fn check_title(field: &str, title: &str) -> Result<(), Status> {
    let chars = title.chars().count();
    if !(1..=TITLE_CHARS).contains(&chars) || title.chars().any(char::is_control) {
        return Err(errors::bad_field(
            field,
            format!("1 to {TITLE_CHARS} characters, no control characters"),
        ));
    }
    Ok(())
}

/// Labels as a request gives them (CreateGame, ListGames), checked: in key order.
pub fn labels(
    field: &str,
    given: &std::collections::HashMap<String, String>,
) -> Result<Vec<(String, String)>, Status> {
    if given.len() > MAX_LABELS {
        return Err(errors::bad_field(field, format!("{} labels: at most {MAX_LABELS}", given.len())));
    }
    let mut labels: Vec<(String, String)> = Vec::with_capacity(given.len());
    for (key, value) in given {
        if !is_name(key) {
            return Err(errors::bad_field(
                field,
                format!(
                    "label key {:?}: 1 to {MAX_LABEL_KEY} characters of a-z, 0-9, '_', '-' and '.'",
                    crate::text::clip(key)
                ),
            ));
        }
        let chars = value.chars().count();
        if !(1..=MAX_LABEL_VALUE).contains(&chars) || value.chars().any(char::is_control) {
            return Err(errors::bad_field(
                field,
                format!("label {key}: a value is 1 to {MAX_LABEL_VALUE} characters, no control characters"),
            ));
        }
        labels.push((key.clone(), value.clone()));
    }
    labels.sort();
    Ok(labels)
}

/// The least and most a champion seat may be asked to think per move, in ms.
const MIN_THINK_MS: u32 = 50;
const MAX_THINK_MS: u32 = 60_000;

/// The longest pause a game's bots may be asked to take before moving.
const MAX_BOT_DELAY_MS: u32 = 60_000;

/// The seed given, or one from the system's randomness (a game's bag, a tournament's draws).
pub fn seed_or_random(given: Option<u64>) -> Result<u64, Status> {
    if let Some(seed) = given {
        return Ok(seed);
    }
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| errors::internal(format!("no randomness: {e}")))?;
    Ok(u64::from_le_bytes(b))
}

/// A new game in the engine's and the host's terms, checked field by field as its door read it:
/// what [`build`] makes a game's configuration of.
pub struct GameSpec {
    /// The ruleset with the options the game changes.
    pub rules: Ruleset,
    pub lexicon: Arc<Lexicon>,
    pub challenge: ChallengeRule,
    pub bonus_per_challenge: bool,
    pub reveal_invalid_words: bool,
    pub clock: Option<ClockConfig>,
    pub seats: Vec<Seat>,
    pub seed: u64,
    /// Least time between a change and a bot's move (None: the seats' default).
    pub bot_delay_ms: Option<u32>,
}

/// The one constructor of a new game: its configuration, seats and bots' pace (the pace's
/// bound checked here, for every door).
pub fn build(spec: GameSpec) -> Result<(GameConfig, Vec<Seat>, u32), HostError> {
    let mut config = GameConfig::new(Arc::new(spec.rules), spec.lexicon, spec.seed);
    config.challenge = spec.challenge;
    config.bonus_per_word = !spec.bonus_per_challenge;
    config.reveal_invalid_words = spec.reveal_invalid_words;
    config.seats = spec.seats.len();
    if let Some(clock) = spec.clock {
        config.clock = Some(clock);
    }
    let bot_delay_ms = match spec.bot_delay_ms {
        Some(ms) if ms > MAX_BOT_DELAY_MS => {
            return Err(HostError::field("bot_delay_ms", format!("{ms} ms: at most {MAX_BOT_DELAY_MS}")));
        }
        Some(ms) => ms,
        None => default_bot_delay_ms(&spec.seats),
    };
    Ok((config, spec.seats, bot_delay_ms))
}

pub fn new_game(state: &AppState, req: &pb::CreateGameRequest) -> Result<NewGame, Status> {
    let o = req.options.unwrap_or_default();
    let kind = convert::ruleset_named(req.ruleset, &req.ruleset_name, "ruleset").map_err(errors::host)?;
    let (rules, lexicon) =
        rules_of(state, kind, &convert::options_from(o), &req.lexicon).map_err(errors::host)?;
    let (seats, tokens) = seats_of(req)?;
    let seed = seed_or_random(req.seed)?;
    let challenge = convert::challenge_from(req.challenge_rule).map_err(errors::host)?;
    let clock = match &req.clock {
        Some(c) => clock(&convert::clock_from(*c)).map_err(errors::host)?,
        None => None,
    };
    let spec = GameSpec {
        rules,
        lexicon,
        challenge,
        bonus_per_challenge: o.bonus_per_challenge,
        reveal_invalid_words: o.reveal_invalid_words,
        clock,
        seats,
        seed,
        bot_delay_ms: req.bot_delay_ms,
    };
    let (config, seats, bot_delay_ms) = build(spec).map_err(errors::host)?;
    let labels = labels("labels", &req.labels)?;
    // A registered bot's seat is marked by the server alone (a tournament's, a challenge's game).
    if let Some((key, _)) =
        labels.iter().find(|(key, _)| (0..seats.len()).any(|s| *key == dawgref_events::bot_account_label(s)))
    {
        return Err(errors::bad_field(
            "labels",
            format!("label key {key:?}: marks a seat a registered bot plays, the server's own label"),
        ));
    }
    Ok((config, seats, tokens, bot_delay_ms, labels))
}

/// A tournament's game from its settings (checked when the tournament was made): every seat as
/// given, named for its player.
pub fn from_settings(
    state: &AppState,
    settings: &GameSettings,
    seats: Vec<Seat>,
    seed: u64,
) -> Result<GameSpec, HostError> {
    let options = settings.options.unwrap_or_default();
    let ruleset = settings.ruleset.unwrap_or_else(RulesetKind::english);
    let (rules, lexicon) = rules_of(state, ruleset, &options, &settings.lexicon)?;
    let challenge = settings.challenge.unwrap_or(ChallengeRule::Single);
    let clock = match &settings.clock {
        Some(c) => clock(c)?,
        None => None,
    };
    Ok(GameSpec {
        rules,
        lexicon,
        challenge,
        bonus_per_challenge: options.bonus_per_challenge,
        reveal_invalid_words: options.reveal_invalid_words,
        clock,
        seats,
        seed,
        bot_delay_ms: settings.bot_delay_ms,
    })
}

/// A game's ruleset with the options it changes, and its lexicon (empty: the ruleset's own):
/// every door's, in this order.
fn rules_of(
    state: &AppState,
    kind: RulesetKind,
    options: &GameOptions,
    lexicon: &str,
) -> Result<(Ruleset, Arc<Lexicon>), HostError> {
    let rules = ruleset(kind, options)?;
    let lexicon = lexicon_for(state, lexicon, &rules)?;
    Ok((rules, lexicon))
}

/// Ruleset `kind` with the options a game changes.
fn ruleset(kind: RulesetKind, o: &GameOptions) -> Result<Ruleset, HostError> {
    let mut rules = Ruleset::new(kind);
    if o.blank_scores_letter {
        rules.options.blank_value = BlankValue::LetterValue;
    }
    if let Some(v) = o.no_repeated_words {
        rules.options.no_repeated_words = v;
    }
    if let Some(n) = o.scoreless_turn_limit {
        if n == 0 {
            return Err(HostError::field("options.scoreless_turn_limit", "must be at least 1"));
        }
        rules.options.scoreless_turn_limit = ScorelessLimit::Turns(n);
    }
    if let Some(n) = o.exchange_limit {
        rules.options.exchange_limit = n;
    }
    Ok(rules)
}

/// The lexicon named (empty: the ruleset's own); it must be in the ruleset's alphabet.
fn lexicon_for(state: &AppState, name: &str, rules: &Ruleset) -> Result<Arc<Lexicon>, HostError> {
    if name.is_empty() && rules.default_lexicon.is_empty() {
        return Err(HostError::field(
            "lexicon",
            format!(
                "the {} ruleset has no lexicon of its own: name one of its alphabet (ListLexicons)",
                rules.kind
            ),
        ));
    }
    let lexicon_name = if name.is_empty() { rules.default_lexicon.to_string() } else { name.to_string() };
    let lexicon = state.lexicon_named(&lexicon_name)?;
    if lexicon.alphabet() != rules.alphabet {
        return Err(HostError::field(
            "lexicon",
            format!("lexicon {lexicon_name} is {}, the ruleset needs {}", lexicon.alphabet(), rules.alphabet),
        ));
    }
    Ok(lexicon)
}

/// The request's seats, named, and each human seat's token (None for bots and open seats).
fn seats_of(req: &pb::CreateGameRequest) -> Result<(Vec<Seat>, Vec<Option<String>>), Status> {
    if !(2..=4).contains(&req.seats.len()) {
        return Err(errors::bad_field("seats", format!("{} seats: a game has 2 to 4", req.seats.len())));
    }
    let mut specs: Vec<(String, SeatKind)> = Vec::new();
    let mut thinks: Vec<Option<u32>> = Vec::new();
    let mut tokens = Vec::new();
    // Seats without a name get one that is already a record's nickname (`seat0`,
    // `strong_bot`), made unique: views and GCG then call them the same.
    let mut defaulted = Vec::new();
    for (i, s) in req.seats.iter().enumerate() {
        thinks.push(think_ms(i, s)?);
        match &s.kind {
            Some(pb::seat_spec::Kind::Bot(level)) => {
                let level = convert::bot_from(*level)?;
                defaulted.push(i);
                specs.push((format!("{}_bot", level.name()), SeatKind::Bot(level)));
                tokens.push(None);
            }
            Some(pb::seat_spec::Kind::Human(h)) => {
                let name = if h.name.is_empty() {
                    defaulted.push(i);
                    format!("seat{i}")
                } else {
                    display_name(&format!("seats[{i}].name"), &h.name)?
                };
                if h.open {
                    specs.push((name, SeatKind::Human { token: None }));
                    tokens.push(None);
                } else {
                    let (token, hash) = auth::new_token()?;
                    specs.push((name, SeatKind::Human { token: Some(hash) }));
                    tokens.push(Some(token));
                }
            }
            None => return Err(errors::bad_field(&format!("seats[{i}]"), "a seat is human or bot")),
        }
    }
    let names: Vec<String> = specs.iter().map(|(name, _)| name.clone()).collect();
    let nicks = nicknames(&names);
    for i in defaulted {
        specs[i].0 = nicks[i].clone();
    }
    let seats: Vec<Seat> = specs
        .into_iter()
        .zip(thinks)
        .map(|((name, kind), think)| Seat::new(name, kind).with_think_ms(think))
        .collect();
    Ok((seats, tokens))
}

/// Seat `i`'s thinking time per move, if it asks for one: only a champion bot thinks.
fn think_ms(i: usize, s: &pb::SeatSpec) -> Result<Option<u32>, Status> {
    let champion =
        matches!(&s.kind, Some(pb::seat_spec::Kind::Bot(l)) if convert::bot_from(*l)? == BotLevel::Champion);
    match s.think_ms {
        None => Ok(None),
        Some(_) if !champion => Err(errors::bad_field(
            &format!("seats[{i}].think_ms"),
            "only a champion bot thinks: the other seats take no thinking time",
        )),
        Some(ms) if (MIN_THINK_MS..=MAX_THINK_MS).contains(&ms) => Ok(Some(ms)),
        Some(ms) => Err(errors::bad_field(
            &format!("seats[{i}].think_ms"),
            format!("{ms} ms: {MIN_THINK_MS} to {MAX_THINK_MS}"),
        )),
    }
}

/// The clock a game's settings ask for, if any: a correspondence clock (a time per move only),
/// or a game clock with its initial time, increment, overtime and penalty.
fn clock(c: &ClockSettings) -> Result<Option<ClockConfig>, HostError> {
    if c.per_move_ms > 0 {
        const HOUR_MS: u64 = 3_600_000;
        if c.initial_ms > 0 || c.increment_ms > 0 || c.max_overtime_ms > 0 {
            return Err(HostError::field(
                "clock.per_move_ms",
                "a correspondence clock has a time per move only: no initial time, increment or overtime",
            ));
        }
        if !(HOUR_MS..=30 * 24 * HOUR_MS).contains(&c.per_move_ms) {
            return Err(HostError::field("clock.per_move_ms", "one hour to 30 days a move"));
        }
        return Ok(Some(ClockConfig::per_move(c.per_move_ms)));
    }
    if c.initial_ms > 0 {
        const DAY_MS: u64 = 86_400_000;
        if c.initial_ms > DAY_MS || c.increment_ms > DAY_MS || c.max_overtime_ms > DAY_MS {
            return Err(HostError::field("clock", "times are limited to a day"));
        }
        if !(0..=1000).contains(&c.penalty_per_minute) {
            return Err(HostError::field("clock.penalty_per_minute", "0 to 1000 points"));
        }
        return Ok(Some(ClockConfig {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            max_overtime_ms: c.max_overtime_ms,
            penalty_per_minute: if c.penalty_per_minute == 0 { 10 } else { c.penalty_per_minute },
            per_move: false,
        }));
    }
    Ok(None)
}

// A tournament round's games (`dawgref_events::RoundGames`, the seam StartRound makes them
// through): each made by the one constructor, every seat named for its player and each human
// seat bound to its player's token.

/// A round's games made on this server's host.
pub(crate) struct TournamentGames<'a>(pub(crate) &'a AppState);

impl RoundGames for TournamentGames<'_> {
    /// The game of `pair`, made (or found made by an earlier call: its id is drawn from what it
    /// is) by the one constructor of every new game, from the tournament's settings: every seat
    /// named for its player, each human seat bound to its player's token hash.
    async fn make(
        &self,
        record: &Record,
        d: DivisionId,
        round: RoundId,
        pair: [PlayerId; 2],
        id: uuid::Uuid,
    ) -> Result<(), EventsError> {
        let entry = record.entry(d);
        let seats: Vec<Seat> = pair
            .into_iter()
            .map(|p| {
                let player = &entry.division().players()[p.index()];
                let kind = match player.bot.as_deref().and_then(|level| level.parse().ok()) {
                    Some(level) => SeatKind::Bot(level),
                    None => SeatKind::Human { token: entry.tokens()[p.index()] },
                };
                Seat::new(player.name.clone(), kind)
            })
            .collect();
        let mut labels: Vec<(String, String)> =
            game_labels(record.slug(), entry.division().name(), round.number()).into();
        // A seat a registered bot plays by its account, marked as a bot's.
        for (seat, p) in pair.iter().enumerate() {
            if let Some(account) = &entry.division().players()[p.index()].account {
                labels.push((dawgref_events::bot_account_label(seat), account.clone()));
            }
        }
        // The table its players sit at, for the room (a game of a round paired has one).
        let line = entry.division().line_of(round.index(), pair[0]).map(|(line, _)| line);
        if let Some(table) = line.and_then(|line| entry.division().table(round.index(), line)) {
            labels.push(("table".to_string(), table.to_string()));
        }
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed();
        let spec = from_settings(self.0, record.game(), seats, seed)?;
        let (config, seats, delay) = build(spec)?;
        let game = crate::game::Game::new(config).map_err(HostError::Game)?;
        let link = TournamentLink {
            slug: record.slug().to_string(),
            division: entry.division().name().to_string(),
            round: round.number(),
        };
        match self.0.host.create(Some(id), game, seats, Some(delay), None, labels, Some(link)).await {
            Ok(_) | Err(HostError::GameExists(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

/// Whether a game of `settings` can be made (its ruleset, options, lexicon and clock): what a
/// challenge is checked by when it is sent, as its game will be made when it is accepted.
pub fn check_settings(state: &AppState, settings: &GameSettings) -> Result<(), HostError> {
    let seats = vec![
        Seat::new("a".into(), SeatKind::Human { token: None }),
        Seat::new("b".into(), SeatKind::Human { token: None }),
    ];
    build(from_settings(state, settings, seats, 0)?).map(|_| ())
}

/// How an accepted challenge's game is made: the lobby's seam ([`LobbyGames`]).
pub struct ChallengeGames(pub std::sync::Arc<AppState>);

impl LobbyGames for ChallengeGames {
    /// The challenge's game, made (or found made by an earlier call: its id is drawn from the
    /// challenge's) by the one constructor of every new game, from the challenge's settings: each
    /// seat bound to its player's token hash (a bot's account token, a person's challenge token),
    /// or the server's own bot at its level.
    async fn make(
        &self,
        id: uuid::Uuid,
        settings: &GameSettings,
        seats: [LobbySeat; 2],
        seed: u64,
        labels: Vec<(String, String)>,
    ) -> Result<(), EventsError> {
        let mut made = Vec::with_capacity(2);
        for seat in seats {
            made.push(match seat {
                LobbySeat::Token { name, token } => Seat::new(name, SeatKind::Human { token: Some(token) }),
                LobbySeat::Server { name, level } => {
                    let level: BotLevel = level.parse().map_err(|_| {
                        HostError::Internal(format!(
                            "a challenge names the server's bot {level:?}, none of its levels"
                        ))
                    })?;
                    Seat::new(name, SeatKind::Bot(level))
                }
            });
        }
        let seats = made;
        let spec = from_settings(&self.0, settings, seats, seed)?;
        let (config, seats, delay) = build(spec)?;
        let game = crate::game::Game::new(config).map_err(HostError::Game)?;
        match self.0.host.create(Some(id), game, seats, Some(delay), None, labels, None).await {
            Ok(_) | Err(HostError::GameExists(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
