//! Making tournaments: CreateTournament and ImportTsh read into the events layer's
//! `NewTournament` and `Command::ImportDivision` (what only the wire can get wrong refused here,
//! naming its field; the rules are the layer's), the players' tokens made and shown once, and
//! the tournament's game settings checked as any new game's are.

use super::super::{auth, convert, errors, new_game};
use super::{TournamentsService, view};
use crate::host::{Seat, SeatKind};
use crate::proto::v1 as pb;
use dawgref_events::{
    Command, GameSettings, Import, NewDivision, NewTournament, Record, ReportsMode, check_divisions,
};
use dawgref_tournament::{Player, zero_is_unrated};
use tonic::{Request, Status};

pub(super) const MAX_TSH_BYTES: usize = 1 << 20;

pub(super) async fn create(
    service: &TournamentsService,
    request: Request<pb::CreateTournamentRequest>,
) -> Result<pb::CreateTournamentResponse, Status> {
    let r = request.get_ref();
    new_game::check_slug("slug", &r.slug)?;
    let actor = service.director(request.metadata(), &r.slug).await?;
    new_game::check_title("name", &r.name)?;
    let game = convert::settings_from(&r.game.clone().unwrap_or_default()).map_err(in_game)?;
    check_game(service, &game)?;
    // Bounded before a token is made for anyone.
    check_divisions(r.divisions.len(), false).map_err(errors::invalid)?;
    let seed = new_game::seed_or_random(r.seed)?;
    let mut divisions: Vec<NewDivision> = Vec::with_capacity(r.divisions.len());
    let mut tokens = Vec::new();
    for (i, spec) in r.divisions.iter().enumerate() {
        let field = format!("divisions[{i}]");
        new_game::check_slug(&format!("{field}.name"), &spec.name)?;
        let methods = convert::methods_from(&format!("{field}.rounds"), &spec.rounds)?;
        let controls =
            convert::controls_from(&format!("{field}.controls"), spec.controls.unwrap_or_default())?;
        let mut players = Vec::with_capacity(spec.players.len());
        let mut hashes = Vec::with_capacity(spec.players.len());
        for (j, p) in spec.players.iter().enumerate() {
            let (player, token, hash) = player(&format!("{field}.players[{j}]"), p)?;
            players.push(player);
            hashes.push(hash);
            if let Some(token) = token {
                tokens.push(pb::PlayerToken { division: spec.name.clone(), player: j as u32 + 1, token });
            }
        }
        let reports = convert::reports_from(
            &format!("{field}.result_reports"),
            spec.result_reports,
            Some(ReportsMode::Off),
        )?;
        let name = spec.name.clone();
        let bots_only = spec.bots_only;
        divisions.push(NewDivision { name, players, tokens: hashes, methods, controls, reports, bots_only });
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

/// A player as given at `field`, as the division keeps them (a display name, a bot level that
/// is one, a registered bot's account under its name when none is given), with a person's new
/// token and its hash (a bot has none; a bot's account plays with its own, which the events
/// layer gives it).
pub(super) fn player(
    field: &str,
    p: &pb::TournamentPlayerSpec,
) -> Result<(Player, Option<String>, Option<auth::TokenHash>), Status> {
    let account = (!p.bot_account.is_empty()).then(|| p.bot_account.clone());
    let given = match &account {
        Some(account) if p.name.is_empty() => account,
        _ => &p.name,
    };
    let name = new_game::display_name(&format!("{field}.name"), given)?;
    let bot = p.bot.map(convert::bot_from).transpose()?;
    let (token, hash) = match (bot, &account) {
        (None, None) => auth::new_token().map(|(token, hash)| (Some(token), Some(hash)))?,
        _ => (None, None),
    };
    let player = Player {
        bot: bot.map(|level| level.name().to_string()),
        lifetime_games: p.lifetime_games,
        account,
        ..Player::new(name.trim(), zero_is_unrated::read(p.rating))
    };
    Ok((player, token, hash))
}

/// ImportTsh: a division from a `.t` file, its rounds played kept as manual rounds, a token made
/// for each of its human players.
pub(super) async fn import_tsh(
    service: &TournamentsService,
    request: Request<pb::ImportTshRequest>,
) -> Result<pb::ImportTshResponse, Status> {
    let r = request.get_ref();
    let actor = service.director(request.metadata(), &r.slug).await?;
    if r.text.len() > MAX_TSH_BYTES {
        return Err(errors::bad_field("text", format!("{} bytes: at most {MAX_TSH_BYTES}", r.text.len())));
    }
    let mut import = Import {
        division: r.division.clone(),
        text: r.text.strip_prefix('\u{feff}').unwrap_or(&r.text).to_string(),
        controls: convert::controls_from("controls", r.controls.unwrap_or_default())?,
        rounds_to_come: convert::methods_from("rounds_to_come", &r.rounds_to_come)?,
        tokens: Vec::new(),
    };
    let division = import.read(0).map_err(errors::invalid)?;
    let mut tokens = Vec::new();
    for (j, p) in division.players().iter().enumerate() {
        new_game::display_name(&format!("text: player {}.name", j + 1), &p.name)?;
        let (token, hash) = match p.bot {
            Some(_) => (None, None),
            None => auth::new_token().map(|(token, hash)| (Some(token), Some(hash)))?,
        };
        import.tokens.push(hash);
        if let Some(token) = token {
            tokens.push(pb::PlayerToken { division: r.division.clone(), player: j as u32 + 1, token });
        }
    }
    new_game::check_slug("division", &r.division)?;
    let answer = |rec: &Record, o| pb::ImportTshResponse {
        division: super::division_of(rec, o),
        player_tokens: Vec::new(),
    };
    // No retry id: the players' tokens are shown once, and never kept to be answered again.
    let command = Command::ImportDivision(import);
    let answer = service.commanded(&actor, &r.slug, "", command, answer).await?;
    Ok(pb::ImportTshResponse { player_tokens: tokens, ..answer })
}
