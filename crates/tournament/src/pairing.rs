//! Pairing one round by its method: who has the bye, who is Gibsonized, who meets whom, and
//! who goes first.

use crate::division::{Division, Error, Method, Pairing, PlayerId, shown};
use crate::draw::Draw;
use crate::matching;
use crate::standings::Standings;

/// A round's games, and its bye.
type Paired = (Vec<(PlayerId, PlayerId)>, Option<PlayerId>);

/// Draw purposes (one stream each per round).
const DRAW_RANDOM: u64 = 1;
const DRAW_FIRST: u64 = 2;

impl Division {
    /// Pair `round` by its method and keep the pairings, their tables assigned
    /// (the `tables` module): rounds in order, each once; a method that reads the standings waits
    /// for every earlier result.
    pub fn pair(&mut self, round: usize) -> Result<&[Pairing], Error> {
        let r = self.round(round)?;
        if r.pairings.is_some() {
            return Err(Error::PairedAlready { round: shown(round) });
        }
        if self.rounds_paired() < round {
            return Err(Error::OutOfOrder { round: shown(round), before: shown(self.rounds_paired()) });
        }
        if r.method == Method::Manual {
            return Err(Error::Manual { round: shown(round) });
        }
        if r.method.needs_standings(round)
            && let Some(unfinished) = (0..round).find(|&k| !self.rounds[k].is_complete())
        {
            let waiting = self.waiting(unfinished);
            return Err(Error::ResultsToCome { round: shown(round), unfinished: shown(unfinished), waiting });
        }
        let pairings = pair(self, round)?;
        self.rounds[round].pairings = Some(pairings);
        self.assign_tables(round);
        Ok(self.rounds[round].pairings.as_deref().unwrap_or_default())
    }
}

impl Division {
    /// What round `k` waits for, for people: its first game without a result, by its players'
    /// names, and how many more there are ("pairing 2 (Cy Cole – Di Dunn) and 1 more").
    fn waiting(&self, k: usize) -> String {
        let name = |p: PlayerId| self.players.get(p.index()).map_or("?", |p| p.name.as_str());
        let mut open = (self.rounds[k].pairings.iter().flatten().enumerate()).filter(|(_, l)| !l.is_done());
        let Some((i, line)) = open.next() else { return String::new() };
        let players: Vec<&str> = line.players().map(name).collect();
        let more = match open.count() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        format!("pairing {} ({}){more}", i + 1, players.join(" – "))
    }
}

/// The pairings of `round` (unpaired, earlier rounds paired; checked by the caller): games in
/// the order of their better-ranked player, then the bye.
fn pair(d: &Division, round: usize) -> Result<Vec<Pairing>, Error> {
    let standings = Standings::after(d, round);
    let ranked: Vec<PlayerId> =
        standings.ranked.iter().copied().filter(|p| !d.players[p.index()].withdrawn).collect();
    if ranked.len() < 2 {
        return Err(Error::Unpairable(format!(
            "round {}: {} active players, fewer than two",
            shown(round),
            ranked.len()
        )));
    }
    let method = d.rounds[round].method;
    let (pairs, bye) = match method {
        Method::RoundRobin => {
            let nth = d.rounds[..round].iter().filter(|r| r.method == Method::RoundRobin).count();
            round_robin(&seeded(d), nth)
        }
        Method::InitialFontes(k) if k % 2 == 0 => {
            return Err(Error::Unpairable(format!("initial Fontes takes an odd number of rounds, not {k}")));
        }
        Method::InitialFontes(k) if round < k as usize => fontes(&seeded(d), k as usize, round)?,
        Method::Random => {
            let (mut rest, bye) = take_bye(&ranked, &standings);
            Draw::new(d.controls.seed, round, DRAW_RANDOM).shuffle(&mut rest);
            (rest.chunks(2).map(|c| (c[0], c[1])).collect(), bye)
        }
        Method::Swiss | Method::InitialFontes(_) | Method::KingOfTheHill | Method::Factor(_) => {
            let (rest, bye) = take_bye(&ranked, &standings);
            let (mut pairs, rest) = gibsonize(d, round, rest, &standings);
            match method {
                Method::KingOfTheHill => pairs.extend(rest.chunks(2).map(|c| (c[0], c[1]))),
                Method::Factor(f) => {
                    let f = f as usize;
                    if f == 0 || 2 * f > rest.len() {
                        return Err(Error::Unpairable(format!(
                            "round {}: factor {f} needs between 1 and {} (half the players to pair)",
                            shown(round),
                            rest.len() / 2
                        )));
                    }
                    pairs.extend((0..f).map(|i| (rest[i], rest[i + f])));
                    pairs.extend(matching::swiss(&rest[2 * f..], &standings));
                }
                _ => pairs.extend(matching::swiss(&rest, &standings)),
            }
            (pairs, bye)
        }
        Method::Manual => return Err(Error::Manual { round: shown(round) }),
    };
    Ok(lines(d, round, &standings, pairs, bye))
}

/// Active players in seed order.
fn seeded(d: &Division) -> Vec<PlayerId> {
    d.active().collect()
}

/// The bye, for an odd count: the lowest-ranked player among those with the fewest byes.
fn take_bye(ranked: &[PlayerId], standings: &Standings) -> (Vec<PlayerId>, Option<PlayerId>) {
    if ranked.len().is_multiple_of(2) {
        return (ranked.to_vec(), None);
    }
    let fewest = ranked.iter().map(|p| standings.record(*p).byes).min().unwrap_or(0);
    let bye =
        *ranked.iter().rev().find(|p| standings.record(**p).byes == fewest).expect("a player has the fewest");
    (ranked.iter().copied().filter(|&p| p != bye).collect(), Some(bye))
}

/// With Gibsonization on, a leader who cannot be caught in the rounds left (this one
/// included) — ahead by more than two win points a round, or by exactly that and by more than
/// the Gibson spread a round — meets the best-ranked player below the minimum placement. The
/// pair made, and the players left.
fn gibsonize(
    d: &Division,
    round: usize,
    ranked: Vec<PlayerId>,
    standings: &Standings,
) -> (Vec<(PlayerId, PlayerId)>, Vec<PlayerId>) {
    let Some(per_round) = d.controls.gibson_spread else { return (Vec::new(), ranked) };
    if ranked.len() < 2 {
        return (Vec::new(), ranked);
    }
    let left = (d.rounds.len() - round) as i64;
    let (leader, next) = (standings.record(ranked[0]), standings.record(ranked[1]));
    let lead = i64::from(leader.win_points) - i64::from(next.win_points);
    let uncatchable =
        lead > 2 * left || (lead == 2 * left && leader.spread - next.spread > i64::from(per_round) * left);
    if !uncatchable {
        return (Vec::new(), ranked);
    }
    // Places count from 1; the opponent is the first after the minimum placement, or the last.
    let below = (d.controls.min_placement as usize).clamp(1, ranked.len() - 1);
    let opponent = ranked[below];
    let rest = ranked.iter().copied().filter(|&p| p != ranked[0] && p != opponent).collect();
    (vec![(ranked[0], opponent)], rest)
}

/// Seats for `players`, with a phantom (the bye) after the last for an odd count.
fn seats(players: &[PlayerId]) -> Vec<Option<PlayerId>> {
    let mut seats: Vec<Option<PlayerId>> = players.iter().copied().map(Some).collect();
    if !seats.len().is_multiple_of(2) {
        seats.push(None);
    }
    seats
}

/// The `nth` round-robin round over `seats` (an even count) by Berger's circle: the first
/// fixed, the rest turning a place a round, the first half against the second reversed.
fn circle(mut seats: Vec<Option<PlayerId>>, nth: usize, into: &mut Paired) {
    let n = seats.len();
    seats[1..].rotate_right(nth % (n - 1));
    for i in 0..n / 2 {
        match (seats[i], seats[n - 1 - i]) {
            (Some(a), Some(b)) => into.0.push((a, b)),
            (Some(p), None) | (None, Some(p)) => into.1 = Some(p),
            (None, None) => {}
        }
    }
}

fn round_robin(players: &[PlayerId], nth: usize) -> Paired {
    let mut paired = (Vec::new(), None);
    circle(seats(players), nth, &mut paired);
    paired
}

/// Round `round` (< k) of initial Fontes: the field by seed dealt into groups of k + 1 (the
/// last groups two larger where the count does not divide), each a round robin.
fn fontes(players: &[PlayerId], k: usize, round: usize) -> Result<Paired, Error> {
    let seats = seats(players);
    let n = seats.len();
    let size = k + 1;
    let groups = n / size;
    if groups == 0 {
        return Err(Error::Unpairable(format!(
            "initial Fontes over {k} rounds needs at least {size} players, not {}",
            players.len()
        )));
    }
    let mut room: Vec<usize> = vec![size; groups];
    for g in 0..(n - groups * size) / 2 {
        room[groups - 1 - g % groups] += 2;
    }
    let mut members: Vec<Vec<Option<PlayerId>>> = vec![Vec::new(); groups];
    let mut g = 0;
    for seat in seats {
        while members[g].len() == room[g] {
            g = (g + 1) % groups;
        }
        members[g].push(seat);
        g = (g + 1) % groups;
    }
    let mut paired = (Vec::new(), None);
    for group in members {
        circle(group, round, &mut paired);
    }
    Ok(paired)
}

/// The round's lines: in each game the player who has gone first fewer times goes first
/// (equal: drawn from the seed); games by their better-ranked player, then the bye.
fn lines(
    d: &Division,
    round: usize,
    standings: &Standings,
    pairs: Vec<(PlayerId, PlayerId)>,
    bye: Option<PlayerId>,
) -> Vec<Pairing> {
    let places = standings.places();
    let mut pairs = pairs;
    pairs.sort_by_key(|&(a, b)| places[a.index()].min(places[b.index()]));
    let mut draw = Draw::new(d.controls.seed, round, DRAW_FIRST);
    let mut lines: Vec<Pairing> = pairs
        .into_iter()
        .map(|(a, b)| {
            let (fa, fb) = (standings.record(a).firsts, standings.record(b).firsts);
            let a_first = fa < fb || (fa == fb && draw.next() & 1 == 0);
            let (first, second) = if a_first { (a, b) } else { (b, a) };
            Pairing::Game { first, second, result: None }
        })
        .collect();
    lines.extend(bye.map(|player| Pairing::Bye { player, spread: d.controls.bye_spread }));
    lines
}
