//! Text notations of the field: plays (`8H WORD`, `H8 WORD`), exchanges and passes, and CGP
//! positions ([`cgp`]). Parsing never panics; malformed text is a typed error saying where.
//!
//! Play convention (as in GCG): a coordinate row-first (`8H`) means across, column-first (`H8`)
//! down; the coordinate names the first square of the word; `.` (or a letter in parentheses) is a
//! tile already on the board; a lower-case letter is a blank standing for it.

pub mod cgp;
pub mod gcg;

use crate::alphabet::{Alphabet, AlphabetError, EMPTY, Letter, Tile, tile, tile_letter};
use crate::board::Direction;
use crate::play::Play;
use crate::rack::Rack;
use crate::rules::MAX_SIZE;
use crate::text::clip;

/// A turn as notation describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    Play(Play),
    /// Tiles put back in the bag.
    Exchange(Rack),
    Pass,
}

/// Malformed move text. Positions are 0-based character offsets into the text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("empty move text")]
    Empty,
    #[error(
        "bad coordinate {text:?}: expected row-first (8H) for across or column-first (H8) for down, rows 1-{size}, columns A-{}",
        column_name(*size - 1)
    )]
    BadCoordinate { text: String, size: usize },
    #[error("missing tiles after the coordinate")]
    MissingTiles,
    #[error("character {ch:?} at position {at} is not a letter of the {alphabet} alphabet")]
    Foreign { ch: char, at: usize, alphabet: Alphabet },
    #[error("{text:?} at position {at} is not a tile of the {alphabet} alphabet")]
    ForeignTile { text: String, at: usize, alphabet: Alphabet },
    #[error("a blank at position {at} must be written as the lower-case letter it stands for")]
    BlankNotDesignated { at: usize },
    #[error("the play has {len} squares; the board has {size}")]
    TooLong { len: usize, size: usize },
    #[error("the play runs off the board")]
    OffBoard,
    #[error("unbalanced parenthesis at position {at}")]
    Parenthesis { at: usize },
    #[error("unexpected text at position {at}")]
    Trailing { at: usize },
}

/// The letter of column `col` (0-based): `A` to `U` on the largest board.
fn column_name(col: usize) -> char {
    (b'A' + col as u8) as char
}

/// Parse a coordinate on the largest board (21×21): `8H`/`8h` (across) or `H8` (down). Returns
/// `(dir, row, col)`, 0-based. A game's board may be smaller: [`parse_coordinate_on`].
pub fn parse_coordinate(text: &str) -> Result<(Direction, usize, usize), NotationError> {
    parse_coordinate_on(text, MAX_SIZE)
}

/// Parse a coordinate on a board of side `size` (rows 1 to `size`, columns A onwards).
pub fn parse_coordinate_on(text: &str, size: usize) -> Result<(Direction, usize, usize), NotationError> {
    let size = size.min(MAX_SIZE);
    let bad = || NotationError::BadCoordinate { text: clip(text), size };
    if !text.is_ascii() || text.len() < 2 || text.len() > 3 {
        return Err(bad());
    }
    let b = text.as_bytes();
    let col_of = |c: u8| -> Option<usize> {
        let c = c.to_ascii_uppercase();
        (b'A'..b'A' + size as u8).contains(&c).then(|| (c - b'A') as usize)
    };
    let row_of = |digits: &str| -> Option<usize> {
        let n: usize = digits.parse().ok()?;
        (1..=size).contains(&n).then(|| n - 1)
    };
    if b[0].is_ascii_digit() {
        let col = col_of(b[b.len() - 1]).ok_or_else(bad)?;
        let row = row_of(&text[..text.len() - 1]).ok_or_else(bad)?;
        Ok((Direction::Across, row, col))
    } else {
        let col = col_of(b[0]).ok_or_else(bad)?;
        let row = row_of(&text[1..]).ok_or_else(bad)?;
        Ok((Direction::Down, row, col))
    }
}

/// The coordinate of a play's first square in its direction's convention.
pub fn format_coordinate(dir: Direction, row: usize, col: usize) -> String {
    let mut out = String::with_capacity(3);
    push_coordinate(&mut out, dir, row, col);
    out
}

/// [`format_coordinate`] onto `out`, without the formatting machinery: plays are written on
/// every analysis answer.
fn push_coordinate(out: &mut String, dir: Direction, row: usize, col: usize) {
    let column = column_name(col);
    let number = row + 1; // at most MAX_SIZE: one or two digits
    let push_number = |out: &mut String| {
        if number >= 10 {
            out.push((b'0' + (number / 10) as u8) as char);
        }
        out.push((b'0' + (number % 10) as u8) as char);
    };
    match dir {
        Direction::Across => {
            push_number(out);
            out.push(column);
        }
        Direction::Down => {
            out.push(column);
            push_number(out);
        }
    }
}

/// Parse play tiles: letters (lower case = blank), `.` or `(LETTERS)` for tiles on the board,
/// at most a line of the largest board. `offset` is added to reported positions.
pub fn parse_tiles(text: &str, alphabet: Alphabet, offset: usize) -> Result<Vec<Tile>, NotationError> {
    tiles_on(text, alphabet, offset, MAX_SIZE)
}

/// [`parse_tiles`], at most `size` of them.
fn tiles_on(text: &str, alphabet: Alphabet, offset: usize, size: usize) -> Result<Vec<Tile>, NotationError> {
    let mut out = Vec::new();
    let mut in_paren = None;
    // `rest` is what is left to read; `at` counts characters, as positions are reported.
    let (mut rest, mut at) = (text, offset);
    while let Some(ch) = rest.chars().next() {
        let mut used = ch.len_utf8();
        match ch {
            '.' => out.push(EMPTY),
            '(' if in_paren.is_none() => in_paren = Some(at),
            ')' if in_paren.is_some() => in_paren = None,
            '(' | ')' => return Err(NotationError::Parenthesis { at }),
            '?' | '*' => return Err(NotationError::BlankNotDesignated { at }),
            _ => {
                let (letter, blank, n) = alphabet.next_tile(rest).map_err(|e| match e {
                    AlphabetError::Foreign { ch, .. } => NotationError::Foreign { ch, at, alphabet },
                    _ => NotationError::ForeignTile {
                        text: clip(&rest[..rest.find(']').map_or(rest.len(), |i| i + 1)]),
                        at,
                        alphabet,
                    },
                })?;
                used = n;
                if in_paren.is_some() {
                    out.push(EMPTY);
                } else {
                    out.push(tile(letter, blank));
                }
            }
        }
        at += rest[..used].chars().count();
        rest = &rest[used..];
        if out.len() > size {
            return Err(NotationError::TooLong { len: text.chars().count(), size });
        }
    }
    if let Some(at) = in_paren {
        return Err(NotationError::Parenthesis { at });
    }
    if out.is_empty() {
        return Err(NotationError::MissingTiles);
    }
    Ok(out)
}

/// The letters `alphabet` reads written tiles as, None when it cannot: a play's word (`.` and
/// `(…)` played through, lower case a blank) when `play`, else a rack's tiles (`?` a blank).
/// What a guess of a record's or a position's alphabet reads ([`crate::script::guess_alphabet`]).
pub fn tiles_read(alphabet: Alphabet, play: bool, text: &str) -> Option<Vec<Letter>> {
    if play {
        let tiles = parse_tiles(text, alphabet, 0).ok()?;
        Some(tiles.into_iter().filter(|&t| t != EMPTY).map(tile_letter).collect())
    } else {
        Some(alphabet.parse_rack(text).ok()?.into_iter().flatten().collect())
    }
}

/// Parse `8H WORD` / `H8 WORD` on the largest board: whether a play fits a game's board is
/// [`parse_play_on`]'s, or [`Play::normalized`]'s, question.
pub fn parse_play(text: &str, alphabet: Alphabet) -> Result<Play, NotationError> {
    parse_play_on(text, alphabet, MAX_SIZE)
}

/// Parse `8H WORD` / `H8 WORD` on a board of side `size`: a coordinate off it, or a word
/// running off it, is refused here.
pub fn parse_play_on(text: &str, alphabet: Alphabet, size: usize) -> Result<Play, NotationError> {
    let size = size.min(MAX_SIZE);
    let trimmed = text.trim_start();
    let lead = text.chars().count() - trimmed.chars().count();
    let mut parts = trimmed.split_whitespace();
    let coord = parts.next().ok_or(NotationError::Empty)?;
    let word = parts.next().ok_or(NotationError::MissingTiles)?;
    // `word` is a slice of `trimmed`: its byte offset there, without searching for it.
    let word_byte = word.as_ptr() as usize - trimmed.as_ptr() as usize;
    if parts.next().is_some() {
        let at = lead + word_byte + word.len();
        return Err(NotationError::Trailing { at });
    }
    let (dir, row, col) = parse_coordinate_on(coord, size)?;
    let word_at = lead + trimmed[..word_byte].chars().count();
    let tiles = tiles_on(word, alphabet, word_at, size)?;
    let (_, start) = dir.from_board(row, col);
    if start + tiles.len() > size {
        return Err(NotationError::OffBoard);
    }
    Play::new(dir, row, col, &tiles).map_err(|_| NotationError::OffBoard)
}

/// `8H WORD` text of a play (`.` for tiles played through, lower case for blanks).
pub fn format_play(play: &Play, alphabet: Alphabet) -> String {
    let mut out = String::with_capacity(4 + 2 * play.tiles().len());
    push_coordinate(&mut out, play.dir, play.row as usize, play.col as usize);
    out.push(' ');
    out.push_str(&alphabet.write_tiles(play.tiles().iter().copied()));
    out
}

/// Parse a move: a play, `-` (pass), `-LETTERS` (exchange; `?` for a blank), `pass`, or
/// `exchange LETTERS` / `exch LETTERS`. A play is read on the largest board.
pub fn parse_move(text: &str, alphabet: Alphabet) -> Result<Move, NotationError> {
    parse_move_on(text, alphabet, MAX_SIZE)
}

/// [`parse_move`] on a board of side `size` ([`parse_play_on`]).
pub fn parse_move_on(text: &str, alphabet: Alphabet, size: usize) -> Result<Move, NotationError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(NotationError::Empty);
    }
    let lower = t.to_lowercase();
    if t == "-" || lower == "pass" {
        return Ok(Move::Pass);
    }
    let lead = text.chars().count() - text.trim_start().chars().count();
    let exchange = if let Some(rest) = t.strip_prefix('-') {
        Some((rest, lead + 1))
    } else {
        let mut it = t.splitn(2, char::is_whitespace);
        let head = it.next().unwrap_or("").to_lowercase();
        let rest = it.next().unwrap_or("").trim();
        (head == "exchange" || head == "exch")
            .then(|| (rest, lead + t.chars().count() - rest.chars().count()))
    };
    if let Some((letters, at)) = exchange {
        if letters.is_empty() {
            return Err(NotationError::MissingTiles);
        }
        return Rack::parse(letters, alphabet).map(Move::Exchange).map_err(|e| match e {
            AlphabetError::Foreign { ch, .. } => {
                let i = letters.chars().position(|c| c == ch).unwrap_or(0);
                NotationError::Foreign { ch, at: at + i, alphabet }
            }
            AlphabetError::ForeignTile { text, .. } | AlphabetError::Bracket(text) => {
                NotationError::ForeignTile { text, at, alphabet }
            }
            AlphabetError::UnknownName(_) | AlphabetError::Invalid { .. } => NotationError::MissingTiles,
        });
    }
    parse_play_on(text, alphabet, size).map(Move::Play)
}

/// Text of a move, in the same convention `parse_move` reads.
pub fn format_move(m: &Move, alphabet: Alphabet) -> String {
    match m {
        Move::Play(p) => format_play(p, alphabet),
        Move::Exchange(r) => format!("-{}", r.to_string(alphabet)),
        Move::Pass => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates() {
        assert_eq!(parse_coordinate("8H"), Ok((Direction::Across, 7, 7)));
        assert_eq!(parse_coordinate("8h"), Ok((Direction::Across, 7, 7)));
        assert_eq!(parse_coordinate("H8"), Ok((Direction::Down, 7, 7)));
        assert_eq!(parse_coordinate("15O"), Ok((Direction::Across, 14, 14)));
        assert_eq!(parse_coordinate("a1"), Ok((Direction::Down, 0, 0)));
        for bad in ["", "8", "H", "16A", "0A", "8P", "P8", "88", "HH", "8Ж", "1234", "8HH"] {
            assert!(parse_coordinate_on(bad, 15).is_err(), "{bad}");
        }
        assert_eq!(format_coordinate(Direction::Down, 14, 0), "A15");
        // The largest board runs to 21 and U.
        assert_eq!(parse_coordinate("21U"), Ok((Direction::Across, 20, 20)));
        assert_eq!(parse_coordinate("P16"), Ok((Direction::Down, 15, 15)));
        assert_eq!(format_coordinate(Direction::Across, 20, 20), "21U");
        for bad in ["22A", "8V", "V8"] {
            assert!(parse_coordinate(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_coordinate_on("8P", 15).unwrap_err().to_string(),
            "bad coordinate \"8P\": expected row-first (8H) for across or column-first (H8) for down, rows 1-15, columns A-O"
        );
    }

    #[test]
    fn plays_round_trip() {
        for (text, a) in [
            ("8H WORD", Alphabet::english()),
            ("8D W.NDY", Alphabet::english()),
            ("H8 qUIz", Alphabet::english()),
            ("A1 ЁЖ", Alphabet::russian()),
            ("15A ёлКА", Alphabet::russian()),
            ("O1 ЖЕЛ.Е", Alphabet::erudit()),
        ] {
            let p = parse_play(text, a).unwrap();
            assert_eq!(format_play(&p, a), text);
        }
        let p = parse_play("8D W(I)NDY", Alphabet::english()).unwrap();
        assert_eq!(format_play(&p, Alphabet::english()), "8D W.NDY");
    }

    #[test]
    fn malformed_plays() {
        let en = Alphabet::english();
        assert_eq!(parse_play("", en), Err(NotationError::Empty));
        assert_eq!(parse_play("8H", en), Err(NotationError::MissingTiles));
        assert_eq!(parse_play("8H W?RD", en), Err(NotationError::BlankNotDesignated { at: 4 }));
        assert_eq!(parse_play("8H WÖRD", en), Err(NotationError::Foreign { ch: 'Ö', at: 4, alphabet: en }));
        assert_eq!(parse_play_on("8K WORDSS", en, 15), Err(NotationError::OffBoard));
        assert!(parse_play("8K WORDSS", en).is_ok());
        assert_eq!(parse_play("8Q WORDSS", en), Err(NotationError::OffBoard));
        assert_eq!(parse_play("8H WORD X", en), Err(NotationError::Trailing { at: 7 }));
        assert_eq!(parse_play("8H W(ORD", en), Err(NotationError::Parenthesis { at: 4 }));
        assert!(matches!(
            parse_play_on("8A ABCDEFGHIJKLMNOP", en, 15),
            Err(NotationError::TooLong { len: 16, size: 15 })
        ));
        assert!(matches!(parse_play("Z9 WORD", en), Err(NotationError::BadCoordinate { .. })));
    }

    #[test]
    fn moves() {
        let en = Alphabet::english();
        assert_eq!(parse_move("-", en), Ok(Move::Pass));
        assert_eq!(parse_move(" pass ", en), Ok(Move::Pass));
        let ex = Move::Exchange(Rack::parse("QO?", en).unwrap());
        assert_eq!(parse_move("-QO?", en), Ok(ex.clone()));
        assert_eq!(parse_move("exchange QO?", en), Ok(ex.clone()));
        assert_eq!(format_move(&ex, en), "-OQ?");
        assert_eq!(parse_move("-Q1", en), Err(NotationError::Foreign { ch: '1', at: 2, alphabet: en }));
        assert!(matches!(parse_move("8H AB", en), Ok(Move::Play(_))));
    }
}
