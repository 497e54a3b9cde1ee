//! A client's play and exchange as the host receives them: still text, because a play given by
//! its tiles is read against the board as it is when the turn is taken (and only then can its
//! problems be named). The services fill these from their messages; the checks and their
//! wording are here, once, for turns and for analysis alike.

use dawgref_engine::alphabet::{AlphabetError, tile};
use dawgref_engine::board::Board;
use dawgref_engine::notation::{NotationError, parse_play_on};
use dawgref_engine::play::{Placement, Play, Problem};
use dawgref_engine::rack::Rack;
use dawgref_engine::rules::Ruleset;

/// A play as a client wrote it: its notation (`8D WINDY`), or else its tiles.
#[derive(Clone, Debug, Default)]
pub struct PlayInput {
    pub notation: String,
    pub tiles: Vec<TileInput>,
}

/// One tile of a play given by its tiles.
#[derive(Clone, Debug, Default)]
pub struct TileInput {
    pub letter: String,
    pub row: u32,
    pub col: u32,
    pub blank: bool,
}

/// A borrowed [`TileInput`]: what [`play`] reads.
#[derive(Clone, Copy, Debug)]
pub struct TileRef<'a> {
    pub letter: &'a str,
    pub row: u32,
    pub col: u32,
    pub blank: bool,
}

impl TileInput {
    pub fn as_ref(&self) -> TileRef<'_> {
        TileRef { letter: &self.letter, row: self.row, col: self.col, blank: self.blank }
    }
}

/// What is wrong with a client's play or exchange, naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// A malformed field.
    Field {
        field: String,
        description: String,
    },
    /// A play that is not one, with every reason found.
    Problems {
        field: &'static str,
        problems: Vec<Problem>,
    },
    Notation {
        field: &'static str,
        error: NotationError,
    },
    Alphabet {
        field: String,
        error: AlphabetError,
    },
}

impl InputError {
    fn field(field: impl Into<String>, description: impl Into<String>) -> InputError {
        InputError::Field { field: field.into(), description: description.into() }
    }

    fn problems(problems: Vec<Problem>) -> InputError {
        InputError::Problems { field: "play", problems }
    }
}

impl PlayInput {
    /// The play on `board`.
    pub fn to_play(&self, board: &Board) -> Result<Play, InputError> {
        play(board, &self.notation, self.tiles.iter().map(TileInput::as_ref))
    }
}

/// A play from a request: its notation when given, else its tiles, read against `board`.
pub fn play<'a>(
    board: &Board,
    notation: &str,
    tiles: impl ExactSizeIterator<Item = TileRef<'a>>,
) -> Result<Play, InputError> {
    let alphabet = board.rules().alphabet;
    if !notation.trim().is_empty() {
        return parse_play_on(notation, alphabet, board.size())
            .map_err(|error| InputError::Notation { field: "play.notation", error });
    }
    if tiles.len() == 0 {
        return Err(InputError::problems(vec![Problem::NoTiles]));
    }
    let size = board.size();
    if tiles.len() > size {
        return Err(InputError::field(
            "play.tiles",
            format!("{} tiles: a play places at most {size}", tiles.len()),
        ));
    }
    let mut placements = Vec::with_capacity(tiles.len());
    for (i, t) in tiles.enumerate() {
        if t.letter == "?" || t.letter == "*" {
            return Err(InputError::problems(vec![Problem::BlankNotDesignated]));
        }
        // One tile: its label ("A", "CH", "L·L", in either case), an alias, or "[CH]".
        let one = alphabet
            .parse_tiles(t.letter)
            .map_err(|error| InputError::Alphabet { field: format!("play.tiles[{i}].letter"), error })?;
        let [(l, _)] = one[..] else {
            return Err(InputError::field(format!("play.tiles[{i}].letter"), "one tile expected"));
        };
        if !board.rules().on_board(t.row as usize, t.col as usize) {
            return Err(InputError::problems(vec![Problem::OffBoard {
                row: t.row as usize,
                col: t.col as usize,
            }]));
        }
        placements.push(Placement { row: t.row as usize, col: t.col as usize, tile: tile(l, t.blank) });
    }
    Play::from_placements(board, &placements).map_err(InputError::problems)
}

/// The tiles of an exchange, at most a rack of them, in the ruleset's letters.
pub fn exchange(tiles: &str, rules: &Ruleset) -> Result<Rack, InputError> {
    // Counted before reading, so that no long text is read: a tile is written in at most
    // `MAX_TILE_TEXT` characters (`[L·L]`), so more than that many a rack's worth is too long.
    let chars = tiles.chars().count();
    if chars > rules.rack_size * dawgref_engine::alphabet::MAX_TILE_TEXT {
        return Err(InputError::field(
            "exchange",
            format!("{chars} tiles: a rack holds {}", rules.rack_size),
        ));
    }
    let rack = Rack::parse(tiles, rules.alphabet)
        .map_err(|error| InputError::Alphabet { field: "exchange".into(), error })?;
    if rack.len() > rules.rack_size {
        return Err(InputError::field(
            "exchange",
            format!("{} tiles: a rack holds {}", rack.len(), rules.rack_size),
        ));
    }
    Ok(rack)
}
