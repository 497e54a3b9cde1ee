//! Making tournaments: CreateTournament and ImportTsh (every field checked, naming it, into the
//! events layer's `NewTournament` and `Command::ImportDivision`), the players' tokens, and the
//! tournament's game settings checked as any new game's are.

use super::super::{auth, convert, errors, new_game};
use super::{TournamentsService, view};
use crate::host::{Seat, SeatKind};
use crate::proto::v1 as pb;
use dawgref_events::{
    Command, GameSettings, Import, NewDivision, NewTournament, PlayersOf, Record, check_divisions,
    check_players,
};
use dawgref_tournament::ratings::RatingSystem;
use dawgref_tournament::{Controls, Method, zero_is_unrated};
use tonic::{Request, Status};

use dawgref_tournament::MAX_ROUNDS;
pub(super) const MAX_TSH_BYTES: usize = 1 << 20;

pub(super) async fn create(
    service: &TournamentsService,
    request: Request<pb::CreateTournamentRequest>,
) -> Result<pb::CreateTournamentResponse, Status> {
    let r = request.get_ref();
    new_game::check_slug("slug", &r.slug)?;
    let actor = service.director(request.metadata(), &r.slug).await?;
    new_game::check_title("name", &r.name)?;
    let game = settings(&r.game.clone().unwrap_or_default()).map_err(in_game)?;
    check_game(service, &game)?;
    check_divisions(r.divisions.len(), false).map_err(errors::invalid)?;
    let seed = new_game::seed_or_random(r.seed)?;
    let mut divisions: Vec<NewDivision> = Vec::with_capacity(r.divisions.len());
    let mut tokens = Vec::new();
    for (i, spec) in r.divisions.iter().enumerate() {
        let field = format!("divisions[{i}]");
        check_division_name(divisions.iter().map(|d| d.name.as_str()), &format!("{field}.name"), &spec.name)?;
        check_players(spec.players.len(), PlayersOf::NewDivision { index: i }).map_err(errors::invalid)?;
        let methods = check_rounds(&format!("{field}.rounds"), &spec.rounds)?;
        let given = check_controls(&format!("{field}.controls"), spec.controls.unwrap_or_default())?;
        let mut players = Vec::with_capacity(spec.players.len());
        let mut hashes = Vec::with_capacity(spec.players.len());
        for (j, p) in spec.players.iter().enumerate() {
            check_player(&format!("{field}.players[{j}]"), p)?;
            let (token, hash) = token_for(p)?;
            players.push(player(p));
            hashes.push(hash);
            if let Some(token) = token {
                tokens.push(pb::PlayerToken { division: spec.name.clone(), player: j as u32 + 1, token });
            }
        }
        let controls = controls(&given, 0);
        divisions.push(NewDivision { name: spec.name.clone(), players, tokens: hashes, methods, controls });
    }
    let same_names = r.allow_same_names;
    let new = NewTournament { slug: r.slug.clone(), name: r.name.clone(), game, seed, divisions, same_names };
    let record = service.state.events.create_tournament(&actor, new).await.map_err(errors::events)?;
    Ok(pb::CreateTournamentResponse {
        tournament: Some(view::tournament(&record, None)),
        player_tokens: tokens,
    })
}

/// The games' settings, as any new game's are checked (a game of two people, to check them).
fn check_game(service: &TournamentsService, game: &GameSettings) -> Result<(), Status> {
    let seats = ["a", "b"].map(|name| Seat::new(name.to_string(), SeatKind::Human { token: None }));
    let spec = new_game::from_settings(&service.state, game, seats.to_vec(), 0);
    new_game::build(spec.map_err(in_game)?).map(|_| ()).map_err(in_game)
}

/// What a tournament's game settings name and a game refuses, as the field of `game` it is.
fn in_game(e: crate::host::HostError) -> Status {
    let s = errors::host(e);
    Status::new(s.code(), format!("game.{}", s.message()))
}

/// A division's rounds, played and to come: the same bound at creation and at ImportTsh.
fn check_round_count(field: &str, rounds: usize) -> Result<(), Status> {
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        return Err(errors::bad_field(field, format!("{rounds} rounds: a division has 1 to {MAX_ROUNDS}")));
    }
    Ok(())
}

/// A division's name: a slug, and none of `taken`.
fn check_division_name<'a>(
    mut taken: impl Iterator<Item = &'a str>,
    field: &str,
    name: &str,
) -> Result<(), Status> {
    new_game::check_slug(field, name)?;
    if taken.any(|taken| taken == name) {
        return Err(errors::bad_field(
            field,
            format!("{name:?}: the tournament has a division of that name"),
        ));
    }
    Ok(())
}

/// A division's rounds as given: their count bounded, each method one a division can pair by.
fn check_rounds(field: &str, specs: &[pb::RoundSpec]) -> Result<Vec<dawgref_tournament::Method>, Status> {
    check_round_count(field, specs.len())?;
    check_methods(field, specs)
}

/// Each round's method as given: one a division can pair by.
pub(super) fn check_methods(
    field: &str,
    specs: &[pb::RoundSpec],
) -> Result<Vec<dawgref_tournament::Method>, Status> {
    let mut methods = Vec::with_capacity(specs.len());
    for (k, spec) in specs.iter().enumerate() {
        let at = format!("{field}[{k}]");
        if pb::PairingMethod::try_from(spec.method).is_err() {
            return Err(errors::bad_field(
                &format!("{at}.method"),
                format!("{}: no such method", spec.method),
            ));
        }
        let m = method(Some(spec));
        if let Some(why) = m.problem() {
            let field = match m {
                dawgref_tournament::Method::Factor(_) => "factor",
                _ => "fontes_rounds",
            };
            return Err(errors::bad_field(&format!("{at}.{field}"), why));
        }
        methods.push(m);
    }
    Ok(methods)
}

fn check_controls(field: &str, c: pb::DivisionControls) -> Result<pb::DivisionControls, Status> {
    for (name, v) in [("bye_spread", c.bye_spread), ("forfeit_spread", c.forfeit_spread)] {
        if let Some(v) = v {
            check_spread(&format!("{field}.{name}"), v)?;
        }
    }
    if pb::RatingSystem::try_from(c.rating_system).is_err() {
        return Err(errors::bad_field(
            &format!("{field}.rating_system"),
            format!("{}: not a RatingSystem", c.rating_system),
        ));
    }
    Ok(pb::DivisionControls { min_placement: c.min_placement.max(1), ..c })
}

/// A spread given for a bye, a forfeit or a late entry's rounds gone: -1000 to 1000.
pub(super) fn check_spread(field: &str, v: i32) -> Result<i32, Status> {
    const SPREAD_MAX: i32 = 1000;
    if !(-SPREAD_MAX..=SPREAD_MAX).contains(&v) {
        return Err(errors::bad_field(field, format!("{v}: -{SPREAD_MAX} to {SPREAD_MAX}")));
    }
    Ok(v)
}

/// A player as given: a display name a `.t` file can hold (`tsh::name_problem`: TSH reads the
/// first word that starts with a digit as the rating, `;` ends its field, `#` starts a comment),
/// and a bot level that is one.
pub(super) fn check_player(field: &str, p: &pb::TournamentPlayerSpec) -> Result<(), Status> {
    let name = new_game::display_name(&format!("{field}.name"), &p.name)?;
    if let Some(why) = dawgref_tournament::tsh::name_problem(&name) {
        return Err(errors::bad_field(&format!("{field}.name"), why));
    }
    if let Some(level) = p.bot {
        super::super::convert::bot_from(level)?;
    }
    Ok(())
}

/// A human player's new token and its hash; a bot's: none.
pub(super) fn token_for(
    p: &pb::TournamentPlayerSpec,
) -> Result<(Option<String>, Option<auth::TokenHash>), Status> {
    if p.bot.is_some() {
        return Ok((None, None));
    }
    let (token, hash) = auth::new_token()?;
    Ok((Some(token), Some(hash)))
}

/// A player as given (checked by [`check_player`]), as the division keeps them.
pub(super) fn player(p: &pb::TournamentPlayerSpec) -> dawgref_tournament::Player {
    dawgref_tournament::Player {
        bot: p
            .bot
            .and_then(|level| super::super::convert::bot_from(level).ok())
            .map(|l| l.name().to_string()),
        lifetime_games: p.lifetime_games,
        ..dawgref_tournament::Player::new(p.name.trim(), zero_is_unrated::read(p.rating))
    }
}

/// The player a token is (compared with every player's hash), and their current game.
pub(super) fn player_of(record: &Record, token: &str) -> Option<pb::TournamentSeat> {
    for entry in record.divisions() {
        if let Some(i) = auth::find_seat(token, entry.tokens()) {
            let current = entry.current_game(dawgref_tournament::PlayerId(i as u32));
            return Some(pb::TournamentSeat {
                division: entry.division().name().to_string(),
                player: i as u32 + 1,
                current_game_id: current.unwrap_or_default().to_string(),
            });
        }
    }
    None
}

/// ImportTsh: a division from a `.t` file, its rounds played kept as manual rounds.
pub(super) async fn import_tsh(
    service: &TournamentsService,
    request: Request<pb::ImportTshRequest>,
) -> Result<pb::ImportTshResponse, Status> {
    let r = request.get_ref().clone();
    let actor = service.director(request.metadata(), &r.slug).await?;
    if r.text.len() > MAX_TSH_BYTES {
        return Err(errors::bad_field("text", format!("{} bytes: at most {MAX_TSH_BYTES}", r.text.len())));
    }
    let to_come: Vec<dawgref_tournament::Method> = if r.rounds_to_come.is_empty() {
        Vec::new()
    } else {
        check_rounds("rounds_to_come", &r.rounds_to_come)?
    };
    let given = check_controls("controls", r.controls.unwrap_or_default())?;
    let text = r.text.strip_prefix('\u{feff}').unwrap_or(&r.text);
    let import = |seed: u64| {
        dawgref_tournament::tsh::import(&r.division, text, controls(&given, seed), &to_come)
            .map_err(|e| errors::bad_field("text", e.to_string()))
    };
    let division = import(0)?;
    check_players(division.players().len(), PlayersOf::Imported).map_err(errors::invalid)?;
    check_round_count("rounds_to_come", division.rounds().len())?;
    let mut tokens = Vec::new();
    let mut hashes = Vec::new();
    for (j, p) in division.players().iter().enumerate() {
        let bot = match &p.bot {
            None => None,
            Some(level) => Some(
                level
                    .parse::<crate::bot::BotLevel>()
                    .map(view::bot)
                    .map_err(|e| errors::bad_field("text", format!("player {}: {e}", j + 1)))?,
            ),
        };
        let spec = pb::TournamentPlayerSpec {
            name: p.name.clone(),
            rating: zero_is_unrated::written(p.rating),
            bot,
            lifetime_games: p.lifetime_games,
        };
        check_player(&format!("text: player {}", j + 1), &spec)?;
        let (token, hash) = token_for(&spec)?;
        hashes.push(hash);
        if let Some(token) = token {
            tokens.push(pb::PlayerToken { division: r.division.clone(), player: j as u32 + 1, token });
        }
    }
    new_game::check_slug("division", &r.division)?;
    let command = Command::ImportDivision(Import {
        division: r.division.clone(),
        text: text.to_string(),
        controls: controls(&given, 0),
        rounds_to_come: to_come,
        tokens: hashes,
    });
    let answer = |rec: &Record, o| pb::ImportTshResponse {
        division: super::division_of(rec, o),
        player_tokens: Vec::new(),
    };
    // No retry id: the players' tokens are shown once, and never kept to be answered again.
    let answer = service.commanded(&actor, &r.slug, "", command, answer).await?;
    Ok(pb::ImportTshResponse { player_tokens: tokens, ..answer })
}

/// A round's method as the wire gives it (unspecified: Swiss).
fn method(spec: Option<&pb::RoundSpec>) -> Method {
    let spec = spec.cloned().unwrap_or_default();
    match pb::PairingMethod::try_from(spec.method).unwrap_or(pb::PairingMethod::Unspecified) {
        pb::PairingMethod::Unspecified | pb::PairingMethod::Swiss => Method::Swiss,
        pb::PairingMethod::RoundRobin => Method::RoundRobin,
        pb::PairingMethod::KingOfTheHill => Method::KingOfTheHill,
        pb::PairingMethod::Factor => Method::Factor(spec.factor),
        pb::PairingMethod::InitialFontes => Method::InitialFontes(spec.fontes_rounds),
        pb::PairingMethod::Random => Method::Random,
        pb::PairingMethod::Manual => Method::Manual,
    }
}

/// A division's controls as the wire gives them, with its own `seed`: unset spreads are the
/// crate's defaults (North American play).
fn controls(c: &pb::DivisionControls, seed: u64) -> Controls {
    let unset = Controls::default();
    Controls {
        bye_spread: c.bye_spread.unwrap_or(unset.bye_spread),
        forfeit_spread: c.forfeit_spread.unwrap_or(unset.forfeit_spread),
        spread_cap: c.spread_cap,
        gibson_spread: c.gibsonize.then_some(c.gibson_spread),
        min_placement: c.min_placement.max(1),
        seed,
        rating_system: match pb::RatingSystem::try_from(c.rating_system) {
            Ok(pb::RatingSystem::Nsa2008) => RatingSystem::Nsa2008,
            Ok(pb::RatingSystem::Naspa2024) => RatingSystem::Naspa2024,
            Ok(pb::RatingSystem::NaspaClub) => RatingSystem::NaspaClub,
            Ok(pb::RatingSystem::Absp) => RatingSystem::Absp,
            Ok(pb::RatingSystem::Unspecified) | Err(_) => RatingSystem::None,
        },
    }
}

/// The games' settings as the wire gives them: the ruleset and the challenge rule by what they
/// are (None where the call does not say), as CreateGame reads them.
fn settings(g: &pb::TournamentGameSettings) -> Result<GameSettings, crate::host::HostError> {
    let named = g.ruleset != 0 || !g.ruleset_name.is_empty();
    Ok(GameSettings {
        ruleset: named.then(|| convert::ruleset_named(g.ruleset, &g.ruleset_name, "ruleset")).transpose()?,
        lexicon: g.lexicon.clone(),
        challenge: (g.challenge_rule != 0).then(|| convert::challenge_from(g.challenge_rule)).transpose()?,
        options: g.options.map(new_game::options_of),
        clock: g.clock.map(new_game::clock_settings),
        bot_delay_ms: g.bot_delay_ms,
    })
}
