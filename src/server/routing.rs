//! Where a call for a game is answered: here, on the game's session, or by the replica that owns
//! it ([`AppState::serve`], the one place a call is routed), and a command run again on the
//! game's next session when the one it reached stopped first ([`AppState::on_session`]). A
//! game's session is found through the host ([`Host::route`]); no map guard is ever held across
//! an `.await`.

use super::errors;
use super::state::AppState;
use crate::host::{Route, Session, Snapshot};
use std::sync::Arc;
use tonic::Status;

impl AppState {
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

    /// Answer a call for game `id`: here, by `local` on the game's session (given the request
    /// back); or by the replica that owns it, through `forward` on the client of its service,
    /// whose answer (with its metadata) is the call's. The one place a call is routed.
    pub async fn serve<C, T, R, F, Fut>(
        &self,
        id: &str,
        request: tonic::Request<T>,
        forward: F,
        local: impl AsyncFnOnce(Arc<Session>, tonic::Request<T>) -> Result<R, Status>,
    ) -> Result<tonic::Response<R>, Status>
    where
        C: super::forward::PeerClient,
        F: FnOnce(C, tonic::Request<T>) -> Fut,
        Fut: std::future::Future<Output = Result<tonic::Response<R>, Status>>,
    {
        match self.route(id, &request).await? {
            Route::Local(session) => local(session, request).await.map(tonic::Response::new),
            Route::Remote(addr) => self.forwarder.forward(id, &addr, request, forward).await,
        }
    }

    /// Run a command on a game's session, asked again of its next session when the one it
    /// reached stopped first ([`Host::on_session`]).
    pub async fn on_session<T, F, Fut>(&self, id: &str, session: Arc<Session>, op: F) -> Result<T, Status>
    where
        F: Fn(Arc<Session>) -> Fut,
        Fut: std::future::Future<Output = Result<T, crate::host::HostError>>,
    {
        self.host.on_session(id, session, op).await.map_err(errors::host)
    }

    /// The game as a reader sees it (see [`Host::snapshot`]).
    pub async fn snapshot(&self, id: &str) -> Result<Arc<Snapshot>, Status> {
        self.host.snapshot(id).await.map_err(errors::host)
    }
}
