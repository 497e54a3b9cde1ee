//! The services' state: the game host, the analysis position cache, the root director's token,
//! line of game reviews, and the channels to other replicas. A game's
//! session is found through the host ([`Host::route`]); no map guard is ever held across an
//! `.await`.

use super::errors;
use super::forward::Forwarder;
use super::lineup::{Lineup, RECENT_REVIEWS, REVIEWS_RUNNING, REVIEWS_WAITING, Recent};
use crate::host::{Director, Host, HostError, Route, Session, Snapshot, TokenHash};
use crate::lexicon::Lexicon;
use crate::metrics::Metrics;
use std::sync::Arc;
use tokio::sync::watch;
use tonic::Status;

pub use crate::host::{Callbacks, Limits};

/// Where a call for a game is answered ([`AppState::serve`]).
pub enum Here<T, R> {
    /// Here: the game's session, and the request back.
    Local(Arc<Session>, tonic::Request<T>),
    /// By the replica that owns the game: its answer.
    Forwarded(tonic::Response<R>),
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

/// The whole server's state.
pub(crate) struct AppState {
    /// The live games and everything they need.
    pub(crate) host: Host,
    pub(crate) positions: PositionCache,
    pub(crate) limits: Limits,
    pub(crate) metrics: Arc<Metrics>,
    /// Flips to true on shutdown: open streams end, sessions' tasks stop.
    pub(crate) shutdown: watch::Receiver<bool>,
    /// The hash of the root director's token; none: no director.
    director: Option<TokenHash>,
    /// Sends calls for games owned elsewhere to their owner.
    pub(crate) forwarder: Forwarder,
    /// Whole-game reviews running and waiting.
    pub(crate) reviews: Arc<Lineup>,
    /// The last reviews of records, every message of each, by request.
    pub(crate) recent_reviews: Recent<Arc<Vec<crate::proto::v1::AnalyzeGameResponse>>>,
    /// Each client's pace of new games.
    pub(crate) creates: super::caller::CreateBuckets,
    /// The port's TLS, when it serves TLS (then forwarding to other replicas uses it too).
    pub(crate) tls: Option<Arc<super::tls::Tls>>,
}

impl AppState {
    /// `director`: the root director's token (None: no director).
    pub(crate) fn new(host: Host, tls: Option<Arc<super::tls::Tls>>, director: Option<&str>) -> AppState {
        AppState {
            positions: PositionCache::default(),
            limits: host.limits().clone(),
            metrics: host.metrics().clone(),
            shutdown: host.shutdown(),
            director: director.map(super::auth::hash),
            forwarder: Forwarder::new(host.clone(), tls.clone()),
            tls,
            reviews: Arc::new(Lineup::new(REVIEWS_RUNNING, REVIEWS_WAITING)),
            recent_reviews: Recent::new(RECENT_REVIEWS),
            creates: super::caller::CreateBuckets::new(host.limits().create_rate),
            host,
        }
    }

    /// Read the TLS files again: new connections and new channels to other replicas use them.
    pub fn reload_tls(&self) -> Result<(), super::tls::TlsError> {
        let Some(tls) = &self.tls else { return Ok(()) };
        tls.reload()?;
        self.forwarder.reconnect();
        Ok(())
    }

    /// Where the game a request names is served (see [`Host::route`]), noted for the response's
    /// owner header (see `owner`).
    pub async fn route<T>(&self, id: &str, request: &tonic::Request<T>) -> Result<Route, Status> {
        let route = self.host.route(id, super::forward::forwarded(request)).await.map_err(errors::host)?;
        if let (Some(note), Ok(game)) =
            (request.extensions().get::<super::owner::Note>(), uuid::Uuid::parse_str(id))
        {
            note.routed(game, &route);
        }
        Ok(route)
    }

    /// Where a call for game `id` is answered: here, with the game's session and the request
    /// back; or by the replica that owns it, through `call` on the client of its service, whose
    /// answer it is. The one place a call is routed.
    pub async fn serve<C, T, R, F, Fut>(
        &self,
        id: &str,
        request: tonic::Request<T>,
        call: F,
    ) -> Result<Here<T, R>, Status>
    where
        C: super::forward::PeerClient,
        F: FnOnce(C, tonic::Request<T>) -> Fut,
        Fut: std::future::Future<Output = Result<tonic::Response<R>, Status>>,
    {
        match self.route(id, &request).await? {
            Route::Local(session) => Ok(Here::Local(session, request)),
            Route::Remote(addr) => {
                self.forwarder.forward(id, &addr, request, call).await.map(Here::Forwarded)
            }
        }
    }

    /// Run a command on a game's session. If the session's task stopped with the command still
    /// queued (the game went to sleep, ended or was given up a moment before), the command never
    /// ran: it is asked once more, of the game's next session as it is now.
    pub async fn on_session<T, F, Fut>(&self, id: &str, session: Arc<Session>, op: F) -> Result<T, Status>
    where
        F: Fn(Arc<Session>) -> Fut,
        Fut: std::future::Future<Output = Result<T, crate::host::HostError>>,
    {
        match op(session.clone()).await.map_err(errors::host) {
            Err(e) if e.code() == tonic::Code::Unavailable && !session.is_alive() => {
                match self.host.route(id, true).await.map_err(errors::host)? {
                    Route::Local(s) if s.instance() != session.instance() => {
                        op(s).await.map_err(errors::host)
                    }
                    _ => Err(e),
                }
            }
            answer => answer,
        }
    }

    /// The game as a reader sees it (see [`Host::snapshot`]).
    pub async fn snapshot(&self, id: &str) -> Result<Arc<Snapshot>, Status> {
        self.host.snapshot(id).await.map_err(errors::host)
    }

    /// Refuse a new game when the server holds its limit.
    pub fn check_room(&self) -> Result<(), Status> {
        self.host.check_room().map_err(errors::host)
    }

    /// The director a request's token makes its caller: the root director by the token the
    /// server was started with, else a director key's holder (see [`Director`]). UNAUTHENTICATED
    /// without a token; FAILED_PRECONDITION when the server has no director token and the token
    /// is no key's; PERMISSION_DENIED for any other token, or a revoked key.
    pub async fn director(&self, metadata: &tonic::metadata::MetadataMap) -> Result<Director, Status> {
        let token = super::auth::bearer(metadata)?.ok_or_else(|| {
            errors::unauthenticated("this call needs a director's token (authorization: Bearer <token>)")
        })?;
        match self.director_of(&token).await {
            Err(HostError::NotDirector) if self.director.is_none() => Err(errors::no_director()),
            answer => answer.map_err(errors::host),
        }
    }

    /// The director `token` makes its holder: [`HostError::NotDirector`] when it is neither the
    /// root's nor a key's.
    async fn director_of(&self, token: &str) -> Result<Director, HostError> {
        if self.director.is_some() && super::auth::find_seat(token, &[self.director]).is_some() {
            return Ok(Director::root());
        }
        self.host.director_key(&super::auth::hash(token)).await
    }

    /// The viewer a request's metadata proves in a game: a seat by its token, a director whose
    /// games include this one by a director's token (PERMISSION_DENIED for a director key's
    /// other games, or a revoked key), a watcher without one; any other token is
    /// UNAUTHENTICATED.
    pub async fn viewer(
        &self,
        metadata: &tonic::metadata::MetadataMap,
        game: &Snapshot,
    ) -> Result<crate::host::Viewer, Status> {
        match super::auth::viewer(metadata, game) {
            Err(e) if e.code() == tonic::Code::Unauthenticated => {
                let Some(token) = super::auth::bearer(metadata)? else { return Err(e) };
                match self.director_of(&token).await {
                    Ok(director) => {
                        director.check_covers(game.labels()).map_err(errors::host)?;
                        Ok(crate::host::Viewer::Director)
                    }
                    // No seat's and no director's: the token proves nobody.
                    Err(HostError::NotDirector) => Err(e),
                    Err(other) => Err(errors::host(other)),
                }
            }
            other => other,
        }
    }

    pub fn lexicon(&self, name: &str) -> Result<Arc<Lexicon>, Status> {
        self.host.lexicons().get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = self.host.lexicons().keys().map(|k| k.as_str()).collect();
            errors::bad_field(
                "lexicon",
                format!("unknown lexicon {:?} (loaded: {})", crate::text::clip(name), known.join(", ")),
            )
        })
    }
}
