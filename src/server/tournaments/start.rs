//! StartRound's games, as the events layer's round asks for them (`Events::start_round`): each
//! made from the tournament's game settings through the checks of any new game, every seat named
//! for its player and each human seat bound to its player's token.

use super::super::{errors, new_game};
use super::create::{game_request, human_spec};
use crate::host::{HostError, Seat, SeatKind};
use crate::proto::v1 as pb;
use dawgref_events::{EventsError, Record, RoundGames, game_labels};
use dawgref_tournament::PlayerId;

/// A round's games made on this server's host.
pub(super) struct Games<'a>(pub(super) &'a super::AppState);

impl RoundGames for Games<'_> {
    /// The game of `pair`, made (or found made by an earlier call: its id is drawn from what it
    /// is), every seat named for its player and each human seat bound to its player's token hash.
    async fn make(
        &self,
        record: &Record,
        d: usize,
        round: u32,
        pair: [PlayerId; 2],
        id: uuid::Uuid,
    ) -> Result<(), EventsError> {
        let entry = &record.divisions()[d];
        let players = pair.map(|p| &entry.division().players()[p.index()]);
        let seats: Vec<pb::SeatSpec> = players
            .iter()
            .map(|player| match super::view::level(player) {
                Some(level) => pb::SeatSpec {
                    kind: Some(pb::seat_spec::Kind::Bot(super::view::bot(level))),
                    think_ms: None,
                },
                None => human_spec(&player.name),
            })
            .collect();
        let labels = game_labels(&record.slug(), entry.division().name(), round).into();
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed();
        let request = game_request(record.game(), seats, seed, labels);
        let (config, seats, _tokens, delay, labels) =
            new_game::new_game(self.0, &request).map_err(errors::passed)?;
        // Every seat carries its player's name; each human seat is its player's: the player's
        // token is the seat's.
        let seats: Vec<Seat> = seats
            .into_iter()
            .zip(pair)
            .zip(players)
            .map(|((seat, n), player)| match seat.kind() {
                SeatKind::Human { .. } => {
                    let hash = entry.tokens()[n.index()];
                    Seat::new(player.name.clone(), SeatKind::Human { token: hash })
                }
                kind => Seat::new(player.name.clone(), kind.clone()),
            })
            .collect();
        let game = crate::game::Game::new(config).map_err(|e| errors::passed(errors::game(e)))?;
        match self.0.host.create(Some(id), game, seats, Some(delay), None, labels).await {
            Ok(_) | Err(HostError::GameExists(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
