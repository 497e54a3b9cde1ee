//! `AnalysisService.SolvePreEndgame`: the request checked and turned into a [`pre_endgame::Setup`], searched
//! as an admitted search (`host::SearchTicket`), its report streamed after every scenario.

use super::positions::AnalysisService;
use super::{convert, errors};
use crate::alphabet::Alphabet;
use crate::pre_endgame;
use crate::proto::v1 as pb;
use std::pin::Pin;
use std::time::Duration;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

const DEFAULT_MS: u32 = 5000;
const MAX_MS: u32 = 60_000;
const DEFAULT_CANDIDATES: u32 = 10;
const MAX_CANDIDATES: u32 = 30;
const DEFAULT_SCENARIOS: u32 = 200;
const MAX_SCENARIOS: u32 = 10_000;
/// Reports at most this often (the last one always goes).
const REPORT: Duration = Duration::from_millis(100);

pub type PegStream = Pin<Box<dyn Stream<Item = Result<pb::SolvePreEndgameResponse, Status>> + Send>>;

pub async fn solve(
    service: &AnalysisService,
    request: Request<pb::SolvePreEndgameRequest>,
) -> Result<Response<PegStream>, Status> {
    let ticket = super::caller::admit(&service.state.host, &request)?;
    let r = service.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
    let req = request.into_inner();
    let budget_ms = errors::bounded("budget_ms", req.budget_ms, DEFAULT_MS, MAX_MS)?;
    let candidates = errors::bounded("candidates", req.candidates, DEFAULT_CANDIDATES, MAX_CANDIDATES)?;
    let max_scenarios =
        errors::bounded("max_scenarios", req.max_scenarios, DEFAULT_SCENARIOS, MAX_SCENARIOS)?;
    if r.over {
        return Err(errors::game_state("the game is over"));
    }
    if r.players != 2 {
        return Err(errors::not_two_players(r.players));
    }
    let rack = AnalysisService::mover_rack(&r, req.rack.as_ref(), "the pre-endgame")?;
    let unseen = crate::endgame::Position::unseen(&r.board, &rack).ok_or_else(|| {
        errors::bad_field("rack", "the board and the rack hold more tiles than the tile set")
    })?;
    let rack_size = r.board.rules().rack_size;
    let bag = unseen.len().saturating_sub(rack_size);
    if !(1..=pre_endgame::MAX_BAG).contains(&bag) {
        return Err(errors::precondition(format!(
            "{bag} tiles in the bag ({} unseen, a rack holds {rack_size}): the pre-endgame is for 1 to {}",
            unseen.len(),
            pre_endgame::MAX_BAG
        )));
    }
    let setup = pre_endgame::Setup::new(
        &r.board,
        rack,
        unseen,
        bag,
        r.spread,
        r.zeros,
        r.lexicon.dawg(),
        candidates as usize,
    )
    .map_err(|e| errors::precondition(e.to_string()))?;
    let alphabet = r.board.rules().alphabet;
    let lexicon = r.lexicon.clone();
    let stream = ticket
        .stream(1, REPORT, move |grant, mut reporter| {
            let budget = pre_endgame::PreEndgameLimits {
                budget: grant.budget(Duration::from_millis(u64::from(budget_ms))),
                max_scenarios: max_scenarios as usize,
                seed: req.seed,
                ..pre_endgame::PreEndgameLimits::default()
            };
            let report = pre_endgame::solve(&setup, lexicon.dawg(), &budget, |report| {
                reporter.offer(|| Ok(update(&setup, report, alphabet, false)))
            });
            reporter.finish(Ok(update(&setup, &report, alphabet, true)));
        })
        .await
        .map_err(errors::host)?;
    Ok(Response::new(Box::pin(stream)))
}

/// The report as a message: every candidate, best first.
fn update(
    setup: &pre_endgame::Setup,
    report: &pre_endgame::Report,
    alphabet: Alphabet,
    done: bool,
) -> pb::SolvePreEndgameResponse {
    let best = report.best();
    let mut order: Vec<usize> = (0..setup.candidates.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&report.records[a], &report.records[b]);
        (b == best)
            .cmp(&(a == best))
            .then(rb.win_share().total_cmp(&ra.win_share()))
            .then(rb.mean_spread().total_cmp(&ra.mean_spread()))
            .then(a.cmp(&b))
    });
    let candidates = order
        .into_iter()
        .map(|i| {
            let c = &setup.candidates[i];
            let r = &report.records[i];
            let w = r.weight();
            let share = |x: f64| if w > 0.0 { x / w } else { 0.0 };
            let mut out = pb::PreEndgameCandidate {
                score: c.score,
                equity: f64::from(c.equity),
                wins: share(r.wins),
                draws: share(r.draws),
                losses: share(r.losses),
                win_percent: 100.0 * r.win_share(),
                mean_spread: r.mean_spread(),
                scenarios: r.scenarios,
                proven: r.exact,
                ..Default::default()
            };
            match &c.action {
                crate::game::Action::Play(play) => out.play = Some(convert::play_to(play, alphabet)),
                _ => out.pass = true,
            }
            out
        })
        .collect();
    pb::SolvePreEndgameResponse {
        candidates,
        scenarios_done: report.scenarios_done as u32,
        scenarios: report.scenarios as u32,
        every_order: report.every_order,
        exact: report.exact(),
        done,
    }
}
