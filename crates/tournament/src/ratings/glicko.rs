//! Glicko-2 ratings of games played on the server, one game at a time as each ends, as Woogles
//! rates its games: Glickman's Glicko-2 ("Example of the Glicko-2 system", 2012, steps 1–8),
//! with a game's score drawn from its spread rather than only its winner, a deviation that grows
//! with the time since the player's last game (a rating period of four days), and the bounds
//! Woogles holds deviation and volatility to ([`WOOGLES`]). Pure: a rating is a function of the
//! two players' ratings before, the spread and the time since.

/// A player's rating: the rating, its deviation (how uncertain it is) and volatility (how
/// erratic the player's results have been), on the Glicko scale (1500 a new player).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glicko {
    pub rating: f64,
    pub deviation: f64,
    pub volatility: f64,
}

/// The constants of a rating pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    /// A new player's rating.
    pub start: Glicko,
    /// How far the volatility may move in one game (Glickman's τ).
    pub tau: f64,
    /// The deviation's bounds.
    pub min_deviation: f64,
    pub max_deviation: f64,
    /// The volatility's ceiling.
    pub max_volatility: f64,
    /// A rating period: a deviation grows by a whole period's volatility over this long idle.
    pub period_seconds: f64,
    /// The spread a game's score is scaled by, and the score a win is worth beyond it.
    pub spread_scaling: f64,
    pub win_boost: f64,
}

/// Woogles' constants (liwords `pkg/glicko`): start 1500 ± 350 at volatility 0.06, τ 0.5, the
/// deviation within 90..=350, the volatility at most 0.1, a period of four days, a spread
/// scaled by 125 and a win worth 0.333 beyond its spread.
pub const WOOGLES: Parameters = Parameters {
    start: Glicko { rating: 1500.0, deviation: 350.0, volatility: 0.06 },
    tau: 0.5,
    min_deviation: 90.0,
    max_deviation: 350.0,
    max_volatility: 0.1,
    period_seconds: 4.0 * 24.0 * 3600.0,
    spread_scaling: 125.0,
    win_boost: 0.333,
};

/// Glicko-2's scale: a rating of 1500 + 173.7178 μ.
const SCALE: f64 = 173.7178;
/// When the volatility's iteration stops.
const EPSILON: f64 = 1e-6;

/// A game's score for the player from their spread (their points less the opponent's): half a
/// point shifted by the spread over `2 × scaling + k`, plus the win's boost toward the winner,
/// within 0..=1, where `k = 4 × scaling × boost / (1 − 2 × boost)`, so that a win by the scaling
/// itself scores 1. A draw is ½, a win by 1 about 0.834, a win by 125 or more 1.
pub fn spread_score(spread: i32, p: &Parameters) -> f64 {
    let k = 4.0 * p.spread_scaling * p.win_boost / (1.0 - 2.0 * p.win_boost);
    let shifted = f64::from(spread) / (2.0 * p.spread_scaling + k) + f64::from(spread.signum()) * p.win_boost;
    shifted.clamp(-0.5, 0.5) + 0.5
}

/// Glickman's g(φ): how much an opponent's uncertainty dampens what a result says.
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

/// The player's rating after `results` (each an opponent before the game and the player's score,
/// 0..=1), with `periods` rating periods passed since their last game (the paper's example: 1).
/// Unbounded: Glickman's steps as the paper gives them.
pub fn rate(player: Glicko, results: &[(Glicko, f64)], periods: f64, tau: f64) -> Glicko {
    rate_capped(player, results, periods, tau, f64::INFINITY)
}

/// [`rate`], the new volatility held to `max_volatility` before it grows the deviation (as
/// liwords caps it).
fn rate_capped(
    player: Glicko,
    results: &[(Glicko, f64)],
    periods: f64,
    tau: f64,
    max_volatility: f64,
) -> Glicko {
    // Step 2: to Glicko-2's scale.
    let mu = (player.rating - 1500.0) / SCALE;
    let phi = player.deviation / SCALE;
    let sigma = player.volatility;
    if results.is_empty() {
        // No game: only the deviation grows.
        let grown = (phi * phi + periods * sigma * sigma).sqrt();
        return Glicko { deviation: grown * SCALE, ..player };
    }
    // Steps 3 and 4: the estimated variance and improvement.
    let mut inverse_v = 0.0;
    let mut sum = 0.0;
    for (opponent, score) in results {
        let mu_j = (opponent.rating - 1500.0) / SCALE;
        let g_j = g(opponent.deviation / SCALE);
        let expected = 1.0 / (1.0 + (-g_j * (mu - mu_j)).exp());
        inverse_v += g_j * g_j * expected * (1.0 - expected);
        sum += g_j * (score - expected);
    }
    let v = 1.0 / inverse_v;
    let delta = v * sum;
    // Step 5: the new volatility, by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    let mut rounds = 0;
    while (big_b - big_a).abs() > EPSILON && rounds < 1000 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        rounds += 1;
    }
    let new_sigma = (big_a / 2.0).exp().min(max_volatility);
    // Steps 6 and 7: the deviation grown by the time passed, then narrowed by the games.
    let phi_star = (phi * phi + periods * new_sigma * new_sigma).sqrt();
    let new_phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let new_mu = mu + new_phi * new_phi * sum;
    // Step 8: back to the Glicko scale.
    Glicko { rating: 1500.0 + SCALE * new_mu, deviation: SCALE * new_phi, volatility: new_sigma }
}

/// The player's rating after one game against `opponent` (as rated before it) that they won,
/// drew or lost by `spread`, `idle_seconds` after their last rated game: [`rate`] with the
/// score [`spread_score`] gives, then the deviation and volatility held to the pool's bounds.
pub fn rate_game(player: Glicko, opponent: Glicko, spread: i32, idle_seconds: f64, p: &Parameters) -> Glicko {
    let periods = idle_seconds.max(0.0) / p.period_seconds;
    let rated = rate_capped(player, &[(opponent, spread_score(spread, p))], periods, p.tau, p.max_volatility);
    Glicko { deviation: rated.deviation.clamp(p.min_deviation, p.max_deviation), ..rated }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, within: f64) -> bool {
        (a - b).abs() <= within
    }

    /// Glickman's worked example: 1500 ± 200 (σ 0.06, τ 0.5) beats 1400 ± 30, loses to
    /// 1550 ± 100 and to 1700 ± 300: 1464.06 ± 151.52, σ 0.05999.
    #[test]
    fn the_papers_example() {
        let player = Glicko { rating: 1500.0, deviation: 200.0, volatility: 0.06 };
        let o = |rating, deviation| Glicko { rating, deviation, volatility: 0.06 };
        let after = rate(
            player,
            &[(o(1400.0, 30.0), 1.0), (o(1550.0, 100.0), 0.0), (o(1700.0, 300.0), 0.0)],
            1.0,
            0.5,
        );
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.deviation, 151.52, 0.01), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.00001), "{after:?}");
    }

    #[test]
    fn a_games_score_from_its_spread() {
        assert_eq!(spread_score(0, &WOOGLES), 0.5);
        // k = 4·125·0.333 / 0.334 = 498.5…: a win by 1 is 0.5 + 0.333 + 1/748.5.
        assert!(close(spread_score(1, &WOOGLES), 0.834336, 1e-6), "{}", spread_score(1, &WOOGLES));
        assert!(close(spread_score(-1, &WOOGLES), 1.0 - 0.834336, 1e-6));
        assert!(close(spread_score(100, &WOOGLES), 0.5 + 0.333 + 100.0 / 748.502994, 1e-6));
        assert!(spread_score(124, &WOOGLES) < 1.0);
        assert_eq!(spread_score(125, &WOOGLES), 1.0);
        assert_eq!(spread_score(300, &WOOGLES), 1.0);
        assert_eq!(spread_score(-500, &WOOGLES), 0.0);
    }

    #[test]
    fn a_win_raises_and_a_loss_lowers_within_the_bounds() {
        let start = WOOGLES.start;
        let winner = rate_game(start, start, 50, 0.0, &WOOGLES);
        let loser = rate_game(start, start, -50, 0.0, &WOOGLES);
        assert!(winner.rating > 1500.0 && loser.rating < 1500.0, "{winner:?} {loser:?}");
        assert!(close(winner.rating - 1500.0, 1500.0 - loser.rating, 1e-9), "symmetric");
        assert!(winner.deviation < 350.0 && winner.deviation >= 90.0);
        // A draw between equals moves neither rating.
        let drawn = rate_game(start, start, 0, 0.0, &WOOGLES);
        assert!(close(drawn.rating, 1500.0, 1e-9), "{drawn:?}");
        // A settled player idle for a year is held to the ceiling's deviation at most.
        let settled = Glicko { rating: 1800.0, deviation: 90.0, volatility: 0.1 };
        let back = rate_game(settled, start, 10, 365.0 * 86400.0, &WOOGLES);
        assert!(back.deviation <= 350.0 && back.volatility <= 0.1, "{back:?}");
        // Many games narrow the deviation to its floor and no further.
        let mut p = start;
        for _ in 0..200 {
            p = rate_game(p, start, 20, 60.0, &WOOGLES);
        }
        assert_eq!(p.deviation, 90.0);
    }
}
