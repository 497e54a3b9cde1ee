//! Calls for a game another replica owns, sent on to the owner as the client sent them (its
//! bearer token included), marked so that they are forwarded at most once. The host decides
//! where a game is served ([`crate::host::Host::route`]); this module carries the call there.

use super::errors;
use super::owner;
use crate::host::{Host, Peers};
use crate::proto::v1::broadcasts_service_client::BroadcastsServiceClient;
use crate::proto::v1::directors_service_client::DirectorsServiceClient;
use crate::proto::v1::games_service_client::GamesServiceClient;
use dashmap::DashMap;
use std::sync::Arc;
use std::time::Duration;
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Response, Status};
use tracing::Instrument;
use uuid::Uuid;

pub use super::owner::{FORWARDED, PROOF};

/// Sends calls on to their game's owner: one HTTP/2 channel per peer address, shared by every
/// forwarded call.
pub struct Forwarder {
    host: Host,
    channels: DashMap<String, Channel>,
    /// The replicas serve TLS: its client side, as last loaded, is how to reach them (None:
    /// plaintext).
    tls: Option<Arc<super::tls::Tls>>,
}

impl Forwarder {
    pub fn new(host: Host, tls: Option<Arc<super::tls::Tls>>) -> Forwarder {
        Forwarder { host, channels: DashMap::new(), tls }
    }

    /// Drop the channels open to other replicas: new ones connect with the TLS files as they
    /// are now.
    pub fn reconnect(&self) {
        self.channels.clear();
    }

    /// The channel to the replica at `addr` (it connects on first use and reconnects).
    fn channel(&self, addr: &str) -> Result<Channel, Status> {
        if let Some(c) = self.channels.get(addr) {
            return Ok(c.clone());
        }
        let tls = self.tls.as_ref().and_then(|t| t.client());
        let scheme = if tls.is_some() { "https" } else { "http" };
        let endpoint = Endpoint::from_shared(format!("{scheme}://{addr}"))
            .map_err(|e| errors::internal(format!("the owner's address {addr:?}: {e}")))?;
        let endpoint = match tls {
            Some(tls) => endpoint
                .tls_config(tls)
                .map_err(|e| errors::internal(format!("TLS to the owner at {addr:?}: {e}")))?,
            None => endpoint,
        };
        let endpoint = endpoint
            .connect_timeout(Duration::from_secs(1))
            .tcp_nodelay(true)
            .http2_keep_alive_interval(Duration::from_secs(5))
            .keep_alive_timeout(Duration::from_secs(5));
        let channel = endpoint.connect_lazy();
        self.channels.insert(addr.to_string(), channel.clone());
        Ok(channel)
    }

    /// Send a call for a game to the replica that owns it, as the client sent it (its bearer
    /// token included), marked as forwarded, through the client of its service (`C`). A failed
    /// forward makes the next call ask the store who the owner is.
    pub async fn forward<C: PeerClient, T, R, F, Fut>(
        &self,
        game_id: &str,
        addr: &str,
        request: Request<T>,
        call: F,
    ) -> Result<Response<R>, Status>
    where
        F: FnOnce(C, Request<T>) -> Fut,
        Fut: std::future::Future<Output = Result<Response<R>, Status>>,
    {
        let (metadata, extensions, message) = request.into_parts();
        let Some(peers) = self.host.peers() else {
            return Err(errors::internal("a forward without replicas"));
        };
        let answer = self
            .call_via(addr, outgoing(&metadata, message, &peers), |channel, r| call(C::over(channel), r))
            .await;
        if let (Ok(response), Some(note)) = (&answer, extensions.get::<owner::Note>()) {
            note.answered(&self.host, response.metadata());
        }
        if let Err(status) = &answer
            && unreachable(status)
        {
            if let (Some(peers), Ok(uuid)) = (self.host.peers(), Uuid::parse_str(game_id)) {
                peers.owner_unreachable(&uuid);
            }
            return Err(Status::unavailable(format!(
                "the replica that owns game {} did not answer ({}); retry",
                crate::text::clip(game_id),
                crate::text::clip(status.message())
            )));
        }
        answer
    }

    /// One call to the replica at `addr`, bounded in time.
    pub async fn call_peer<T, R, F, Fut>(
        &self,
        addr: &str,
        request: Request<T>,
        call: F,
    ) -> Result<Response<R>, Status>
    where
        F: FnOnce(GamesServiceClient<Channel>, Request<T>) -> Fut,
        Fut: std::future::Future<Output = Result<Response<R>, Status>>,
    {
        self.call_via(addr, request, |channel, r| call(GamesServiceClient::new(channel), r)).await
    }

    async fn call_via<T, R, F, Fut>(
        &self,
        addr: &str,
        mut request: Request<T>,
        call: F,
    ) -> Result<Response<R>, Status>
    where
        F: FnOnce(Channel, Request<T>) -> Fut,
        Fut: std::future::Future<Output = Result<Response<R>, Status>>,
    {
        let Some(peers) = self.host.peers() else {
            return Err(errors::internal("a forward without replicas"));
        };
        self.host.metrics().forwarded.inc();
        let client = self.channel(addr)?;
        let limit = peers.answer_within();
        let span = crate::host::trace::within(crate::host::trace::current(), || {
            tracing::debug_span!("forward", peer = addr, otel.kind = "client")
        });
        crate::telemetry::inject(&span, request.metadata_mut());
        match tokio::time::timeout(limit, call(client, request)).instrument(span).await {
            Ok(answer) => answer,
            Err(_) => Err(Status::unavailable("no answer in time")),
        }
    }
}

/// The client of a service, over a channel to another replica.
pub trait PeerClient {
    fn over(channel: Channel) -> Self;
}

impl PeerClient for GamesServiceClient<Channel> {
    fn over(channel: Channel) -> Self {
        GamesServiceClient::new(channel)
    }
}

impl PeerClient for BroadcastsServiceClient<Channel> {
    fn over(channel: Channel) -> Self {
        BroadcastsServiceClient::new(channel)
    }
}

impl PeerClient for DirectorsServiceClient<Channel> {
    fn over(channel: Channel) -> Self {
        DirectorsServiceClient::new(channel)
    }
}

/// A call to another replica, as the client sent it (its bearer token included), marked as
/// forwarded by this replica (its address, and the replicas' secret as proof) so that the
/// replica answers it itself.
pub fn outgoing<T>(metadata: &tonic::metadata::MetadataMap, message: T, peers: &Peers<'_>) -> Request<T> {
    let mut outgoing = Request::new(message);
    if let Some(auth) = metadata.get("authorization") {
        outgoing.metadata_mut().insert("authorization", auth.clone());
    }
    let mark = tonic::metadata::MetadataValue::try_from(peers.addr())
        .unwrap_or_else(|_| tonic::metadata::MetadataValue::from_static("1"));
    outgoing.metadata_mut().insert(FORWARDED, mark);
    if let Ok(proof) = tonic::metadata::MetadataValue::try_from(peers.proof()) {
        outgoing.metadata_mut().insert(PROOF, proof);
    }
    // The caller's deadline goes with the call (as it was when the call came in: the owner
    // may wait the forward's few milliseconds longer than the caller does).
    if let Some(timeout) = super::caller::timeout(metadata) {
        outgoing.set_timeout(timeout);
    }
    outgoing
}

/// A forwarded call failed because the replica did not answer (not because it refused). The
/// client library reports a stream reset under it (a draining replica closing its connection)
/// as INTERNAL "h2 protocol error", which no replica sends.
pub fn unreachable(status: &Status) -> bool {
    matches!(status.code(), tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled)
        || (status.code() == tonic::Code::Internal && status.message().starts_with("h2 protocol error"))
}

/// The call came from another replica (see [`FORWARDED`]).
pub fn forwarded<T>(request: &Request<T>) -> bool {
    request.metadata().contains_key(FORWARDED)
}
