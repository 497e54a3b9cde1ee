//! What every Analysis RPC starts from: the service (its handle on the server's state, and what
//! only it uses: the cache of CGP positions, the reviews), the position a request names (a live
//! game as the caller sees it, or a CGP line, built on the pool and cached), and the rack a
//! search uses. Searches are admitted through `caller`. `analysis.rs` dispatches to the RPC
//! modules beside it (`inference`, `pre_endgame`, `review`); they import this one, never
//! `analysis` or each other.

use super::errors;
use super::state::AppState;
use crate::endgame;
use crate::lexicon::Lexicon;
use crate::notation::cgp;
use crate::proto::v1 as pb;
use crate::rack::Rack;
use std::sync::Arc;
use tonic::Status;

pub struct AnalysisService {
    pub(crate) state: Arc<AppState>,
    /// Positions built from CGP lines: only this service reads them.
    positions: PositionCache,
    /// Whole-game reviews (AnalyzeGame).
    pub(super) reviews: Arc<super::lineup::Reviews>,
}

/// A position to analyse: its board, the rack that goes with it (a CGP's first rack, or the
/// caller's own rack in a live game), and its lexicon. Shared, not copied: a board is ~5 KB.
pub struct AnalysisPosition {
    pub board: Arc<crate::board::Board>,
    /// The rack analysis defaults to: a CGP's first, a seat's own in a game.
    pub rack: Option<crate::rack::Rack>,
    /// `rack` belongs to the side to move (a CGP's always; a seat's on its turn).
    pub rack_to_move: bool,
    pub lexicon: Arc<Lexicon>,
    /// Players in the position.
    pub players: usize,
    /// The side to move's score less the next player's.
    pub spread: i32,
    /// Consecutive scoreless turns so far.
    pub zeros: u32,
    /// The game is over.
    pub over: bool,
}

/// Positions built from CGP lines, by lexicon then line: analysis clients send the same position
/// many times, and building a board's cross-sets costs far more than looking it up. A lookup
/// borrows the request's strings (no allocation) and shares the board (no copy). Lines are
/// hashed with FxHash, not SipHash: hashing a CGP line was a tenth of a cached ValidatePlay's
/// time, and the bound (the cache is emptied when it reaches its size) also bounds what
/// colliding keys can cost.
#[derive(Default)]
pub struct PositionCache {
    /// By the request's lexicon field (a loaded lexicon's name or empty: few, so a list).
    by_lexicon: std::sync::RwLock<Vec<(String, PositionsByLine)>>,
}

/// Cached positions of one lexicon field, by CGP line.
type PositionsByLine = rustc_hash::FxHashMap<String, Arc<AnalysisPosition>>;

impl PositionCache {
    const CAPACITY: usize = 1024;

    pub fn get(&self, cgp: &str, lexicon: &str) -> Option<Arc<AnalysisPosition>> {
        let lists = self.by_lexicon.read().unwrap_or_else(|e| e.into_inner());
        let (_, lines) = lists.iter().find(|(name, _)| name == lexicon)?;
        lines.get(cgp).cloned()
    }

    pub fn put(&self, cgp: &str, lexicon: &str, position: Arc<AnalysisPosition>) {
        let mut lists = self.by_lexicon.write().unwrap_or_else(|e| e.into_inner());
        if lists.iter().map(|(_, lines)| lines.len()).sum::<usize>() >= Self::CAPACITY {
            lists.clear();
        }
        let at = match lists.iter().position(|(name, _)| name == lexicon) {
            Some(at) => at,
            None => {
                lists.push((lexicon.to_string(), Default::default()));
                lists.len() - 1
            }
        };
        lists[at].1.insert(cgp.to_string(), position);
    }
}

impl AnalysisService {
    pub(crate) fn new(state: Arc<AppState>) -> AnalysisService {
        AnalysisService { state, positions: PositionCache::default(), reviews: Default::default() }
    }

    /// The position a request names: a live game as the caller sees it (its own rack only), or
    /// a CGP line (its board built on the pool, and cached).
    pub(super) async fn resolve(
        &self,
        position: Option<&pb::Position>,
        metadata: &tonic::metadata::MetadataMap,
    ) -> Result<Arc<AnalysisPosition>, Status> {
        let p = position.ok_or_else(|| errors::bad_field("position", "a game_id or a cgp is required"))?;
        match &p.source {
            Some(pb::position::Source::GameId(id)) => {
                let (snapshot, viewer) = self.state.seen_game(id, metadata).await?;
                let game = snapshot.game();
                let (to_move, scores) = (game.to_move(), game.scores());
                Ok(Arc::new(AnalysisPosition {
                    board: Arc::new(game.board().clone()),
                    lexicon: game.config().lexicon.clone(),
                    // The caller's own rack, never another seat's.
                    rack: viewer.own_rack(game),
                    rack_to_move: viewer.seat() == Some(to_move),
                    players: scores.len(),
                    spread: scores[to_move].saturating_sub(scores[(to_move + 1) % scores.len()]),
                    zeros: game.scoreless_turns(),
                    over: game.is_over(),
                }))
            }
            Some(pb::position::Source::Cgp(text)) => {
                if let Some(position) = self.positions.get(text, &p.lexicon) {
                    return Ok(position);
                }
                let c = cgp::parse(text, None).map_err(errors::cgp)?;
                let rules = c.rules();
                let name = if !p.lexicon.is_empty() {
                    p.lexicon.clone()
                } else if let Some(lex) =
                    c.ops.lex.as_ref().filter(|l| self.state.host.lexicons().contains_key(l.as_str()))
                {
                    lex.clone()
                } else {
                    rules.default_lexicon.to_string()
                };
                let lexicon = self.state.lexicon(&name)?;
                if lexicon.alphabet() != rules.alphabet {
                    return Err(errors::bad_field(
                        "position.lexicon",
                        format!("{name} does not fit the {} ruleset", rules.kind),
                    ));
                }
                let spread = match c.scores.as_slice() {
                    [me, next, ..] => me.saturating_sub(*next),
                    _ => 0,
                };
                let (rack, players, zeros) = (c.racks.first().copied(), c.racks.len(), c.zeros);
                // Placing the tiles and computing every cross-set is CPU work: on the pool.
                let dawg_of = lexicon.clone();
                let board = self
                    .state
                    .host
                    .think(move || c.board(Arc::new(rules), dawg_of.dawg()))
                    .await
                    .ok_or_else(|| errors::internal("building the position failed"))?;
                let position = Arc::new(AnalysisPosition {
                    board: Arc::new(board),
                    rack,
                    rack_to_move: true,
                    lexicon,
                    players,
                    spread,
                    zeros,
                    over: false,
                });
                self.positions.put(text, &p.lexicon, position.clone());
                Ok(position)
            }
            None => Err(errors::bad_field("position", "a game_id or a cgp is required")),
        }
    }

    pub(super) fn rack(resolved: &AnalysisPosition, given: Option<&String>) -> Result<Rack, Status> {
        let rack = Self::given_rack(resolved, given)?;
        // A rack the tile set could never deal (eight blanks, say) would only make the generator
        // enumerate millions of plays: refuse it.
        if !resolved.board.rules().could_deal(&rack) {
            return Err(errors::bad_field("rack", "more tiles of a kind than the ruleset's tile set holds"));
        }
        Ok(rack)
    }

    /// The endgame's racks, the side to move's first: one known (given, the CGP's, the
    /// caller's), the other the tiles it leaves unseen. Refused unless the bag is empty.
    pub(super) fn endgame_racks(
        resolved: &AnalysisPosition,
        given: Option<&String>,
    ) -> Result<[Rack; 2], Status> {
        let (known, to_move) = match given {
            Some(_) => (Self::rack(resolved, given)?, true),
            None => match resolved.rack {
                Some(rack) => (rack, resolved.rack_to_move),
                None => {
                    return Err(errors::bad_field(
                        "rack",
                        "no rack: give one, a CGP with a rack, or your seat's token",
                    ));
                }
            },
        };
        let rules = resolved.board.rules();
        if known.len() > rules.rack_size {
            return Err(errors::bad_field(
                "rack",
                format!("{} tiles: a rack holds {}", known.len(), rules.rack_size),
            ));
        }
        let unseen = endgame::Position::unseen(&resolved.board, &known).ok_or_else(|| {
            errors::bad_field("rack", "the board and the rack hold more tiles than the tile set")
        })?;
        if unseen.len() > rules.rack_size {
            return Err(errors::not_an_endgame(format!(
                "the bag is not empty: {} tiles unseen, a rack holds {}",
                unseen.len(),
                rules.rack_size
            )));
        }
        let racks = if to_move { [known, unseen] } else { [unseen, known] };
        if racks[0].is_empty() || racks[1].is_empty() {
            return Err(errors::game_state("the game is over: a rack is empty"));
        }
        Ok(racks)
    }

    fn given_rack(resolved: &AnalysisPosition, given: Option<&String>) -> Result<Rack, Status> {
        match given {
            Some(text) => {
                // Counted as written, before parsing: a rack's counts saturate.
                let (count, rack_size) = (text.chars().count(), resolved.board.rules().rack_size);
                if count > rack_size {
                    return Err(errors::bad_field(
                        "rack",
                        format!("{count} tiles: a rack holds {rack_size}"),
                    ));
                }
                Rack::parse(text, resolved.board.rules().alphabet).map_err(|e| errors::alphabet("rack", e))
            }
            None => resolved.rack.ok_or_else(|| {
                errors::bad_field("rack", "no rack: give one, a CGP with a rack, or your seat's token")
            }),
        }
    }
}

impl AnalysisService {
    /// The side to move's rack for a search (`what`): as given, or the position's when it is
    /// the side to move's (a CGP's first rack, the caller's on its turn); not empty.
    pub(super) fn mover_rack(
        r: &AnalysisPosition,
        given: Option<&String>,
        what: &str,
    ) -> Result<Rack, Status> {
        if given.is_none() && !r.rack_to_move {
            return Err(errors::bad_field(
                "rack",
                format!("{what} needs the side to move's rack: give it, or ask on your turn"),
            ));
        }
        let rack = Self::rack(r, given)?;
        if rack.is_empty() {
            return Err(errors::bad_field("rack", format!("an empty rack: nothing for {what} to search")));
        }
        Ok(rack)
    }
}
