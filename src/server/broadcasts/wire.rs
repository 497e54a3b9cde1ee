//! WatchBroadcast's messages as the wire has them: the events layer's feed asks for each fact of
//! a game made and encoded once, in both forms ([`FeedWire`]), and for a game held by another
//! replica followed through that replica's own stream, forwarded with the replicas' routing.

use crate::game::Event;
use crate::host::{Snapshot, Viewer};
use crate::proto::v1 as pb;
use crate::proto::v1::broadcasts_service_client::BroadcastsServiceClient;
use crate::server::state::AppState;
use crate::server::{review, tournaments, views};
use dawgref_engine::alphabet::Alphabet;
use dawgref_events::{DivisionRecord, Encoded, Fact, FeedWire, Judged, RelayStream, Relayed};
use pb::watch_broadcast_response::Item;
use prost::Message;
use prost::bytes::Bytes;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tonic::transport::Channel;
use uuid::Uuid;

/// The feed's wire on this server: the forwarder its relays go through is the state's.
pub(super) struct Wire(pub(super) Arc<AppState>);

/// One message of a stream about game `id`, for what happened at `unix_ms` (racks added by the
/// caller when it shows them).
fn message(id: Uuid, unix_ms: u64, item: Item) -> pb::WatchBroadcastResponse {
    pb::WatchBroadcastResponse {
        game_id: id.to_string(),
        happened_unix_ms: unix_ms,
        item: Some(item),
        racks: Vec::new(),
    }
}

fn encoded(hidden: pb::WatchBroadcastResponse, revealed: pb::WatchBroadcastResponse) -> Encoded {
    Encoded { hidden: hidden.encode_to_vec().into(), revealed: revealed.encode_to_vec().into() }
}

/// Which fact of a game a relayed message tells (None: the game's end, a message with no item).
fn fact_of(message: &pb::WatchBroadcastResponse) -> Option<Fact> {
    Some(match message.item.as_ref()? {
        Item::Game(v) => Fact::Position(v.events),
        Item::Event(e) => Fact::Event(e.number),
        Item::Analysis(a) => Fact::Analysis(a.event),
        Item::Standings(_) => Fact::Standings,
    })
}

impl FeedWire for Wire {
    fn made(&self, game: Uuid, unix_ms: u64, position: &Snapshot, racks: Vec<String>) -> Encoded {
        let view = views::view(&game.to_string(), position, Viewer::Watcher, 0);
        let hidden = message(game, unix_ms, Item::Game(view));
        let revealed = pb::WatchBroadcastResponse { racks, ..hidden.clone() };
        encoded(hidden, revealed)
    }

    fn event(
        &self,
        game: Uuid,
        unix_ms: u64,
        event: &Event,
        (alphabet, verdicts): (Alphabet, bool),
        racks: Vec<String>,
    ) -> Encoded {
        let seen =
            |viewer| message(game, unix_ms, Item::Event(views::event(event, alphabet, viewer, verdicts)));
        encoded(seen(Viewer::Watcher), pb::WatchBroadcastResponse { racks, ..seen(Viewer::Revealed) })
    }

    fn analysis(&self, game: Uuid, unix_ms: u64, judged: &Judged) -> Encoded {
        let hidden = pb::MoveAnalysis {
            turn: judged.turn,
            seat: judged.seat as u32,
            event: judged.event as u64,
            win_percent: judged.win_percent.clone(),
            review: None,
        };
        let revealed = match &judged.review {
            Some((r, win_percent)) => pb::MoveAnalysis {
                win_percent: win_percent.clone(),
                review: Some(review::turn_to(r, judged.alphabet)),
                ..hidden.clone()
            },
            None => hidden.clone(),
        };
        let item = |a| message(game, unix_ms, Item::Analysis(a));
        encoded(item(hidden), item(revealed))
    }

    fn standings(&self, game: Uuid, unix_ms: u64, slug: &str, division: &DivisionRecord) -> Bytes {
        let standings = pb::BroadcastStandings {
            tournament: slug.to_string(),
            division: division.division().name().to_string(),
            standings: tournaments::standings(division.division()),
        };
        message(game, unix_ms, Item::Standings(standings)).encode_to_vec().into()
    }

    fn done_marker(&self, game: Uuid) -> Bytes {
        pb::WatchBroadcastResponse { game_id: game.to_string(), ..Default::default() }.encode_to_vec().into()
    }

    /// The owner's stream of the game, forwarded: each message comes in both forms, the watcher's
    /// then the revealed, and the game's end as a message with no item.
    fn follow_there(
        &self,
        slug: &str,
        game: Uuid,
        owner: &str,
    ) -> Pin<Box<dyn Future<Output = Option<RelayStream>> + Send>> {
        let (state, owner, game_id) = (self.0.clone(), owner.to_string(), game.to_string());
        let request = tonic::Request::new(pb::WatchBroadcastRequest { slug: slug.to_string(), game_id });
        Box::pin(async move {
            let call = |mut c: BroadcastsServiceClient<Channel>, r| async move { c.watch_broadcast(r).await };
            let upstream = state.forwarder.forward(&game.to_string(), &owner, request, call).await.ok()?;
            let relayed = futures_util::stream::unfold(upstream.into_inner(), |mut upstream| async move {
                let hidden = upstream.message().await.ok()??;
                let Some(fact) = fact_of(&hidden) else { return Some((Relayed::Done, upstream)) };
                let revealed = upstream.message().await.ok()??;
                Some((Relayed::Message(fact, encoded(hidden, revealed)), upstream))
            });
            Some(Box::pin(relayed) as RelayStream)
        })
    }
}
