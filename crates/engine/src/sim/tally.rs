//! The simulation's statistics: each candidate's running [`Figures`], every pair's paired
//! [`Difference`] on the draws both met, the [`Tally`] that folds iterations in, and the
//! [`Race`]'s rule for ruling a candidate out.

/// The race's rule: when a candidate may be ruled out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Race {
    /// Iterations every candidate gets before any is ruled out: fewer draws estimate the error
    /// of a difference too poorly to trust its bound.
    pub min_iterations: u32,
    /// The chance of ruling out a candidate that is in fact ahead of the leader.
    pub error: f64,
    /// `error` is for the whole race, shared over the comparisons (Bonferroni); false: for each
    /// comparison alone (the champion's rule before 2026-11-25, kept for the lab's baseline).
    pub shared: bool,
    /// A race won with time to spare (and no reserve left to enter it) goes on until the budget
    /// is spent: at an error ten times smaller, down to [`MIN_ERROR`], with the candidates it
    /// ruled out back in, so the time left goes to the ones closest to the leader. False: it
    /// stops there.
    pub until_spent: bool,
}

/// The smallest error a race that goes on ([`Race::until_spent`]) tightens to: a candidate still
/// ruled out at it is behind by some five standard errors or more, and the race stops.
pub const MIN_ERROR: f64 = 1e-6;

impl Default for Race {
    fn default() -> Race {
        Race { min_iterations: 48, error: 0.01, shared: true, until_spent: false }
    }
}

impl Race {
    /// How many standard errors ahead the leader must be to rule a candidate out when
    /// `rivals` candidates race it: the two-sided normal quantile at the error, shared over
    /// them (2.58 for one rival, 3.29 for ten) or not.
    pub fn z(&self, rivals: usize) -> f64 {
        let comparisons = if self.shared { rivals.max(1) } else { 1 };
        normal_quantile(1.0 - self.error.clamp(1e-12, 0.5) / (2.0 * comparisons as f64))
    }
}

/// The standard normal quantile (Acklam's rational approximation, relative error below
/// 1.2e-9), for 0 < p < 1.
fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
    let p = p.clamp(1e-300, 1.0 - 1e-16);
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// Running figures of one candidate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    pub iterations: u32,
    win_sum: f64,
    win_sq: f64,
    spread_sum: f64,
    spread_sq: f64,
    /// Ruled out: its upper bound fell below the leader's lower bound (or, in reserve, not
    /// yet in the race).
    pub out: bool,
    /// In reserve: not in the race yet.
    pub waiting: bool,
}

impl Figures {
    fn add(&mut self, (win, spread): (f64, f64)) {
        self.iterations += 1;
        self.win_sum += win;
        self.win_sq += win * win;
        self.spread_sum += spread;
        self.spread_sq += spread * spread;
    }

    /// Mean win probability, 0 to 1.
    pub fn win(&self) -> f64 {
        self.win_sum / self.iterations.max(1) as f64
    }

    /// Mean spread the line adds, leaves included.
    pub fn spread(&self) -> f64 {
        self.spread_sum / self.iterations.max(1) as f64
    }

    /// Standard error of the mean win probability.
    pub fn win_error(&self) -> f64 {
        standard_error(self.win_sum, self.win_sq, self.iterations)
    }

    /// Standard error of the mean spread.
    pub fn spread_error(&self) -> f64 {
        standard_error(self.spread_sum, self.spread_sq, self.iterations)
    }

    /// The ranking key: win probability, then spread (a point of spread is worth less than any
    /// difference in win probability that matters).
    fn key(&self) -> f64 {
        self.win() + self.spread() * 1e-6
    }
}

fn standard_error(sum: f64, sq: f64, n: u32) -> f64 {
    if n < 2 {
        return f64::INFINITY;
    }
    let n = n as f64;
    let var = ((sq - sum * sum / n) / (n - 1.0)).max(0.0);
    (var / n).sqrt()
}

/// Every candidate's figures so far, and the figures of every pair's difference.
#[derive(Clone, Debug)]
pub struct Tally {
    pub figures: Vec<Figures>,
    /// `pairs[a * n + b]` for `a < b`: candidate `a`'s value less `b`'s, over the iterations
    /// both were in. Every candidate meets the same draws, so the difference is far less noisy
    /// than either value: comparing candidates by it needs fewer iterations than comparing
    /// their means, each with its own error.
    pairs: Vec<Figures>,
    /// Iterations folded in.
    pub iterations: u32,
}

/// How far candidate `a` is ahead of `b` on the draws both met: the mean difference of win
/// probability and of spread, each with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub win: f64,
    pub win_error: f64,
    pub spread: f64,
    pub spread_error: f64,
}

impl Difference {
    /// Whether `a` is ahead by more than `z` standard errors: by win probability, or by spread
    /// when the win probabilities are the same on every draw (every line won, or lost, by
    /// both).
    pub(super) fn clearly_ahead(&self, z: f64) -> bool {
        if self.win != 0.0 || self.win_error != 0.0 {
            self.win > z * self.win_error
        } else {
            self.spread > z * self.spread_error
        }
    }
}

impl Tally {
    pub fn new(candidates: usize) -> Tally {
        Tally::racing(candidates, candidates)
    }

    /// A tally of `candidates` of which the first `racing` race from the start and the rest
    /// wait in reserve.
    pub fn racing(candidates: usize, racing: usize) -> Tally {
        let mut figures = vec![Figures::default(); candidates];
        for f in figures.iter_mut().skip(racing.max(1)) {
            f.out = true;
            f.waiting = true;
        }
        Tally { figures, pairs: vec![Figures::default(); candidates * candidates], iterations: 0 }
    }

    /// The next `count` candidates in reserve enter the race; how many did.
    pub fn enter(&mut self, count: usize) -> usize {
        let mut entered = 0;
        for f in self.figures.iter_mut().filter(|f| f.waiting).take(count) {
            f.waiting = false;
            f.out = false;
            entered += 1;
        }
        entered
    }

    /// Fold in one iteration's values (in iteration order, for determinism); candidates
    /// already ruled out are not counted further.
    pub fn add(&mut self, values: &[(f64, f64)]) {
        let n = self.figures.len();
        for a in 0..n.min(values.len()) {
            if self.figures[a].out {
                continue;
            }
            for b in a + 1..n.min(values.len()) {
                if !self.figures[b].out {
                    let (va, vb) = (values[a], values[b]);
                    self.pairs[a * n + b].add((va.0 - vb.0, va.1 - vb.1));
                }
            }
        }
        for (f, v) in self.figures.iter_mut().zip(values) {
            if !f.out {
                f.add(*v);
            }
        }
        self.iterations += 1;
    }

    /// Candidate `a` against candidate `b` on the draws both met.
    pub fn difference(&self, a: usize, b: usize) -> Difference {
        let n = self.figures.len();
        let (p, sign) = if a < b { (&self.pairs[a * n + b], 1.0) } else { (&self.pairs[b * n + a], -1.0) };
        Difference {
            win: sign * p.win(),
            win_error: p.win_error(),
            spread: sign * p.spread(),
            spread_error: p.spread_error(),
        }
    }

    /// The best candidate so far (the first of equals), among those that have raced.
    pub fn leader(&self) -> usize {
        let mut best = 0;
        for (i, f) in self.figures.iter().enumerate() {
            if !f.waiting && f.key() > self.figures[best].key() {
                best = i;
            }
        }
        best
    }

    /// Rule out every candidate the leader is ahead of by the race's threshold for the
    /// candidates still in it ([`Race::z`]), on the draws both met; true when only the leader
    /// is left.
    pub fn prune(&mut self, race: &Race) -> bool {
        let leader = self.leader();
        let z = race.z(self.live().saturating_sub(1));
        let n = self.figures.len();
        for i in 0..n {
            // Each pair is judged on at least the race's minimum of draws both met (a candidate
            // from the reserve has met fewer than the others).
            let met = self.pairs[leader.min(i) * n + leader.max(i)].iterations;
            if i != leader
                && !self.figures[i].out
                && met >= race.min_iterations
                && self.difference(leader, i).clearly_ahead(z)
            {
                self.figures[i].out = true;
            }
        }
        self.figures.iter().filter(|f| !f.out).count() <= 1
    }

    /// Every candidate ruled out comes back into the race (its figures kept: it goes on from the
    /// draws it met).
    pub fn readmit(&mut self) {
        for f in self.figures.iter_mut().filter(|f| !f.waiting) {
            f.out = false;
        }
    }

    /// Candidates still in the race.
    pub fn live(&self) -> usize {
        self.figures.iter().filter(|f| !f.out).count()
    }
}
