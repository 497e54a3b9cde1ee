//! Which replica owns a game, told to clients and balancers, and ownership that follows traffic.
//!
//! Among replicas, [`OwnerLayer`] gives every call a [`Note`] (in the request's extensions) that
//! the Games and Directors methods fill when they route the call ([`Note::routed`]). When the
//! call is answered, the layer tells the host the game was served here and by whom it was
//! forwarded ([`Host::served`], which may move the game to the replica its calls keep coming
//! through), then writes the owner's advertised address into the response's `x-dawgref-owner`
//! header. A forwarding replica reads that header from the owner's answer ([`Note::answered`]):
//! so it learns at once that a game moved to it. Only a replica can mark a call as forwarded:
//! the mark comes with the replicas' shared secret ([`PROOF`]), and the layer drops a mark
//! without it, so that a client cannot move a game by passing its calls off as a replica's.
//!
//! `x-dawgref-game`, the game's id as request metadata, is for balancers (hash on it, so that a
//! game's calls land on one replica). The server never trusts it: the id in the message is the
//! one served, and a missing or malformed header changes nothing.

use crate::host::{Host, Route};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// The header a forwarding replica adds, so that a call is forwarded at most once. Its value
/// is the forwarding replica's advertised address: the owner counts whose calls it serves, and
/// moves a game to the replica its calls keep coming through.
pub const FORWARDED: &str = "x-dawgref-forwarded";

/// The header that proves [`FORWARDED`]: the replicas' shared secret (`Leases::secret`). A call
/// marked as forwarded without it is a client's, and is served as any client's call.
pub const PROOF: &str = "x-dawgref-forwarded-proof";

/// The request header naming the game a call is about: a hint for balancers, never trusted.
pub const GAME: &str = "x-dawgref-game";

/// The response header naming the advertised address of the replica that owns the call's game.
pub const OWNER: &str = "x-dawgref-owner";

/// Where one call's game was served, filled in by the method that routed it.
#[derive(Clone, Default)]
pub struct Note(Arc<Mutex<Option<Routed>>>);

#[derive(Clone, Debug)]
struct Routed {
    game: Uuid,
    /// None: served here; else the owner's address (as its answer named it, once forwarded).
    owner: Option<String>,
}

impl Note {
    /// The call's game was routed: served here, or forwarded to its owner.
    pub fn routed(&self, game: Uuid, route: &Route) {
        let owner = match route {
            Route::Local(_) => None,
            Route::Remote(addr) => Some(addr.clone()),
        };
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Routed { game, owner });
    }

    /// The owner answered a forwarded call naming the game's owner now (itself, or this
    /// replica when the game just moved here).
    pub fn answered(&self, host: &Host, metadata: &tonic::metadata::MetadataMap) {
        let Some(owner) = metadata.get(OWNER).and_then(|v| v.to_str().ok()) else { return };
        let mut routed = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let Some(Routed { game, owner: Some(known) }) = routed.as_mut() else { return };
        if let Some(peers) = host.peers() {
            peers.owner_is(*game, owner);
        }
        *known = owner.to_string();
    }

    fn take(&self) -> Option<Routed> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The replica that forwarded a call (its advertised address, from `x-dawgref-forwarded`).
pub fn forwarded_by(headers: &http::HeaderMap) -> Option<String> {
    let value = headers.get(FORWARDED)?.to_str().ok()?;
    // Older replicas mark a forward with "1": forwarded, by nobody known.
    (value.contains(':') && value.len() <= 256).then(|| value.to_string())
}

/// The tower layer that notes where each call's game is served (see the module's doc).
#[derive(Clone)]
pub struct OwnerLayer(pub Host);

impl<S> tower::Layer<S> for OwnerLayer {
    type Service = OwnerService<S>;
    fn layer(&self, inner: S) -> OwnerService<S> {
        OwnerService { inner, host: self.0.clone() }
    }
}

#[derive(Clone)]
pub struct OwnerService<S> {
    inner: S,
    host: Host,
}

impl<S, B, R> tower::Service<http::Request<B>> for OwnerService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    R: Send,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<B>) -> Self::Future {
        let Some(peers) = self.host.peers() else {
            // No replicas: no call is a replica's.
            request.headers_mut().remove(FORWARDED);
            request.headers_mut().remove(PROOF);
            return Box::pin(self.inner.call(request));
        };
        // Only a replica can mark a call as forwarded: a mark without the proof goes, and the
        // proof goes either way (nothing past here needs it).
        let headers = request.headers_mut();
        // Constant time over the secret's bytes (a proof of another length fails at once: the
        // secret's length is no secret).
        let proven = headers
            .get(PROOF)
            .is_some_and(|given| bool::from(given.as_bytes().ct_eq(peers.proof().as_bytes())));
        headers.remove(PROOF);
        if !proven {
            headers.remove(FORWARDED);
        }
        let note = Note::default();
        let from = forwarded_by(request.headers());
        request.extensions_mut().insert(note.clone());
        let answer = self.inner.call(request);
        let host = self.host.clone();
        Box::pin(async move {
            let mut response = answer.await?;
            let owner = match note.take() {
                Some(Routed { game, owner: None }) => host.served(game, from.as_deref()).await,
                Some(Routed { owner, .. }) => owner,
                None => None,
            };
            if let Some(value) = owner.and_then(|o| http::HeaderValue::from_str(&o).ok()) {
                response.headers_mut().insert(OWNER, value);
            }
            Ok(response)
        })
    }
}
