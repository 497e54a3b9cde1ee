//! Standings: each player's record over the results in, ranked by wins (a draw a half), then
//! fewer losses, then spread (each game's capped by the division's spread cap), then seed.

use crate::division::{Division, GameResult, Pairing, PlayerId};

/// One player's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    pub player: PlayerId,
    /// A win 2, a draw 1: twice the wins as directors count them.
    pub win_points: u32,
    pub losses: u32,
    pub draws: u32,
    /// Capped per game by the spread cap.
    pub spread: i64,
    /// Byes received (a line with no opponent and a spread of 0 or more); an absence (a
    /// negative spread, as TSH writes a forfeit lost) is a loss, not a bye.
    pub byes: u32,
    /// Games in which the player went first or will (paired, not yet played); not forfeits.
    pub firsts: u32,
    /// Games and byes counted.
    pub played: u32,
    /// Every opponent met in a game (repeats listed again).
    pub opponents: Vec<PlayerId>,
}

impl Standing {
    /// Wins, a draw counting a half.
    pub fn wins(&self) -> f64 {
        f64::from(self.win_points) / 2.0
    }
}

/// A division's standings after some rounds: ranked, and each player's record by id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standings {
    /// Best first.
    pub ranked: Vec<PlayerId>,
    /// By [`PlayerId`].
    pub records: Vec<Standing>,
}

impl Standings {
    /// Over every result in (a round half played counts what is in).
    pub fn of(division: &Division) -> Standings {
        Standings::after(division, division.rounds.len())
    }

    /// Over the results of the first `rounds` rounds.
    pub fn after(division: &Division, rounds: usize) -> Standings {
        let mut records: Vec<Standing> = (0..division.players.len())
            .map(|i| Standing { player: PlayerId(i as u32), ..Default::default() })
            .collect();
        let cap = division.controls.spread_cap;
        let capped = |s: i64| if cap == 0 { s } else { s.clamp(-i64::from(cap), i64::from(cap)) };
        for round in division.rounds.iter().take(rounds) {
            for line in round.pairings.iter().flatten() {
                match *line {
                    Pairing::Bye { player, spread } => {
                        count(&mut records[player.index()], i64::from(spread), None);
                        if spread >= 0 {
                            records[player.index()].byes += 1;
                        }
                    }
                    Pairing::Game { first, second, result: Some(result) } => {
                        let spread = match result {
                            GameResult::Scores([a, b]) => capped(i64::from(a) - i64::from(b)),
                            GameResult::Forfeit { winner } => {
                                let s = i64::from(division.controls.forfeit_spread);
                                if winner == 0 { s } else { -s }
                            }
                        };
                        count(&mut records[first.index()], spread, Some(second));
                        count(&mut records[second.index()], -spread, Some(first));
                        if matches!(result, GameResult::Scores(_)) {
                            records[first.index()].firsts += 1;
                        }
                    }
                    // A game to come: its first mover is decided (who goes first next balances it).
                    Pairing::Game { first, result: None, .. } => records[first.index()].firsts += 1,
                }
            }
        }
        let mut ranked: Vec<PlayerId> = records.iter().map(|r| r.player).collect();
        ranked.sort_by(|a, b| {
            let (x, y) = (&records[a.index()], &records[b.index()]);
            y.win_points
                .cmp(&x.win_points)
                .then(x.losses.cmp(&y.losses))
                .then(y.spread.cmp(&x.spread))
                .then(a.cmp(b))
        });
        Standings { ranked, records }
    }

    pub fn record(&self, player: PlayerId) -> &Standing {
        &self.records[player.index()]
    }

    /// 1-based place of each player, by id.
    pub fn places(&self) -> Vec<usize> {
        let mut places = vec![0; self.records.len()];
        for (place, p) in self.ranked.iter().enumerate() {
            places[p.index()] = place + 1;
        }
        places
    }

    /// Times `a` and `b` have met.
    pub fn meetings(&self, a: PlayerId, b: PlayerId) -> usize {
        self.records[a.index()].opponents.iter().filter(|&&o| o == b).count()
    }
}

/// One game or bye into a player's record: its sign decides win, loss or draw.
fn count(r: &mut Standing, spread: i64, opponent: Option<PlayerId>) {
    r.played += 1;
    match spread.signum() {
        1 => r.win_points += 2,
        -1 => r.losses += 1,
        _ => {
            r.win_points += 1;
            r.draws += 1;
        }
    }
    r.spread += spread;
    r.opponents.extend(opponent);
}
