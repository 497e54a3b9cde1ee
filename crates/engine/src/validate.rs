//! ValidatePlay: everything that makes a play legal — geometry, connection, the rack, the
//! lexicon, and Эрудит's no-repeated-words option — reported as a complete list of typed
//! [`Problem`]s. A legal play returns its [`Evaluation`].

use crate::alphabet::{EMPTY, Letter, tile_letter};
use crate::board::Board;
use crate::lexicon::{Dawg, Lexicon};
use crate::play::{Play, Problem};
use crate::rack::Rack;
use crate::rules::MAX_SIZE;
use crate::score::{Evaluation, evaluate_normalized};

/// What to check beyond geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checks {
    /// Check the words against the lexicon (off for a phony that a challenge rule lets stand).
    pub words: bool,
}

impl Default for Checks {
    fn default() -> Self {
        Checks { words: true }
    }
}

/// Validate and score a play for a player holding `rack`.
pub fn validate_play(
    board: &Board,
    rack: &Rack,
    play: &Play,
    lexicon: &Lexicon,
) -> Result<Evaluation, Vec<Problem>> {
    validate_with(board, rack, play, lexicon, Checks::default())
}

/// [`validate_play`] with a choice of checks.
///
/// Every check runs whose inputs exist: the rack is judged whatever the geometry (against the
/// tiles that land on empty squares), and the words whenever the play lies on the board without
/// covering another letter, connected or not. Only geometry problems stop the word check, which
/// needs the play's squares.
pub fn validate_with(
    board: &Board,
    rack: &Rack,
    play: &Play,
    lexicon: &Lexicon,
    checks: Checks,
) -> Result<Evaluation, Vec<Problem>> {
    let (normalized, mut problems) = match play.normalized(board) {
        Ok(p) => (Some(p), p.check_connection(board)),
        Err(ps) => (None, ps),
    };
    if let Some(missing) = missing_from_rack(board, rack, &normalized.unwrap_or(*play)) {
        problems.push(missing);
    }
    let Some(play) = normalized else { return Err(problems) };
    let eval = evaluate_normalized(board, &play);
    if checks.words {
        problems.extend(word_problems(board, &eval, lexicon.dawg()));
    }
    if problems.is_empty() { Ok(eval) } else { Err(problems) }
}

/// The tiles the rack lacks for a play, as a problem naming them.
pub fn missing_from_rack(board: &Board, rack: &Rack, play: &Play) -> Option<Problem> {
    let alphabet = board.rules().alphabet;
    let mut left = *rack;
    let mut missing = String::new();
    // Only tiles that land on empty squares come from the rack (an unnormalized play may run
    // off the board or over letters already there).
    // Tiles that are no letter of the alphabet are the geometry check's BadTile.
    let new_tiles = play.placements().filter(|p| {
        board.rules().on_board(p.row, p.col)
            && board.get(p.row, p.col) == EMPTY
            && (tile_letter(p.tile) as usize) < alphabet.len()
    });
    for p in new_tiles {
        if !left.take_tile(p.tile) {
            missing.push_str(alphabet.tile_text(p.tile));
        }
    }
    if missing.is_empty() { None } else { Some(Problem::NotOnRack { missing }) }
}

/// Words of an evaluation that the lexicon's `dawg` lacks, and (under the option) words already
/// on the board.
pub fn word_problems(board: &Board, eval: &Evaluation, dawg: &Dawg) -> Vec<Problem> {
    let alphabet = board.rules().alphabet;
    let letters = |tiles: &[u8]| -> Vec<Letter> { tiles.iter().map(|&t| tile_letter(t)).collect() };
    let mut problems = Vec::new();
    // A word is at most a line long: its letters fit on the stack (this runs on every play).
    let mut word = [0 as Letter; MAX_SIZE];
    let mut invalid: Vec<String> = Vec::new();
    for w in &eval.words {
        let n = w.tiles.len().min(MAX_SIZE);
        for (l, &t) in word.iter_mut().zip(&w.tiles) {
            *l = tile_letter(t);
        }
        if !dawg.contains(&word[..n]) {
            invalid.push(alphabet.word_string(&word[..n]));
        }
    }
    if !invalid.is_empty() {
        problems.push(Problem::WordsNotInLexicon { words: invalid });
    }
    if board.rules().options.no_repeated_words {
        let existing = board.words_on_board();
        let mut repeated: Vec<String> = Vec::new();
        for w in &eval.words {
            let l = letters(&w.tiles);
            let s = alphabet.word_string(&l);
            if existing.contains(&l) && !repeated.contains(&s) {
                repeated.push(s);
            }
        }
        if !repeated.is_empty() {
            problems.push(Problem::RepeatedWords { words: repeated });
        }
    }
    problems
}
