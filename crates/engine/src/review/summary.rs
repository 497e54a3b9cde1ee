//! A review's figures per seat: the turns judged counted by class and grade, the mean loss and
//! accuracy, the mistake index, bingos, and phonies played and let go.

use super::{Class, Grade, TurnReview, action_of, phony_of, turns};
use crate::game::{Action, Game};

/// A seat's figures over the turns reviewed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatSummary {
    pub seat: usize,
    pub turns: u32,
    pub mean_lost: f64,
    /// `100 · e^(-mean loss in points / 10)`.
    pub accuracy: f64,
    /// Turns per class, in [`Class::ALL`] order.
    pub classes: [u32; 5],
    /// Turns per grade, in [`Grade::ALL`] order.
    pub grades: [u32; 4],
    /// The turns' grades weighed ([`Grade::weight`]) and added up.
    pub mistake_index: f64,
    pub bingos: u32,
    pub bingos_missed: u32,
    /// Phonies the seat played, and phonies of another seat's it let stand unchallenged.
    pub phonies: u32,
    pub phonies_let_go: u32,
}

/// Each seat's count of phonies another seat played that it let stand (none challenged them):
/// every turn of the game, judged or not, but a last play of a game not over (it may still be
/// challenged).
pub fn phonies_let_go(game: &Game) -> Vec<u32> {
    let seats = game.config().seats;
    let lexicon = &game.config().lexicon;
    let mut let_go = vec![0; seats];
    let taken = turns(game);
    let last = taken.last().map(|&(turn, _)| turn);
    for (turn, mover) in taken {
        if Some(turn) == last && !game.is_over() {
            continue;
        }
        let Some((Action::Play(_), events)) = action_of(game, turn) else { continue };
        if let (true, false) = phony_of(lexicon, &events) {
            for (seat, n) in let_go.iter_mut().enumerate() {
                *n += u32::from(seat != mover);
            }
        }
    }
    let_go
}

/// Each seat's figures over `reviews` of `game` (only the turns judged count; the phonies let go
/// are the whole game's).
pub fn summarize(game: &Game, reviews: &[TurnReview]) -> Vec<SeatSummary> {
    let seats = game.config().seats;
    let let_go = phonies_let_go(game);
    (0..seats)
        .map(|seat| {
            let mine: Vec<&TurnReview> = reviews.iter().filter(|r| r.seat == seat).collect();
            let judged: Vec<&&TurnReview> = mine.iter().filter(|r| r.analysable).collect();
            let mut s = SeatSummary { seat, turns: judged.len() as u32, ..Default::default() };
            for r in &judged {
                s.classes[Class::ALL.iter().position(|&c| c == r.class).unwrap_or(0)] += 1;
                s.grades[Grade::ALL.iter().position(|&g| g == r.grade).unwrap_or(0)] += 1;
                s.mistake_index += r.grade.weight();
                s.bingos_missed += u32::from(r.bingo_missed);
            }
            s.phonies_let_go = let_go[seat];
            s.bingos = mine.iter().filter(|r| r.bingo).count() as u32;
            s.phonies = mine.iter().filter(|r| r.phony).count() as u32;
            s.mean_lost = if judged.is_empty() {
                0.0
            } else {
                judged.iter().map(|r| r.lost).sum::<f64>() / judged.len() as f64
            };
            // Equity (more than two seats) counts a point as a point of win probability's percent.
            let in_points = if seats == 2 { 100.0 * s.mean_lost } else { s.mean_lost };
            s.accuracy = 100.0 * (-in_points / 10.0).exp();
            s
        })
        .collect()
}
