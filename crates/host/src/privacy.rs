//! The one privacy policy. A [`Viewer`] is who asks: a seat proven by its token, or a watcher
//! (no token); the services prove which (`server::auth`). Everything a live game shows anyone
//! is decided here: whose racks and exchanged tiles a view or an event carries (the services'
//! `views` asks [`Viewer::sees_rack_of`]), GCG exports, the rack an analysis of a live game
//! may use, and which games may be reviewed turn by turn ([`reviewable`]). Nothing else decides
//! what a viewer may see.
//!
//! The rules: a seat sees its own rack and its own exchanged tiles, nobody else's; end-of-game
//! racks are counted in front of everyone, so they are public; a finished game's record shows
//! every rack. A challenge's verdict on each word is the director's to see, everyone's once the
//! game is over, and the players' during it only when the game reveals invalid words.

use super::state::Seat;
use dawgref_engine::game::Game;
use dawgref_engine::game::record::write_gcg_for;
use dawgref_engine::rack::Rack;

/// Who is looking at a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// The holder of this seat's token.
    Seat(usize),
    /// Anyone else who knows the game's id: no racks.
    Watcher,
    /// The holder of the server's director token: no racks while the game is on (a director
    /// judges, and does not coach), every challenge's word verdicts.
    Director,
    /// A broadcast's spectator while the broadcast reveals racks: every seat's rack and
    /// exchanged tiles. Given only to what a broadcast shows through its delay (the broadcasts
    /// service's feed), never to a request about a game.
    Revealed,
}

impl Viewer {
    /// The seat, for an action that needs one.
    pub fn seat(self) -> Option<usize> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Watcher | Viewer::Director | Viewer::Revealed => None,
        }
    }

    /// Whether a challenge's word-by-word verdicts are shown: to the director; to everyone once
    /// the game is over; during the game as the game's reveal option says.
    pub fn sees_verdicts(self, game: &Game) -> bool {
        self == Viewer::Director || game.is_over() || game.config().reveal_invalid_words
    }

    /// Whether `seat`'s rack and exchanged tiles are shown in a live view or event.
    pub fn sees_rack_of(self, seat: usize) -> bool {
        self == Viewer::Seat(seat) || self == Viewer::Revealed
    }

    /// Whether a broadcast's delay holds the game back from this viewer: from anyone who is
    /// neither a player of the game nor its director.
    pub fn delayed(self) -> bool {
        matches!(self, Viewer::Watcher | Viewer::Revealed)
    }

    /// Whether `seat`'s racks are written into the game's record: once the game is over, all.
    fn sees_record_rack_of(self, seat: usize, over: bool) -> bool {
        over || self.sees_rack_of(seat)
    }

    /// The rack an analysis of a live game may use: the viewer's own, never another seat's.
    pub fn own_rack(self, game: &Game) -> Option<Rack> {
        self.seat().and_then(|s| game.rack(s).copied())
    }
}

/// Whether a game may be reviewed turn by turn (AnalyzeGame): only once it is over, for
/// anyone. A review judges each turn with the mover's rack as it was, so a review of a game in
/// play would show its racks, and coach its players; the director is no exception.
pub fn reviewable(game: &Game) -> Result<(), &'static str> {
    if game.is_over() {
        Ok(())
    } else {
        Err("the game is in play: a review shows each mover's rack, so it waits until the game is over")
    }
}

/// The game's record as GCG: while it is on, only the viewer's own racks (other lines carry no
/// rack, other exchanges only a count); once over, every rack.
pub fn gcg(game: &Game, seats: &[Seat], viewer: Viewer) -> String {
    let names: Vec<String> = seats.iter().map(|s| s.name().to_string()).collect();
    let over = game.is_over();
    write_gcg_for(game, &names, &|seat| viewer.sees_record_rack_of(seat, over), viewer.sees_verdicts(game))
}
