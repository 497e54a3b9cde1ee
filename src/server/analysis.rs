//! The `Analysis` service: ValidatePlay, Evaluate, GenerateMoves, Simulate and SolveEndgame on
//! a live game (the caller's view) or a CGP position, here; InferRack, SolvePreEndgame and
//! AnalyzeGame in their own modules. Each starts from `positions`.

use super::convert;
use super::errors;
use super::positions::AnalysisPosition;
pub use super::positions::AnalysisService;
use crate::endgame;
use crate::movegen::{self, CollectAll, TopN};
use crate::proto::v1 as pb;
use crate::score::evaluate_normalized;
use crate::sim;
use crate::validate::validate_play;
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

type MoveStream = Pin<Box<dyn Stream<Item = Result<pb::GenerateMovesResponse, Status>> + Send>>;

#[tonic::async_trait]
impl crate::proto::v1::analysis_service_server::AnalysisService for AnalysisService {
    async fn validate_play(
        &self,
        request: Request<pb::ValidatePlayRequest>,
    ) -> Result<Response<pb::ValidatePlayResponse>, Status> {
        let result = async {
            let r = self.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
            let req = request.get_ref();
            let rack = Self::rack(&r, req.rack.as_ref())?;
            let play_msg = req.play.as_ref().ok_or_else(|| errors::bad_field("play", "required"))?;
            let play = match convert::play_from(play_msg, &r.board) {
                Ok(p) => p,
                Err(status) => return Err(status),
            };
            let alphabet = r.board.rules().alphabet;
            Ok(match validate_play(&r.board, &rack, &play, &r.lexicon) {
                Ok(e) => pb::ValidatePlayResponse {
                    valid: true,
                    problems: vec![],
                    evaluation: Some(convert::evaluation_to(
                        &play.normalized(&r.board).unwrap_or(play),
                        &e,
                        alphabet,
                    )),
                },
                Err(problems) => pb::ValidatePlayResponse {
                    valid: false,
                    problems: problems.iter().map(convert::problem_to).collect(),
                    evaluation: None,
                },
            })
        }
        .await;
        result.map(Response::new)
    }

    async fn evaluate(
        &self,
        request: Request<pb::EvaluateRequest>,
    ) -> Result<Response<pb::EvaluateResponse>, Status> {
        let result = async {
            let r = self.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
            let play_msg =
                request.get_ref().play.as_ref().ok_or_else(|| errors::bad_field("play", "required"))?;
            let play = convert::play_from(play_msg, &r.board)?;
            let play = play.normalized(&r.board).map_err(|ps| errors::problems("play", &ps))?;
            // A play that touches nothing (or misses the centre) forms no scoring position.
            let unconnected = play.check_connection(&r.board);
            if !unconnected.is_empty() {
                return Err(errors::problems("play", &unconnected));
            }
            let e = evaluate_normalized(&r.board, &play);
            Ok(pb::EvaluateResponse {
                evaluation: Some(convert::evaluation_to(&play, &e, r.board.rules().alphabet)),
            })
        }
        .await;
        result.map(Response::new)
    }

    type GenerateMovesStream = MoveStream;

    async fn generate_moves(
        &self,
        request: Request<pb::GenerateMovesRequest>,
    ) -> Result<Response<MoveStream>, Status> {
        let r = self.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
        let req = request.into_inner();
        let rack = Self::rack(&r, req.rack.as_ref())?;
        let mode = convert::mode_from(req.mode)?;
        let order = pb::MoveOrder::try_from(req.order)
            .map_err(|_| errors::bad_field("order", format!("unknown order {}", req.order)))?;
        // Generation is CPU work: on the pool, never on the runtime's threads.
        let (position, metrics, limit) = (r.clone(), self.state.metrics.clone(), req.limit as usize);
        let plays = self
            .state
            .host
            .think(move || {
                let dawg = position.lexicon.dawg();
                let started = Instant::now();
                let mut plays = if limit > 0 && order != pb::MoveOrder::Position {
                    let mut top = TopN::new(limit);
                    movegen::generate(&position.board, &rack, dawg, mode, &mut top);
                    top.into_sorted()
                } else {
                    let mut all = CollectAll::default();
                    movegen::generate(&position.board, &rack, dawg, mode, &mut all);
                    all.sorted()
                };
                metrics.generation.observe(started.elapsed().as_secs_f64());
                if order == pb::MoveOrder::Position {
                    plays.sort_by_key(|p| p.play);
                    if limit > 0 {
                        plays.truncate(limit);
                    }
                }
                plays
            })
            .await
            .ok_or_else(|| errors::internal("move generation failed"))?;
        let alphabet = r.board.rules().alphabet;
        let moves: Vec<Result<pb::GenerateMovesResponse, Status>> = plays
            .into_iter()
            .map(|p| {
                Ok(pb::GenerateMovesResponse {
                    play: Some(convert::play_to(&p.play, alphabet)),
                    score: p.score,
                })
            })
            .collect();
        Ok(Response::new(Box::pin(tokio_stream::iter(moves))))
    }

    type SimulateStream = SimStream;
    type SolvePreEndgameStream = super::pre_endgame::PegStream;
    type AnalyzeGameStream = super::review::ReviewStream;

    async fn analyze_game(
        &self,
        request: Request<pb::AnalyzeGameRequest>,
    ) -> Result<Response<Self::AnalyzeGameStream>, Status> {
        super::review::analyze(self, request).await
    }

    async fn infer_rack(
        &self,
        request: Request<pb::InferRackRequest>,
    ) -> Result<Response<pb::InferRackResponse>, Status> {
        super::inference::infer_rack(self, request).await
    }

    async fn solve_pre_endgame(
        &self,
        request: Request<pb::SolvePreEndgameRequest>,
    ) -> Result<Response<Self::SolvePreEndgameStream>, Status> {
        super::pre_endgame::solve(self, request).await
    }

    async fn simulate(&self, request: Request<pb::SimulateRequest>) -> Result<Response<SimStream>, Status> {
        let ticket = super::caller::admit(&self.state.host, &request)?;
        let r = self.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
        let (mut setup, budget_ms) = Self::simulation(&r, request.get_ref())?;
        let mut observation = None;
        if request.get_ref().infer_opponent {
            let Some(pb::position::Source::GameId(id)) =
                request.get_ref().position.as_ref().and_then(|p| p.source.as_ref())
            else {
                return Err(errors::bad_field(
                    "infer_opponent",
                    "inference needs a game's history: give a game_id",
                ));
            };
            // The caller on its turn knows its own rack, and the inference may use it; anyone
            // else's inference sees only what was public.
            let (snapshot, viewer) = self.state.seen_game(id, request.metadata()).await?;
            let game = snapshot.game();
            let own = viewer.seat() == Some(game.to_move());
            observation = crate::infer::Observation::last_of_opponent(game, game.to_move(), own);
        }
        let alphabet = r.board.rules().alphabet;
        let lexicon = r.lexicon.clone();
        // The simulation thinks on as many threads as the pool lets one job hold (every slot
        // but one), and holds those slots while it runs; the opponent's inference, a tenth of
        // the budget, comes first on the same slots.
        let widest = self.state.host.widest_search();
        let stream = ticket
            .stream(widest, SIM_REPORT, move |grant, mut reporter| {
                if let Some(observation) = observation {
                    let limits = crate::infer::InferLimits {
                        budget: grant.budget(Duration::from_millis(u64::from(budget_ms) / 10 + 1)),
                        ..Default::default()
                    };
                    let params = crate::infer::Params::default();
                    if let Ok(inference) = crate::infer::infer(&observation, lexicon.dawg(), params, limits) {
                        setup = setup.with_opponent_leaves(&inference.leaves);
                    }
                }
                let budget = sim::SimLimits {
                    budget: grant.budget(Duration::from_millis(u64::from(budget_ms))),
                    max_iterations: 1_000_000,
                    workers: grant.workers,
                    ..sim::SimLimits::default()
                };
                // The first batch is reported at once (the candidates and their first
                // figures), then about every SIM_REPORT; a slow reader misses updates, never
                // the last one.
                let tally = sim::simulate(&setup, lexicon.dawg(), &budget, |tally| {
                    reporter.offer(|| Ok(sim_update(&setup, tally, alphabet, false)))
                });
                reporter.finish(Ok(sim_update(&setup, &tally, alphabet, true)));
            })
            .await
            .map_err(errors::host)?;
        Ok(Response::new(Box::pin(stream)))
    }

    async fn solve_endgame(
        &self,
        request: Request<pb::SolveEndgameRequest>,
    ) -> Result<Response<pb::SolveEndgameResponse>, Status> {
        let ticket = super::caller::admit(&self.state.host, &request)?;
        let r = self.resolve(request.get_ref().position.as_ref(), request.metadata()).await?;
        let req = request.into_inner();
        let budget_ms = errors::bounded("budget_ms", req.budget_ms, DEFAULT_ENDGAME_MS, MAX_ENDGAME_MS)?;
        let lines = errors::bounded("lines", req.lines, 1, MAX_ENDGAME_LINES)? as usize;
        if r.over {
            return Err(errors::game_state("the game is over"));
        }
        if r.players != 2 {
            return Err(errors::not_an_endgame(format!("{} players: the solver plays two", r.players)));
        }
        let racks = Self::endgame_racks(&r, req.rack.as_ref())?;
        let position = endgame::Position::new((*r.board).clone(), racks, r.zeros);
        let lexicon = r.lexicon.clone();
        // A search of up to a minute, admitted (the budget runs from when it thinks; a caller
        // that goes away, cancelled or timed out, stops it).
        let solution = ticket
            .run(move |grant| {
                let budget = endgame::EndgameLimits {
                    budget: grant.budget(Duration::from_millis(u64::from(budget_ms))),
                    lines,
                    ..endgame::EndgameLimits::default()
                };
                endgame::solve(&position, lexicon.dawg(), budget)
            })
            .await
            .map_err(errors::host)?;
        let alphabet = r.board.rules().alphabet;
        let moves = |pv: &[endgame::Move]| -> Vec<pb::EndgameMove> {
            pv.iter()
                .map(|m| match m {
                    endgame::Move::Play { play, score } => pb::EndgameMove {
                        play: Some(convert::play_to(play, alphabet)),
                        score: *score,
                        pass: false,
                    },
                    endgame::Move::Pass => pb::EndgameMove { play: None, score: 0, pass: true },
                })
                .collect()
        };
        Ok(Response::new(pb::SolveEndgameResponse {
            principal_variation: moves(&solution.pv),
            value: solution.value,
            final_spread: r.spread.saturating_add(solution.value),
            exact: solution.exact,
            depth: solution.depth,
            nodes: solution.nodes,
            lines: solution
                .lines
                .iter()
                .map(|l| pb::EndgameLine {
                    principal_variation: moves(&l.pv),
                    value: l.value,
                    final_spread: r.spread.saturating_add(l.value),
                })
                .collect(),
        }))
    }
}

impl AnalysisService {
    /// A simulation request checked and turned into the engine's setup.
    fn simulation(r: &AnalysisPosition, req: &pb::SimulateRequest) -> Result<(sim::Setup, u32), Status> {
        let budget_ms = errors::bounded("budget_ms", req.budget_ms, DEFAULT_SIM_MS, MAX_SIM_MS)?;
        let candidates = errors::bounded("candidates", req.candidates, 10, MAX_SIM_CANDIDATES)? as usize;
        let plies = match req.plies {
            None => 2,
            Some(n) if n <= MAX_SIM_PLIES => n as usize,
            Some(n) => return Err(errors::bad_field("plies", format!("{n}: at most {MAX_SIM_PLIES} plies"))),
        };
        if r.over {
            return Err(errors::game_state("the game is over"));
        }
        if r.players != 2 {
            return Err(errors::not_two_players(r.players));
        }
        let rack = Self::mover_rack(r, req.rack.as_ref(), "the simulation")?;
        let rules = r.board.rules();
        let unseen = endgame::Position::unseen(&r.board, &rack).ok_or_else(|| {
            errors::bad_field("rack", "the board and the rack hold more tiles than the tile set")
        })?;
        // What the side to move cannot see is the opponent's full rack and the bag.
        let bag = unseen.len().saturating_sub(rules.rack_size);
        let params = sim::Params { candidates, plies, seed: req.seed, reserve: 0 };
        let setup = sim::Setup::new(&r.board, rack, r.spread, bag, r.zeros, r.lexicon.dawg(), params)
            .ok_or_else(|| errors::game_state("nothing to simulate"))?;
        Ok((setup, budget_ms))
    }
}

/// One update of a simulation: every candidate, best first.
fn sim_update(
    setup: &sim::Setup,
    tally: &sim::Tally,
    alphabet: crate::alphabet::Alphabet,
    done: bool,
) -> pb::SimulateResponse {
    let mut order: Vec<usize> = (0..setup.candidates.len()).collect();
    let leader = tally.leader();
    // The leader first, then the rest by mean win probability and spread; ruled-out last.
    order.sort_by(|&a, &b| {
        let (fa, fb) = (&tally.figures[a], &tally.figures[b]);
        (b == leader)
            .cmp(&(a == leader))
            .then(fa.out.cmp(&fb.out))
            .then(fb.win().total_cmp(&fa.win()))
            .then(fb.spread().total_cmp(&fa.spread()))
            .then(a.cmp(&b))
    });
    let candidates = order
        .into_iter()
        .map(|i| {
            let c = &setup.candidates[i];
            let f = &tally.figures[i];
            let error = |e: f64| if e.is_finite() { e } else { 0.0 };
            let mut out = pb::SimulatedCandidate {
                score: c.score,
                equity: f64::from(c.equity),
                win_percent: 100.0 * f.win(),
                win_error: 100.0 * error(f.win_error()),
                spread: f.spread(),
                spread_error: error(f.spread_error()),
                iterations: f.iterations,
                ruled_out: f.out,
                ..Default::default()
            };
            match &c.action {
                crate::game::Action::Play(play) => out.play = Some(convert::play_to(play, alphabet)),
                crate::game::Action::Exchange(tiles) => out.exchange = tiles.to_string(alphabet),
                _ => out.pass = true,
            }
            out
        })
        .collect();
    pb::SimulateResponse { candidates, iterations: tally.iterations, done, inferred: setup.infers_opponent() }
}

type SimStream = Pin<Box<dyn Stream<Item = Result<pb::SimulateResponse, Status>> + Send>>;

/// Simulate's time when the request names none, and the most it may ask for; its largest
/// candidate list and deepest lines.
const DEFAULT_SIM_MS: u32 = 1000;
const MAX_SIM_MS: u32 = 60_000;
const MAX_SIM_CANDIDATES: u32 = 50;
const MAX_SIM_PLIES: u32 = 10;
/// How often a simulation reports.
const SIM_REPORT: Duration = Duration::from_millis(100);

/// SolveEndgame's search time when the request names none, and the most it may ask for.
const DEFAULT_ENDGAME_MS: u32 = 1000;
const MAX_ENDGAME_MS: u32 = 60_000;
const MAX_ENDGAME_LINES: u32 = 10;
