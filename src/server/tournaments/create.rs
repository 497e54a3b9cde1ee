//! Making tournaments and their games: CreateTournament and ImportTsh (every field checked,
//! naming it), the players' tokens, and StartRound (a round's games made with ids drawn from
//! what they are, so a second call makes none twice).

use super::super::{auth, errors, new_game};
use super::record::{Hashes, Record, method};
use super::{TournamentsService, change, tournament_view};
use crate::host::HostError;
use crate::proto::v1 as pb;
use tonic::{Request, Status};

const MAX_DIVISIONS: usize = 20;
use dawgref_tournament::{MAX_PLAYERS, MAX_ROUNDS};
pub(super) const MAX_TSH_BYTES: usize = 1 << 20;

pub(super) async fn create(
    service: &TournamentsService,
    request: Request<pb::CreateTournamentRequest>,
) -> Result<pb::CreateTournamentResponse, Status> {
    let r = request.get_ref();
    new_game::check_slug("slug", &r.slug)?;
    service.director(request.metadata(), &r.slug).await?;
    new_game::check_title("name", &r.name)?;
    let game = r.game.clone().unwrap_or_default();
    check_game(service, &game)?;
    check_divisions("divisions", r.divisions.len())?;
    let seed = new_game::seed_or_random(r.seed)?;
    let mut record = Record { seed, ..Default::default() };
    *record.t_mut() =
        pb::Tournament { slug: r.slug.clone(), name: r.name.clone(), game: Some(game), ..Default::default() };
    let mut tokens = Vec::new();
    for (i, spec) in r.divisions.iter().enumerate() {
        let field = format!("divisions[{i}]");
        check_division_name(&record, &format!("{field}.name"), &spec.name)?;
        check_players(&format!("{field}.players"), spec.players.len())?;
        let rounds = check_rounds(&format!("{field}.rounds"), &spec.rounds)?;
        let mut division = pb::TournamentDivision {
            name: spec.name.clone(),
            controls: Some(check_controls(&format!("{field}.controls"), spec.controls.unwrap_or_default())?),
            rounds,
            ..Default::default()
        };
        let mut hashes = Hashes::default();
        for (j, p) in spec.players.iter().enumerate() {
            check_player(&format!("{field}.players[{j}]"), p)?;
            let (token, hash) = token_for(p)?;
            let number = j as u32 + 1;
            division.players.push(player(number, p));
            hashes.players.push(hash.map(|h| h.to_vec()).unwrap_or_default());
            if let Some(token) = token {
                tokens.push(pb::PlayerToken { division: spec.name.clone(), player: number, token });
            }
        }
        record.t_mut().divisions.push(division);
        record.hashes.push(hashes);
    }
    record.event("created", "", 0, 0, format!("{} made", r.name));
    let stored = super::change::written(&mut record, &r.slug, 1);
    match service.state.host.tournament_records().put(stored).await {
        Ok(()) => {}
        Err(HostError::Stale(_)) => {
            return Err(Status::already_exists(format!("a tournament {:?} exists already", r.slug)));
        }
        Err(e) => return Err(errors::host(e)),
    }
    tracing::info!(tournament = %r.slug, "tournament created");
    Ok(pb::CreateTournamentResponse {
        tournament: Some(tournament_view(&record, None)),
        player_tokens: tokens,
    })
}

/// The games' settings, as CreateGame would take them (a game of two people, to check them).
fn check_game(service: &TournamentsService, game: &pb::TournamentGameSettings) -> Result<(), Status> {
    let sample = game_request(game, ["a", "b"].map(human_spec).to_vec(), 0, Default::default());
    new_game::new_game(&service.state, &sample)
        .map(|_| ())
        .map_err(|s| Status::new(s.code(), format!("game.{}", s.message())))
}

pub(super) fn human_spec(name: &str) -> pb::SeatSpec {
    pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: name.into(), open: false })),
        think_ms: None,
    }
}

pub(super) fn game_request(
    game: &pb::TournamentGameSettings,
    seats: Vec<pb::SeatSpec>,
    seed: u64,
    labels: std::collections::HashMap<String, String>,
) -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        ruleset: game.ruleset,
        ruleset_name: game.ruleset_name.clone(),
        lexicon: game.lexicon.clone(),
        challenge_rule: game.challenge_rule,
        options: game.options,
        seats,
        seed: Some(seed),
        clock: game.clock,
        bot_delay_ms: game.bot_delay_ms,
        labels,
    }
}

/// Room for `more` players in a division of `players`: the same bound at every way in.
pub(super) fn check_players(field: &str, players: usize) -> Result<(), Status> {
    if !(2..=MAX_PLAYERS).contains(&players) {
        return Err(players_refused(field, players));
    }
    Ok(())
}

/// A division of `players` refused: the bound's one message, whoever finds it broken.
pub(super) fn players_refused(field: &str, players: usize) -> Status {
    errors::bad_field(field, format!("{players} players: a division has 2 to {MAX_PLAYERS}"))
}

/// A tournament's divisions: the same bound at creation and at ImportTsh.
fn check_divisions(field: &str, divisions: usize) -> Result<(), Status> {
    if !(1..=MAX_DIVISIONS).contains(&divisions) {
        return Err(errors::bad_field(
            field,
            format!("{divisions} divisions: a tournament has 1 to {MAX_DIVISIONS}"),
        ));
    }
    Ok(())
}

/// A division's rounds, played and to come: the same bound at creation and at ImportTsh.
fn check_round_count(field: &str, rounds: usize) -> Result<(), Status> {
    if !(1..=MAX_ROUNDS).contains(&rounds) {
        return Err(errors::bad_field(field, format!("{rounds} rounds: a division has 1 to {MAX_ROUNDS}")));
    }
    Ok(())
}

fn check_division_name(record: &Record, field: &str, name: &str) -> Result<(), Status> {
    new_game::check_slug(field, name)?;
    if record.t().divisions.iter().any(|d| d.name == name) {
        return Err(errors::bad_field(
            field,
            format!("{name:?}: the tournament has a division of that name"),
        ));
    }
    Ok(())
}

fn check_rounds(field: &str, specs: &[pb::RoundSpec]) -> Result<Vec<pb::TournamentRound>, Status> {
    check_round_count(field, specs.len())?;
    let mut rounds = Vec::with_capacity(specs.len());
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
        rounds.push(pb::TournamentRound { number: k as u32 + 1, spec: Some(*spec), ..Default::default() });
    }
    Ok(rounds)
}

fn check_controls(field: &str, c: pb::DivisionControls) -> Result<pb::DivisionControls, Status> {
    const SPREAD_MAX: i32 = 1000;
    for (name, v) in [("bye_spread", c.bye_spread), ("forfeit_spread", c.forfeit_spread)] {
        if let Some(v) = v
            && !(-SPREAD_MAX..=SPREAD_MAX).contains(&v)
        {
            return Err(errors::bad_field(
                &format!("{field}.{name}"),
                format!("{v}: -{SPREAD_MAX} to {SPREAD_MAX}"),
            ));
        }
    }
    Ok(pb::DivisionControls { min_placement: c.min_placement.max(1), ..c })
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

pub(super) fn player(number: u32, p: &pb::TournamentPlayerSpec) -> pb::TournamentPlayer {
    pb::TournamentPlayer {
        number,
        name: p.name.trim().to_string(),
        rating: p.rating,
        bot: p.bot,
        withdrawn: false,
    }
}

/// The player a token is (compared with every player's hash), and their current game.
pub(super) fn player_of(record: &Record, token: &str) -> Option<pb::TournamentSeat> {
    for (d, hashes) in record.hashes.iter().enumerate() {
        let seats: Vec<Option<auth::TokenHash>> =
            hashes.players.iter().map(|h| <[u8; 32]>::try_from(h.as_slice()).ok()).collect();
        if let Some(i) = auth::find_seat(token, &seats) {
            let number = i as u32 + 1;
            let division = &record.t().divisions[d];
            let current = division
                .rounds
                .iter()
                .rev()
                .filter(|r| r.started)
                .flat_map(|r| r.pairings.iter())
                .find(|p| !p.done && !p.game_id.is_empty() && (p.first == number || p.second == number))
                .map(|p| p.game_id.clone())
                .unwrap_or_default();
            return Some(pb::TournamentSeat {
                division: division.name.clone(),
                player: number,
                current_game_id: current,
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
    service.director(request.metadata(), &r.slug).await?;
    if r.text.len() > MAX_TSH_BYTES {
        return Err(errors::bad_field("text", format!("{} bytes: at most {MAX_TSH_BYTES}", r.text.len())));
    }
    let to_come = if r.rounds_to_come.is_empty() {
        Vec::new()
    } else {
        check_rounds("rounds_to_come", &r.rounds_to_come)?
    };
    let controls = check_controls("controls", r.controls.unwrap_or_default())?;
    let text = r.text.strip_prefix('\u{feff}').unwrap_or(&r.text);
    let division = dawgref_tournament::tsh::import(&r.division, text, Default::default(), &[])
        .map_err(|e| errors::bad_field("text", e.to_string()))?;
    check_players("text", division.players.len())?;
    let played = division.rounds.len();
    check_round_count("rounds_to_come", played + to_come.len())?;
    let mut players = Vec::new();
    let mut tokens = Vec::new();
    let mut hashes = Hashes::default();
    for (j, p) in division.players.iter().enumerate() {
        let bot = match &p.bot {
            None => None,
            Some(level) => Some(
                level
                    .parse::<crate::bot::BotLevel>()
                    .map(|l| super::super::convert::bot_to(l) as i32)
                    .map_err(|e| errors::bad_field("text", format!("player {}: {e}", j + 1)))?,
            ),
        };
        let spec = pb::TournamentPlayerSpec { name: p.name.clone(), rating: p.rating, bot };
        check_player(&format!("text: player {}", j + 1), &spec)?;
        let (token, hash) = token_for(&spec)?;
        players.push(pb::TournamentPlayer { withdrawn: p.withdrawn, ..player(j as u32 + 1, &spec) });
        hashes.players.push(hash.map(|h| h.to_vec()).unwrap_or_default());
        if let Some(token) = token {
            tokens.push(pb::PlayerToken { division: r.division.clone(), player: j as u32 + 1, token });
        }
    }
    let held = super::hold(&service.state, &r.slug).await;
    let view = change(&service.state, &held, |rec| {
        check_division_name(rec, "division", &r.division)?;
        check_divisions("division", rec.t().divisions.len() + 1)?;
        // A round with every game still to play is paired and not started (StartRound makes its
        // games); one with a result in has started, its other results to be entered by hand.
        let mut rounds: Vec<pb::TournamentRound> = (0..played)
            .map(|k| {
                let lines = division.rounds[k].pairings.as_deref().unwrap_or_default();
                let started = lines
                    .iter()
                    .any(|l| matches!(l, dawgref_tournament::Pairing::Game { result: Some(_), .. }))
                    || lines.iter().all(|l| matches!(l, dawgref_tournament::Pairing::Bye { .. }));
                pb::TournamentRound {
                    number: k as u32 + 1,
                    spec: Some(pb::RoundSpec {
                        method: pb::PairingMethod::Manual as i32,
                        ..Default::default()
                    }),
                    paired: true,
                    started,
                    pairings: Vec::new(),
                }
            })
            .collect();
        rounds.extend(
            to_come
                .iter()
                .enumerate()
                .map(|(i, round)| pb::TournamentRound { number: (played + i) as u32 + 1, ..round.clone() }),
        );
        rec.t_mut().divisions.push(pb::TournamentDivision {
            name: r.division.clone(),
            players: players.clone(),
            rounds,
            controls: Some(controls),
            standings: Vec::new(),
        });
        rec.hashes.push(hashes.clone());
        let d = rec.t().divisions.len() - 1;
        for k in 0..played {
            rec.write_round(d, k, &division);
        }
        rec.event(
            "division_imported",
            &r.division,
            0,
            0,
            format!("{} players, {played} rounds played", players.len()),
        );
        Ok(super::division_view(rec, d))
    })
    .await?;
    Ok(pb::ImportTshResponse { division: Some(view), player_tokens: tokens })
}
