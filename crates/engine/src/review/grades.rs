//! How a judged turn is named: its class by the win probability it lost (or, in games of more
//! than two seats, the equity), and its mistake grade by MAGPIE's bounds (an endgame's by the
//! spread lost). Pure: the rules of judgement apart from the searches that find the loss.

use super::Judged;

/// Win probability lost below which a play is `good` (and above 0 not `best`).
pub const GOOD: f64 = 0.02;
/// … an `inaccuracy`.
pub const INACCURACY: f64 = 0.05;
/// … a `mistake`; from this on a `blunder`.
pub const MISTAKE: f64 = 0.10;
/// Equity lost (points) that the same classes stand for in games of more than two seats.
pub const EQUITY_CLASSES: [f64; 3] = [3.0, 8.0, 15.0];
/// Win probability lost (percentage points) from which a turn is a small, a medium and a large
/// mistake.
pub const GRADE_WIN_POINTS: [f64; 3] = [0.5, 3.0, 7.0];
/// Spread lost in an endgame (points) from which a turn is a small, a medium and a large mistake.
pub const GRADE_SPREAD: [f64; 3] = [1.0, 7.0, 15.0];

/// A mistake's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    None,
    Small,
    Medium,
    Large,
}

impl Grade {
    pub const ALL: [Grade; 4] = [Grade::None, Grade::Small, Grade::Medium, Grade::Large];

    /// The grade of a turn that lost `points` percentage points of win probability (rounded to
    /// 1e-9 first: 100 · (0.57 − 0.50) is 6.999999999999995 in floating point, and 7 points lost
    /// is large).
    pub fn of_win_lost(points: f64) -> Grade {
        Grade::by(GRADE_WIN_POINTS, (points * 1e9).round() / 1e9)
    }

    /// The grade of an endgame turn: its play made against the best, each judged by the spread
    /// it leads to ([`Judged::equity`]) and whether it wins ([`Judged::win`]).
    pub fn of_endgame(best: &Judged, played: &Judged) -> Grade {
        if best.win == 1.0 && played.win < 1.0 {
            return Grade::Large;
        }
        Grade::by(GRADE_SPREAD, best.equity - played.equity)
    }

    /// None below the first bound, then small, medium, and large from the last.
    fn by(bounds: [f64; 3], lost: f64) -> Grade {
        match bounds.iter().position(|&b| lost < b) {
            Some(0) => Grade::None,
            Some(1) => Grade::Small,
            Some(_) => Grade::Medium,
            None => Grade::Large,
        }
    }

    /// What a turn of this grade adds to its seat's mistake index.
    pub const fn weight(self) -> f64 {
        match self {
            Grade::None => 0.0,
            Grade::Small => 0.2,
            Grade::Medium => 0.5,
            Grade::Large => 1.0,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Grade::None => "none",
            Grade::Small => "small",
            Grade::Medium => "medium",
            Grade::Large => "large",
        }
    }
}

/// How good a turn's play was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Best,
    Good,
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Class {
    pub const ALL: [Class; 5] = [Class::Best, Class::Good, Class::Inaccuracy, Class::Mistake, Class::Blunder];

    /// The class of a loss of win probability.
    pub fn of(lost: f64) -> Class {
        Class::by([GOOD, INACCURACY, MISTAKE], lost)
    }

    /// The class of a loss of equity (games of more than two seats).
    pub(super) fn of_equity(lost: f64) -> Class {
        Class::by(EQUITY_CLASSES, lost)
    }

    /// Best for no loss, then good, inaccuracy and mistake below each bound, else blunder.
    fn by(bounds: [f64; 3], lost: f64) -> Class {
        if lost <= 0.0 {
            return Class::Best;
        }
        match bounds.iter().position(|&b| lost < b) {
            Some(0) => Class::Good,
            Some(1) => Class::Inaccuracy,
            Some(_) => Class::Mistake,
            None => Class::Blunder,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Class::Best => "best",
            Class::Good => "good",
            Class::Inaccuracy => "inaccuracy",
            Class::Mistake => "mistake",
            Class::Blunder => "blunder",
        }
    }
}
