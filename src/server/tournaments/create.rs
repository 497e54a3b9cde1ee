//! Making tournaments and their games: CreateTournament and ImportTsh (every field checked,
//! naming it), the players' tokens, and StartRound (a round's games made with ids drawn from
//! what they are, so a second call makes none twice).

use super::super::{auth, errors, new_game};
use super::record::{Hashes, Record, method};
use super::{TournamentsService, change, tournament_view};
use crate::host::{HostError, Seat, SeatKind};
use crate::proto::v1 as pb;
use sha2::{Digest, Sha256};
use tonic::{Request, Status};

const NAME_CHARS: usize = 200;
const MAX_DIVISIONS: usize = 20;
const MAX_PLAYERS: usize = 5000;
const MAX_ROUNDS: usize = 100;
const MAX_TSH_BYTES: usize = 1 << 20;

pub(super) async fn create(
    service: &TournamentsService,
    request: Request<pb::CreateTournamentRequest>,
) -> Result<pb::CreateTournamentResponse, Status> {
    let r = request.get_ref();
    if !new_game::is_name(&r.slug) {
        return Err(errors::bad_field("slug", "1 to 40 characters of a-z, 0-9, '_', '-' and '.'"));
    }
    service.director(request.metadata(), &r.slug).await?;
    let chars = r.name.chars().count();
    if !(1..=NAME_CHARS).contains(&chars) || r.name.chars().any(char::is_control) {
        return Err(errors::bad_field(
            "name",
            format!("1 to {NAME_CHARS} characters, no control characters"),
        ));
    }
    let game = r.game.clone().unwrap_or_default();
    check_game(service, &game)?;
    if !(1..=MAX_DIVISIONS).contains(&r.divisions.len()) {
        return Err(errors::bad_field("divisions", format!("{}: 1 to {MAX_DIVISIONS}", r.divisions.len())));
    }
    let seed = new_game::seed_or_random(r.seed)?;
    let mut record = Record { seed, ..Default::default() };
    *record.t_mut() =
        pb::Tournament { slug: r.slug.clone(), name: r.name.clone(), game: Some(game), ..Default::default() };
    let mut tokens = Vec::new();
    for (i, spec) in r.divisions.iter().enumerate() {
        let field = format!("divisions[{i}]");
        check_division_name(&record, &format!("{field}.name"), &spec.name)?;
        if !(2..=MAX_PLAYERS).contains(&spec.players.len()) {
            return Err(errors::bad_field(
                &format!("{field}.players"),
                format!("{}: 2 to {MAX_PLAYERS}", spec.players.len()),
            ));
        }
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
    let stored = crate::store::StoredTournament {
        slug: r.slug.clone(),
        version: 1,
        body: prost::Message::encode_to_vec(&record),
    };
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

fn human_spec(name: &str) -> pb::SeatSpec {
    pb::SeatSpec {
        kind: Some(pb::seat_spec::Kind::Human(pb::HumanSeat { name: name.into(), open: false })),
        think_ms: None,
    }
}

fn game_request(
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

fn check_division_name(record: &Record, field: &str, name: &str) -> Result<(), Status> {
    if !new_game::is_name(name) {
        return Err(errors::bad_field(field, "1 to 40 characters of a-z, 0-9, '_', '-' and '.'"));
    }
    if record.t().divisions.iter().any(|d| d.name == name) {
        return Err(errors::bad_field(
            field,
            format!("{name:?}: the tournament has a division of that name"),
        ));
    }
    Ok(())
}

fn check_rounds(field: &str, specs: &[pb::RoundSpec]) -> Result<Vec<pb::TournamentRound>, Status> {
    if !(1..=MAX_ROUNDS).contains(&specs.len()) {
        return Err(errors::bad_field(field, format!("{} rounds: 1 to {MAX_ROUNDS}", specs.len())));
    }
    let mut rounds = Vec::with_capacity(specs.len());
    for (k, spec) in specs.iter().enumerate() {
        let at = format!("{field}[{k}]");
        if pb::PairingMethod::try_from(spec.method).is_err() {
            return Err(errors::bad_field(
                &format!("{at}.method"),
                format!("{}: no such method", spec.method),
            ));
        }
        match method(Some(spec)) {
            dawgref_tournament::Method::Factor(0) => {
                return Err(errors::bad_field(&format!("{at}.factor"), "at least 1"));
            }
            dawgref_tournament::Method::InitialFontes(n) if n % 2 == 0 => {
                return Err(errors::bad_field(
                    &format!("{at}.fontes_rounds"),
                    format!("{n}: an odd number of rounds"),
                ));
            }
            _ => {}
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

/// A player as given: a display name no word of which is a number (TSH reads the first number
/// as the rating), and a bot level that is one.
pub(super) fn check_player(field: &str, p: &pb::TournamentPlayerSpec) -> Result<(), Status> {
    let name = new_game::display_name(&format!("{field}.name"), &p.name)?;
    if name.trim().is_empty() {
        return Err(errors::bad_field(&format!("{field}.name"), "a player has a name"));
    }
    if name.split_whitespace().any(|w| w.parse::<u64>().is_ok()) {
        return Err(errors::bad_field(
            &format!("{field}.name"),
            "no word of a name is a number (TSH reads it as the rating)",
        ));
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

/// The id of a pairing's game: drawn from the tournament, division, round, pairing and players,
/// so that StartRound asked again (after a crash between its games and its record, say) names
/// the same games and makes none twice.
fn game_id(slug: &str, division: &str, round: u32, p: &pb::TournamentPairing) -> uuid::Uuid {
    let digest =
        Sha256::digest(format!("{slug}\n{division}\n{round}\n{}\n{}\n{}", p.number, p.first, p.second));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// StartRound: every game of the round made (a game made by an earlier call is kept), then the
/// round marked started with its games, durably (once per request id).
pub(super) async fn start_round(
    state: &super::AppState,
    r: &pb::StartRoundRequest,
) -> Result<pb::StartRoundResponse, Status> {
    let (record, _) = super::load(state, &r.slug).await?;
    if let Some(answer) = super::retry_key(("StartRound", &r.request_id)).and_then(|key| record.answer(&key))
    {
        return answer;
    }
    let d = record.division(&r.division)?;
    let k = record.round(d, r.round)?;
    let division = &record.t().divisions[d];
    let round = &division.rounds[k];
    if round.started {
        return Ok(pb::StartRoundResponse { round: Some(round.clone()) });
    }
    if !round.paired {
        return Err(errors::precondition(format!("round {} is not paired yet", r.round)));
    }
    let settings = record.t().game.clone().unwrap_or_default();
    let mut made = Vec::new();
    for p in round.pairings.iter().filter(|p| p.second != 0 && !p.done) {
        let id = game_id(&r.slug, &r.division, r.round, p);
        let seats: Vec<pb::SeatSpec> = [p.first, p.second]
            .iter()
            .map(|&n| {
                let player = &division.players[n as usize - 1];
                match player.bot {
                    Some(level) => {
                        pb::SeatSpec { kind: Some(pb::seat_spec::Kind::Bot(level)), think_ms: None }
                    }
                    None => human_spec(&player.name),
                }
            })
            .collect();
        let labels = [
            ("tournament".to_string(), r.slug.clone()),
            ("division".to_string(), r.division.clone()),
            ("round".to_string(), r.round.to_string()),
        ]
        .into();
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed;
        let request = game_request(&settings, seats, seed, labels);
        let (config, seats, _tokens, delay, labels) = new_game::new_game(state, &request)?;
        // Each human seat is its player's: the player's token is the seat's.
        let seats: Vec<Seat> = seats
            .into_iter()
            .zip([p.first, p.second])
            .map(|(seat, n)| match seat.kind() {
                SeatKind::Human { .. } => {
                    let hash = <[u8; 32]>::try_from(record.hashes[d].players[n as usize - 1].as_slice()).ok();
                    Seat::new(seat.name().to_string(), SeatKind::Human { token: hash })
                }
                _ => seat,
            })
            .collect();
        let game = crate::game::Game::new(config).map_err(errors::game)?;
        match state.host.create(Some(id), game, seats, Some(delay), None, labels).await {
            Ok(_) | Err(HostError::GameExists(_)) => made.push((p.number, id.to_string())),
            Err(e) => return Err(errors::host(e)),
        }
    }
    let answer = super::once(state, &r.slug, ("StartRound", &r.request_id), |rec| {
        let round = &mut rec.t_mut().divisions[d].rounds[k];
        if !round.started {
            for (number, id) in &made {
                if let Some(p) = round.pairings.iter_mut().find(|p| p.number == *number) {
                    p.game_id = id.clone();
                }
            }
            round.started = true;
            rec.event(
                "round_started",
                &r.division,
                r.round,
                0,
                format!("round {}: {} games", r.round, made.len()),
            );
        }
        Ok(pb::StartRoundResponse { round: Some(rec.t().divisions[d].rounds[k].clone()) })
    })
    .await?;
    tracing::info!(tournament = %r.slug, division = %r.division, round = r.round, games = made.len(), "round started");
    Ok(answer)
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
    let division = dawgref_tournament::tsh::import(&r.division, &r.text, Default::default(), &[])
        .map_err(|e| errors::bad_field("text", e.to_string()))?;
    if !(2..=MAX_PLAYERS).contains(&division.players.len()) {
        return Err(errors::bad_field(
            "text",
            format!("{} players: 2 to {MAX_PLAYERS}", division.players.len()),
        ));
    }
    let mut players = Vec::new();
    let mut tokens = Vec::new();
    let mut hashes = Hashes::default();
    for (j, p) in division.players.iter().enumerate() {
        let spec = pb::TournamentPlayerSpec { name: p.name.clone(), rating: p.rating, bot: None };
        check_player(&format!("text: player {}", j + 1), &spec)?;
        let (token, hash) = token_for(&spec)?;
        players.push(player(j as u32 + 1, &spec));
        hashes.players.push(hash.map(|h| h.to_vec()).unwrap_or_default());
        tokens.push(pb::PlayerToken {
            division: r.division.clone(),
            player: j as u32 + 1,
            token: token.unwrap_or_default(),
        });
    }
    let played = division.rounds.len();
    let view = change(&service.state, &r.slug, |rec| {
        check_division_name(rec, "division", &r.division)?;
        let mut rounds: Vec<pb::TournamentRound> = (0..played)
            .map(|k| pb::TournamentRound {
                number: k as u32 + 1,
                spec: Some(pb::RoundSpec { method: pb::PairingMethod::Manual as i32, ..Default::default() }),
                paired: true,
                started: true,
                pairings: Vec::new(),
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
