//! `AnalysisService.InferRack`: the request checked and turned into an [`infer::Observation`] (a
//! game's turn, from what was public then; or a CGP position and an action), inferred as an
//! admitted search (stopped when its caller goes), and the answer as a message.

use super::positions::AnalysisService;
use super::{convert, errors};
use crate::alphabet::{Alphabet, Letter};
use crate::game::{Action, GameError};
use crate::infer::{self, InferError, Observation};
use crate::notation::cgp;
use crate::proto::v1 as pb;
use crate::rack::Rack;
use std::time::Duration;
use tonic::{Request, Response, Status};

/// InferRack's time when the request names none, and the most it may ask for; its largest list.
const DEFAULT_MS: u32 = 1000;
const MAX_MS: u32 = 60_000;
const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 1000;

pub async fn infer_rack(
    service: &AnalysisService,
    request: Request<pb::InferRackRequest>,
) -> Result<Response<pb::InferRackResponse>, Status> {
    let ticket = super::caller::admit(&service.state.host, &request)?;
    let req = request.get_ref();
    let budget_ms = errors::bounded("budget_ms", req.budget_ms, DEFAULT_MS, MAX_MS)?;
    let limit = convert::page_size(req.limit, DEFAULT_LIMIT, MAX_LIMIT);
    let (observation, lexicon, seat, params) = match (req.game_id.is_empty(), req.cgp.is_empty()) {
        (false, true) => {
            let (snapshot, _) = service.state.seen_game(&req.game_id, request.metadata()).await?;
            let game = snapshot.game();
            let turn = req.turn;
            if turn >= game.turn() {
                return Err(errors::precondition(format!(
                    "turn {turn} has not been taken: the game has taken {}",
                    game.turn()
                )));
            }
            // Only what was public when the action was made: no seat's rack.
            let observation = Observation::from_game(game, turn, None).map_err(infer_error)?;
            let seat = nth_turn_seat(game, turn).unwrap_or(0);
            // The `strong` bot chooses by static equity: its plays are judged by the tight model.
            let bot = snapshot.seats().get(seat).and_then(|s| s.bot_level());
            let params = bot.map_or_else(infer::Params::default, |level| level.judged_by());
            (observation, game.config().lexicon.clone(), seat, params)
        }
        (true, false) => {
            let (observation, lexicon) = cgp_observation(service, req).await?;
            (observation, lexicon, 0, infer::Params::default())
        }
        _ => return Err(errors::bad_field("game_id", "give a game_id (and a turn), or a cgp and an action")),
    };
    let alphabet = observation.board.rules().alphabet;
    let inference = ticket
        .run(move |grant| {
            let limits = infer::InferLimits {
                budget: grant.budget(Duration::from_millis(u64::from(budget_ms))),
                ..Default::default()
            };
            infer::infer(&observation, lexicon.dawg(), params, limits)
        })
        .await
        .map_err(errors::host)?
        .map_err(infer_error)?;
    let mut letters: Vec<pb::LetterChance> = (0..alphabet.len())
        .map(|l| pb::LetterChance {
            letter: alphabet.label(l as Letter).to_string(),
            probability: inference.letters.get(l).copied().unwrap_or(0.0),
        })
        .collect();
    letters.push(pb::LetterChance { letter: "?".into(), probability: inference.blank });
    Ok(Response::new(pb::InferRackResponse {
        seat: seat as u32,
        leave_size: inference.leave_size as u32,
        leaves: inference
            .leaves
            .iter()
            .take(limit as usize)
            .map(|(leave, p)| pb::InferredLeave { leave: leave.to_string(alphabet), probability: *p })
            .collect(),
        letters,
        exact: inference.exact,
        valued: inference.valued as u64,
        draws: inference.draws as u64,
        fits: inference.fits,
        tolerance: decimal(params.tolerance),
        spread: decimal(params.spread),
        floor: params.floor,
    }))
}

/// A parameter as the decimal it was written as (0.1, not the f32's 0.10000000149…).
fn decimal(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

/// The seat that took turn `turn`.
fn nth_turn_seat(game: &crate::game::Game, turn: u32) -> Option<usize> {
    game.history().iter().filter(|e| e.kind.takes_turn()).nth(turn as usize).map(|e| e.seat)
}

/// A CGP position and the action its side to move made: the observation, from the view of the
/// CGP's second rack when it gives one.
async fn cgp_observation(
    service: &AnalysisService,
    req: &pb::InferRackRequest,
) -> Result<(Observation, std::sync::Arc<crate::lexicon::Lexicon>), Status> {
    let position = pb::Position {
        source: Some(pb::position::Source::Cgp(req.cgp.clone())),
        lexicon: req.lexicon.clone(),
    };
    let resolved = service.resolve(Some(&position), &tonic::metadata::MetadataMap::new()).await?;
    let board = (*resolved.board).clone();
    let rules = board.rules().clone();
    let alphabet = rules.alphabet;
    let parsed = cgp::parse(&req.cgp, None).map_err(errors::cgp)?;
    let observer = parsed.racks.get(1).copied().filter(|r| !r.is_empty());
    let action = match (&req.play, &req.exchange, req.pass) {
        (Some(p), None, false) => {
            let play = convert::play_from(p, &board)?;
            Action::Play(play.normalized(&board).map_err(|ps| errors::problems("play", &ps))?)
        }
        (None, Some(tiles), false) => Action::Exchange(exchange(tiles, alphabet)?),
        (None, None, true) => Action::Pass,
        _ => return Err(errors::bad_field("play", "exactly one action: a play, an exchange or a pass")),
    };
    let mut unseen = crate::endgame::Position::unseen(&board, &Rack::new())
        .ok_or_else(|| errors::bad_field("cgp", "the board holds more tiles than the tile set"))?;
    if let Some(own) = observer
        && !unseen.remove_all(&own)
    {
        return Err(errors::bad_field(
            "cgp",
            "the second rack holds tiles the board and the set cannot supply",
        ));
    }
    let rack_len = rules.rack_size.min(unseen.len());
    // The bag: the unseen tiles less the rack that acted, and less the observer's, unseen too
    // when the CGP does not give it.
    let others = if observer.is_some() { 0 } else { rules.rack_size.min(unseen.len() - rack_len) };
    let bag = unseen.len() - rack_len - others;
    Ok((Observation { board, unseen, action, rack_len, bag }, resolved.lexicon.clone()))
}

fn exchange(tiles: &str, alphabet: Alphabet) -> Result<Rack, Status> {
    if tiles.chars().count() > 15 {
        return Err(errors::bad_field("exchange", "more tiles than a rack holds"));
    }
    let rack = Rack::parse(tiles, alphabet).map_err(|e| errors::alphabet("exchange", e))?;
    if rack.is_empty() {
        return Err(errors::game(GameError::EmptyExchange));
    }
    Ok(rack)
}

fn infer_error(e: InferError) -> Status {
    match e {
        InferError::NoSuchTurn(_) => errors::precondition(e.to_string()),
        _ => errors::bad_field("turn", e.to_string()),
    }
}
