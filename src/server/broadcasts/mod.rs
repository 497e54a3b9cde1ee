//! The Broadcasts service: a labelled set of games shown to everyone outside the hall through a
//! delay. A broadcast's settings are one store record written whole against its version, known
//! to every door of a game through the events layer's registry (`dawgref_events::Registry`:
//! GetGame, WatchGame, ExportGcg and the Analysis calls ask it how long a spectator's view is
//! held back); WatchBroadcast's streams
//! share one feed per broadcast (the events layer's), which follows its games and releases each
//! event when its delay has passed, each message made and encoded once by [`wire`].

mod wire;

use super::codec::{EncodedRoute, EncodedStream};
use super::{errors, new_game};
use crate::proto::v1 as pb;
use crate::proto::v1::broadcasts_service_server::{BroadcastsService as Broadcasts, BroadcastsServiceServer};
use dawgref_events::{Broadcast, BroadcastChange, FeedWire, Kept};
use std::pin::Pin;
use std::sync::Arc;
use tonic::{Request, Response, Status};

pub struct BroadcastsService {
    state: Arc<super::state::AppState>,
    /// What the feeds this service starts make their messages with.
    wire: Arc<dyn FeedWire>,
}

pub type BroadcastStream =
    Pin<Box<dyn tokio_stream::Stream<Item = Result<pb::WatchBroadcastResponse, Status>> + Send + 'static>>;

/// A broadcast as the wire shows it.
fn wire(b: Broadcast) -> pb::Broadcast {
    let Broadcast {
        slug,
        name,
        labels,
        delay_seconds,
        reveal_racks,
        created_unix_ms,
        ended_unix_ms,
        analysis,
        analysis_ms,
    } = b;
    pb::Broadcast {
        slug,
        name,
        labels,
        delay_seconds,
        reveal_racks,
        created_unix_ms,
        ended_unix_ms,
        analysis,
        analysis_ms,
    }
}

impl BroadcastsService {
    pub(crate) fn new(state: Arc<super::state::AppState>) -> BroadcastsService {
        BroadcastsService { wire: Arc::new(wire::Wire(state.clone())), state }
    }

    /// A broadcast as this replica knows it (see `Events::broadcast`).
    async fn find(&self, slug: &str) -> Result<Kept, Status> {
        self.state.events.broadcast(slug).await.map_err(errors::events)
    }

    /// What a change needs of its caller: a director whose key covers the broadcast's labels.
    async fn covers(
        &self,
        metadata: &tonic::metadata::MetadataMap,
    ) -> Result<impl Fn(&Kept) -> Result<(), dawgref_events::EventsError>, Status> {
        let director = self.state.identity.director(metadata).await?;
        Ok(move |kept: &Kept| Ok(director.check_covers(&kept.labels)?))
    }
}

#[tonic::async_trait]
impl Broadcasts for BroadcastsService {
    async fn create_broadcast(
        &self,
        request: Request<pb::CreateBroadcastRequest>,
    ) -> Result<Response<pb::CreateBroadcastResponse>, Status> {
        let r = request.get_ref();
        new_game::check_slug("slug", &r.slug)?;
        new_game::check_title("name", &r.name)?;
        let labels = new_game::labels("labels", &r.labels)?;
        let broadcast = Broadcast {
            slug: r.slug.clone(),
            name: r.name.clone(),
            labels: labels.iter().cloned().collect(),
            delay_seconds: r.delay_seconds,
            reveal_racks: r.reveal_racks,
            created_unix_ms: crate::host::unix_ms(),
            ended_unix_ms: 0,
            analysis: r.analysis,
            analysis_ms: r.analysis_ms,
        };
        let broadcast = broadcast.checked().map_err(errors::invalid)?;
        let director = self.state.identity.director(request.metadata()).await?;
        director.check_covers(&labels).map_err(errors::host)?;
        let kept = self.state.events.create_broadcast(broadcast).await.map_err(errors::events)?;
        Ok(Response::new(pb::CreateBroadcastResponse { broadcast: Some(wire(kept.broadcast)) }))
    }

    async fn get_broadcast(
        &self,
        request: Request<pb::GetBroadcastRequest>,
    ) -> Result<Response<pb::GetBroadcastResponse>, Status> {
        let kept = self.find(&request.get_ref().slug).await?;
        Ok(Response::new(pb::GetBroadcastResponse { broadcast: Some(wire(kept.broadcast)) }))
    }

    async fn list_broadcasts(
        &self,
        _request: Request<pb::ListBroadcastsRequest>,
    ) -> Result<Response<pb::ListBroadcastsResponse>, Status> {
        let broadcasts =
            self.state.events.broadcasts().all().into_iter().map(|k| wire(k.broadcast)).collect();
        Ok(Response::new(pb::ListBroadcastsResponse { broadcasts }))
    }

    async fn update_broadcast(
        &self,
        request: Request<pb::UpdateBroadcastRequest>,
    ) -> Result<Response<pb::UpdateBroadcastResponse>, Status> {
        let r = request.get_ref();
        if let Some(name) = &r.name {
            new_game::check_title("name", name)?;
        }
        let change = BroadcastChange {
            name: r.name.clone(),
            delay_seconds: r.delay_seconds,
            reveal_racks: r.reveal_racks,
            analysis: r.analysis,
            analysis_ms: r.analysis_ms,
        };
        change.check().map_err(errors::invalid)?;
        let check = self.covers(request.metadata()).await?;
        let kept =
            self.state.events.update_broadcast(&r.slug, check, &change).await.map_err(errors::events)?;
        let broadcast = wire(kept.broadcast);
        Ok(Response::new(pb::UpdateBroadcastResponse { broadcast: Some(broadcast) }))
    }

    async fn end_broadcast(
        &self,
        request: Request<pb::EndBroadcastRequest>,
    ) -> Result<Response<pb::EndBroadcastResponse>, Status> {
        let slug = &request.get_ref().slug;
        // Not found before unauthenticated, as every broadcast call answers.
        self.find(slug).await?;
        let check = self.covers(request.metadata()).await?;
        let now = crate::host::unix_ms();
        let kept = self.state.events.end_broadcast(slug, check, now).await.map_err(errors::events)?;
        let broadcast = wire(kept.broadcast);
        Ok(Response::new(pb::EndBroadcastResponse { broadcast: Some(broadcast) }))
    }

    type WatchBroadcastStream = BroadcastStream;

    /// Served as [`watch`](BroadcastsService::watch) encoded it ([`served`]): this is the same
    /// stream decoded, for a caller of the trait itself.
    async fn watch_broadcast(
        &self,
        request: Request<pb::WatchBroadcastRequest>,
    ) -> Result<Response<BroadcastStream>, Status> {
        use prost::Message;
        use tokio_stream::StreamExt;
        let stream = self.watch(request).await?.into_inner().map(|m| {
            pb::WatchBroadcastResponse::decode(m?)
                .map_err(|e| Status::internal(format!("a broadcast's message did not decode: {e}")))
        });
        Ok(Response::new(Box::pin(stream)))
    }
}

impl BroadcastsService {
    /// WatchBroadcast: the feed's messages as it encoded them.
    async fn watch(
        &self,
        request: Request<pb::WatchBroadcastRequest>,
    ) -> Result<Response<EncodedStream>, Status> {
        let r = request.get_ref();
        let kept = self.find(&r.slug).await?;
        let game = match r.game_id.as_str() {
            "" => None,
            id => Some(crate::host::parse_game_id(id).map_err(errors::host)?),
        };
        // Another replica's feed following a game: answered only where the game is held (else
        // UNAVAILABLE, and it asks the store who holds it), with both forms of each message.
        let peer = super::forward::forwarded(&request) && game.is_some();
        if peer {
            match self.state.host.route(&r.game_id, true).await.map_err(errors::host)? {
                crate::host::Route::Local(_) => {}
                crate::host::Route::Remote(_) => return Err(errors::moved(&r.game_id)),
            }
        }
        if let (Some(id), false) = (game, peer) {
            self.state.events.check_covers(&kept, id).await.map_err(errors::events)?;
        }
        let deadline = super::caller::deadline(&request).map(tokio::time::Instant::from_std);
        let stream = self.state.events.watch_broadcast(&kept, game, peer, deadline, &self.wire);
        Ok(Response::new(Box::pin(tokio_stream::StreamExt::map(stream, |m| m.map_err(errors::events)))))
    }
}

/// The Broadcasts service as served: WatchBroadcast through
/// [`EncodedCodec`](super::codec::EncodedCodec) (each message goes out as the bytes the feed
/// encoded once for every stream), every other call through the generated server.
pub fn served(service: BroadcastsService, max_decoding: usize) -> Served {
    let service = Arc::new(service);
    let generated =
        BroadcastsServiceServer::from_arc(service.clone()).max_decoding_message_size(max_decoding);
    let watch = Arc::new(move |request| {
        let service = service.clone();
        Box::pin(async move { service.watch(request).await }) as _
    });
    EncodedRoute::new(generated, "/dawgref.v1.BroadcastsService/WatchBroadcast", max_decoding, watch)
}

pub type Served = EncodedRoute<BroadcastsServiceServer<BroadcastsService>, pb::WatchBroadcastRequest>;
