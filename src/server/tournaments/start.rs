//! StartRound's games, as the events layer's round asks for them (`Events::start_round`): each
//! made from the tournament's game settings by the one constructor of every new game
//! (`new_game::from_settings`, `build`), every seat named for its player and each human seat
//! bound to its player's token.

use super::super::new_game;
use crate::host::{HostError, Seat, SeatKind, TournamentLink};
use dawgref_events::{DivisionId, EventsError, Record, RoundGames, game_labels};
use dawgref_tournament::{PlayerId, RoundId};

/// A round's games made on this server's host.
pub(super) struct Games<'a>(pub(super) &'a super::AppState);

impl RoundGames for Games<'_> {
    /// The game of `pair`, made (or found made by an earlier call: its id is drawn from what it
    /// is) by the one constructor of every new game, from the tournament's settings: every seat
    /// named for its player, each human seat bound to its player's token hash.
    async fn make(
        &self,
        record: &Record,
        d: DivisionId,
        round: RoundId,
        pair: [PlayerId; 2],
        id: uuid::Uuid,
    ) -> Result<(), EventsError> {
        let entry = record.entry(d);
        let seats: Vec<Seat> = pair
            .into_iter()
            .map(|p| {
                let player = &entry.division().players()[p.index()];
                let kind = match super::view::level(player) {
                    Some(level) => SeatKind::Bot(level),
                    None => SeatKind::Human { token: entry.tokens()[p.index()] },
                };
                Seat::new(player.name.clone(), kind)
            })
            .collect();
        let labels = game_labels(record.slug(), entry.division().name(), round.number()).into();
        let seed = u64::from_le_bytes(id.as_bytes()[..8].try_into().unwrap_or_default()) ^ record.seed();
        let spec = new_game::from_settings(self.0, record.game(), seats, seed)?;
        let (config, seats, delay) = new_game::build(spec)?;
        let game = crate::game::Game::new(config).map_err(HostError::Game)?;
        let link = TournamentLink {
            slug: record.slug().to_string(),
            division: entry.division().name().to_string(),
            round: round.number(),
        };
        match self.0.host.create(Some(id), game, seats, Some(delay), None, labels, Some(link)).await {
            Ok(_) | Err(HostError::GameExists(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}
