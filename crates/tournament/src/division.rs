//! A division: its players (in seed order), its rounds (each with a method and, once paired,
//! its pairings and their results) and its controls. Every change goes through a method that
//! checks it first, so a division never holds a player twice in a round or a result for a
//! pairing that is not there.

use crate::rating_system::RatingSystem;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A player's place in the division's list: their seed, 0-based (TSH numbers them from 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub u32);

impl PlayerId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for PlayerId {
    /// As directors number players: from 1.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "player {}", self.0 + 1)
    }
}

/// A place in an order counted from 0 and shown as directors count it, from 1, after `what`.
macro_rules! ordinal {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// The `i`-th (from 0).
            pub fn at(i: usize) -> $name {
                $name(i as u32)
            }

            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// As directors count: from 1.
            pub fn number(self) -> u32 {
                self.0 + 1
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($what, " {}"), self.number())
            }
        }
    };
}

ordinal!(
    /// A round of a division, from its first (0); shown as directors count rounds, from 1.
    RoundId,
    "round"
);
ordinal!(
    /// A pairing (one line) of a round, from its first (0); shown as directors count, from 1.
    PairingId,
    "pairing"
);

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    /// The player's rating going in; None: unrated, a newcomer. Kept as TSH and the wire write
    /// it, 0 for none ([`zero_is_unrated`]), so every record written before reads.
    #[serde(with = "zero_is_unrated")]
    pub rating: Option<u32>,
    /// Withdrawn players are paired no more; their past games still count.
    pub withdrawn: bool,
    /// A server bot that plays as this player: its level's name (`strong`); None for a person.
    pub bot: Option<String>,
    /// Rated games before this event, as the rating body counts them (TSH's `lifeg`); None:
    /// not known, which the ratings take as TSH does ([`crate::ratings`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_games: Option<u32>,
    /// The table this player keeps in every round paired (the `tables` module), set by the
    /// director ([`Division::set_reserved_table`]); None: seated by the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved_table: Option<u32>,
    /// A registered bot's account that plays as this player through the public API, by the
    /// account's name (the server's binding, as a token is: a `.t` file does not carry it); None
    /// for a person or a server bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
}

impl Player {
    /// A person with a name and rating (None: unrated), active.
    pub fn new(name: impl Into<String>, rating: Option<u32>) -> Player {
        Player {
            name: name.into(),
            rating,
            withdrawn: false,
            bot: None,
            lifetime_games: None,
            reserved_table: None,
            account: None,
        }
    }
}

/// A rating as TSH's files, the wire and this crate's records write it, 0 for an unrated player,
/// and as this crate holds it, None.
pub mod zero_is_unrated {
    use serde::{Deserialize, Deserializer, Serializer};

    /// The rating a written 0-for-none number is.
    pub fn read(written: u32) -> Option<u32> {
        (written != 0).then_some(written)
    }

    /// A rating written as a number, 0 for none.
    pub fn written(rating: Option<u32>) -> u32 {
        rating.unwrap_or(0)
    }

    pub fn serialize<S: Serializer>(rating: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(written(*rating))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        u32::deserialize(d).map(read)
    }
}

/// How a round is paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Method {
    /// Berger tables: each pair once a cycle (the `n`-th round-robin round of the division is
    /// round `n mod (players - 1)` of cycle `n / (players - 1)`; a second cycle is a double round
    /// robin). An odd count adds a bye.
    RoundRobin,
    /// The standings' score groups, by a minimum-cost perfect matching: no repeat that can be
    /// avoided, then the smallest differences in wins, then the largest in spread.
    Swiss,
    /// 1 v 2, 3 v 4, … by standings.
    KingOfTheHill,
    /// The top `2f` by standings 1 v 1+f, 2 v 2+f, …; the rest as Swiss.
    Factor(u32),
    /// For the first `k` rounds (odd), groups of `k + 1` across the field by seed, each a round
    /// robin; after them, Swiss.
    InitialFontes(u32),
    /// A shuffle drawn from the division's seed.
    Random,
    /// The director's own pairs ([`Division::set_pairings`]).
    Manual,
}

/// The most players a division has.
pub const MAX_PLAYERS: usize = 5000;

/// The highest table a division numbers: a hall holds no more tables than the most players a
/// division has ([`MAX_PLAYERS`]), and a round's own games take at most half that (`tables`).
pub const MAX_TABLE: u32 = MAX_PLAYERS as u32;
/// The most rounds a division has (played and to come).
pub const MAX_ROUNDS: usize = 100;

impl Method {
    /// What makes this method one no division can pair by, if anything: a factor of none or of
    /// more than half the most players, or an even count of initial Fontes rounds (or more than
    /// a division has).
    pub fn problem(self) -> Option<String> {
        match self {
            Method::Factor(f) if f == 0 || f as usize > MAX_PLAYERS / 2 => {
                Some(format!("{f}: 1 to {} (half the most players a division has)", MAX_PLAYERS / 2))
            }
            Method::InitialFontes(n) if n % 2 == 0 || n as usize > MAX_ROUNDS => {
                Some(format!("{n}: an odd number of rounds, at most {MAX_ROUNDS}"))
            }
            _ => None,
        }
    }

    /// Whether the pairings depend on the standings (and so on every earlier result).
    pub fn needs_standings(self, round: usize) -> bool {
        match self {
            Method::Swiss | Method::KingOfTheHill | Method::Factor(_) => true,
            Method::InitialFontes(k) => round >= k as usize,
            Method::RoundRobin | Method::Random | Method::Manual => false,
        }
    }
}

/// A division's rules for byes, forfeits, spreads and the end of the event.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Controls {
    /// A bye's spread (a win).
    pub bye_spread: i32,
    /// A forfeit's spread: the winner's gain, the loser's loss.
    pub forfeit_spread: i32,
    /// At most this spread counts from one game (0: no cap).
    pub spread_cap: u32,
    /// Gibsonization, with its spread per round left (None: off).
    pub gibson_spread: Option<u32>,
    /// Places that win something: a Gibsonized leader meets the best-ranked player below them.
    pub min_placement: u32,
    /// Every draw (byes' ties, the random method, who goes first) comes from this.
    pub seed: u64,
    /// How the players' rating estimates are computed ([`crate::ratings`]).
    #[serde(default, skip_serializing_if = "RatingSystem::is_none")]
    pub rating_system: RatingSystem,
}

impl Default for Controls {
    /// North American defaults: +50 a bye, ±50 a forfeit, no cap, no Gibsonization.
    fn default() -> Controls {
        Controls {
            bye_spread: 50,
            forfeit_spread: 50,
            spread_cap: 0,
            gibson_spread: None,
            min_placement: 1,
            seed: 0,
            rating_system: RatingSystem::None,
        }
    }
}

/// How a game between two players ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// Played: each seat's final score (first, second).
    Scores([i32; 2]),
    /// Not played: the seat that showed (0 first, 1 second) wins by the forfeit spread.
    Forfeit { winner: usize },
}

impl GameResult {
    /// A forfeit by the player in seat `seat` (0 first, 1 second): the other seat wins.
    pub fn forfeit_by(seat: usize) -> GameResult {
        GameResult::Forfeit { winner: usize::from(seat == 0) }
    }

    /// The seat that forfeited (0 first, 1 second; None: played).
    pub fn forfeiter(self) -> Option<usize> {
        match self {
            GameResult::Forfeit { winner } => Some(usize::from(winner == 0)),
            GameResult::Scores(_) => None,
        }
    }
}

/// One line of a round.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pairing {
    /// Two players; `first` goes first.
    Game { first: PlayerId, second: PlayerId, result: Option<GameResult> },
    /// No opponent: a bye (a positive spread, a win) or, as TSH writes an absence, a forfeit
    /// loss (negative, a loss). A spread of 0 is a draw.
    Bye { player: PlayerId, spread: i32 },
}

impl Pairing {
    /// The players of this line, first then second.
    pub fn players(&self) -> impl Iterator<Item = PlayerId> + '_ {
        let (a, b) = match *self {
            Pairing::Game { first, second, .. } => (first, Some(second)),
            Pairing::Bye { player, .. } => (player, None),
        };
        std::iter::once(a).chain(b)
    }

    /// Whether its result is in (a bye's always is).
    pub fn is_done(&self) -> bool {
        !matches!(self, Pairing::Game { result: None, .. })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Round {
    pub method: Method,
    /// None until the round is paired.
    pub pairings: Option<Vec<Pairing>>,
    /// The table of each line of `pairings` (0 for a bye), assigned with them
    /// (the `tables` module); None while unpaired. A round kept before tables were (none written)
    /// has them assigned when read back ([`Division::restore`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<u32>>,
}

impl Round {
    pub fn new(method: Method) -> Round {
        Round { method, pairings: None, tables: None }
    }

    /// Paired, and every result in.
    pub fn is_complete(&self) -> bool {
        self.pairings.as_ref().is_some_and(|p| p.iter().all(Pairing::is_done))
    }
}

/// Its fields are read through its methods and changed only by its checked ones; one read back
/// (serde, as the server keeps it) is checked as [`Division::restore`] checks one.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "Parts")]
pub struct Division {
    pub(crate) name: String,
    /// In seed order: a player's [`PlayerId`] is their place here.
    pub(crate) players: Vec<Player>,
    pub(crate) rounds: Vec<Round>,
    pub(crate) controls: Controls,
}

/// A division's fields as written, before [`Division::restore`] has checked them.
#[derive(Deserialize)]
struct Parts {
    name: String,
    players: Vec<Player>,
    rounds: Vec<Round>,
    controls: Controls,
}

impl TryFrom<Parts> for Division {
    type Error = Error;

    fn try_from(p: Parts) -> Result<Division, Error> {
        Division::restore(p.name, p.players, p.rounds, p.controls)
    }
}

/// Why a change to a division was refused: each names what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("the division has {rounds} rounds: there is no round {round}")]
    NoSuchRound { round: usize, rounds: usize },
    #[error("the division has {players} players: there is no player {player}")]
    NoSuchPlayer { player: u32, players: usize },
    #[error("round {round} is paired already")]
    PairedAlready { round: usize },
    #[error("round {round} has results in: its pairings stand")]
    HasResults { round: usize },
    #[error("round {round} is not paired yet")]
    NotPaired { round: usize },
    #[error("round {round} cannot be paired before round {before}")]
    OutOfOrder { round: usize, before: usize },
    #[error(
        "round {round} is paired by the standings, and round {unfinished} has results to come: {waiting}"
    )]
    ResultsToCome { round: usize, unfinished: usize, waiting: String },
    #[error("round {round} is manual: the director sets its pairings")]
    Manual { round: usize },
    #[error("{player} is in two pairings of round {round}")]
    PairedTwice { player: PlayerId, round: usize },
    #[error("round {round}'s pairing {pairing} pairs {player} with themself")]
    MeetsThemself { player: PlayerId, round: usize, pairing: usize },
    #[error("the division has {MAX_PLAYERS} players, the most a division has")]
    Full,
    #[error("{0}")]
    Name(&'static str),
    #[error("{player} has withdrawn and cannot be paired")]
    Withdrawn { player: PlayerId },
    #[error("{player} is active but not in round {round}'s pairings")]
    Unpaired { player: PlayerId, round: usize },
    #[error("round {round} has no pairing {pairing} (it has {pairings})")]
    NoSuchPairing { round: usize, pairing: usize, pairings: usize },
    #[error("round {round}'s pairing {pairing} is a bye: it has no result to enter")]
    ByeResult { round: usize, pairing: usize },
    #[error(
        "round {round}'s pairing {pairing} has its result already: enter it again as a correction to replace it"
    )]
    Finished { round: usize, pairing: usize },
    #[error("a forfeit's winner is seat 0 or 1, not {winner}")]
    NoSuchSeat { winner: usize },
    #[error(
        "the division has {rounds} rounds: {adding} more would pass the most a division has, {MAX_ROUNDS}"
    )]
    TooManyRounds { rounds: usize, adding: usize },
    #[error("the division has {rounds} rounds: taking {removing} off would leave none")]
    LastRound { rounds: usize, removing: usize },
    #[error("round {round} is paired: the division cannot have {rounds} rounds until it is unpaired")]
    RoundPaired { round: usize, rounds: usize },
    #[error("{player} has not withdrawn: they are paired already")]
    NotWithdrawn { player: PlayerId },
    #[error("{player} has withdrawn already: enter them again first")]
    AlreadyWithdrawn { player: PlayerId },
    #[error("round {round} is not the last round paired (round {last} is): unpair round {last} first")]
    NotLastPaired { round: usize, last: usize },
    #[error("table {table}: tables are numbered 1 to {MAX_TABLE}")]
    NoSuchTable { table: u32 },
    #[error("{0}")]
    Unpairable(String),
    #[error("{0}")]
    Invalid(String),
}

/// Rounds are numbered from 1 in messages, as directors count them.
pub(crate) fn shown(round: usize) -> usize {
    round + 1
}

impl Division {
    pub fn new(
        name: impl Into<String>,
        players: Vec<Player>,
        methods: &[Method],
        controls: Controls,
    ) -> Division {
        let rounds = methods.iter().map(|&m| Round::new(m)).collect();
        Division { name: name.into(), players, rounds, controls }
    }

    /// A division as it was kept (its rounds paired and results in), checked as its methods
    /// would have left it: at most [`MAX_PLAYERS`] players and [`MAX_ROUNDS`] rounds, rounds
    /// paired in order, every line's players there, none twice in a round or paired with
    /// themself, a forfeit's winner a seat, and a round's tables one a line, 0 exactly for a
    /// bye, each game's its own. A paired round kept without tables (kept before they were) has
    /// them assigned by the rule (the `tables` module), with the players' reserved tables.
    pub fn restore(
        name: impl Into<String>,
        players: Vec<Player>,
        rounds: Vec<Round>,
        controls: Controls,
    ) -> Result<Division, Error> {
        let mut division = Division { name: name.into(), players, rounds, controls };
        division.check()?;
        for k in 0..division.rounds.len() {
            if division.rounds[k].tables.is_none() {
                division.assign_tables(k);
            }
        }
        Ok(division)
    }

    /// What [`Division::restore`] checks.
    fn check(&self) -> Result<(), Error> {
        if self.players.len() > MAX_PLAYERS {
            return Err(Error::Full);
        }
        if self.rounds.len() > MAX_ROUNDS {
            return Err(Error::Invalid(format!(
                "{} rounds: a division has at most {MAX_ROUNDS}",
                self.rounds.len()
            )));
        }
        if let Some(later) = self.rounds.iter().skip(self.rounds_paired()).position(|r| r.pairings.is_some())
        {
            let round = self.rounds_paired() + later;
            return Err(Error::OutOfOrder { round: shown(round), before: shown(self.rounds_paired()) });
        }
        for (k, round) in self.rounds.iter().enumerate() {
            let mut seen = vec![false; self.players.len()];
            for (i, line) in round.pairings.iter().flatten().enumerate() {
                if let Pairing::Game { first, second, result } = *line {
                    if first == second {
                        return Err(Error::MeetsThemself { player: first, round: shown(k), pairing: i + 1 });
                    }
                    if let Some(GameResult::Forfeit { winner }) = result
                        && winner > 1
                    {
                        return Err(Error::NoSuchSeat { winner });
                    }
                }
                for player in line.players() {
                    self.check_player(player)?;
                    if std::mem::replace(&mut seen[player.index()], true) {
                        return Err(Error::PairedTwice { player, round: shown(k) });
                    }
                }
            }
        }
        // Each round's tables against its lines, and the players' reserved tables (`tables`).
        self.check_tables()
    }

    /// The division's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its players in seed order: a player's [`PlayerId`] is their place here.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// Its rounds, played and to come.
    pub fn rounds(&self) -> &[Round] {
        &self.rounds
    }

    pub fn controls(&self) -> &Controls {
        &self.controls
    }

    /// This division as it stood before the results of `lines` (round, line) came in: what a
    /// spectator sees while those results are held back. A line with no result, or none there,
    /// is left as it is.
    pub fn without_results(&self, lines: &[(usize, usize)]) -> Division {
        let mut before = self.clone();
        for &(k, i) in lines {
            let line = before.rounds.get_mut(k).and_then(|r| r.pairings.as_mut()).and_then(|p| p.get_mut(i));
            if let Some(Pairing::Game { result, .. }) = line {
                *result = None;
            }
        }
        before
    }

    /// This division with round `round` paired by `pairings` (None: unpaired), as it stood before
    /// a change of its pairings: what a spectator sees while that change is held back. A round
    /// not there is left as it is. Their tables are assigned by the rule, as they were when those
    /// pairings were set (unless a reservation has changed since).
    pub fn with_pairings_as(&self, round: usize, pairings: Option<Vec<Pairing>>) -> Division {
        let mut before = self.clone();
        if round < before.rounds.len() {
            before.rounds[round].pairings = pairings;
            before.assign_tables(round);
        }
        before
    }

    /// This division as it stood before rounds `from` on were paired: what a spectator sees while
    /// a result those pairings were drawn after is held back.
    pub fn without_pairings_from(&self, from: usize) -> Division {
        let mut before = self.clone();
        before.rounds.iter_mut().skip(from).for_each(|round| {
            round.pairings = None;
            round.tables = None;
        });
        before
    }

    /// The players who may be paired.
    pub fn active(&self) -> impl Iterator<Item = PlayerId> + '_ {
        self.players.iter().enumerate().filter(|(_, p)| !p.withdrawn).map(|(i, _)| PlayerId(i as u32))
    }

    pub(crate) fn round(&self, round: usize) -> Result<&Round, Error> {
        self.rounds.get(round).ok_or(Error::NoSuchRound { round: shown(round), rounds: self.rounds.len() })
    }

    pub(crate) fn check_player(&self, player: PlayerId) -> Result<(), Error> {
        match self.players.get(player.index()) {
            Some(_) => Ok(()),
            None => Err(Error::NoSuchPlayer { player: player.0 + 1, players: self.players.len() }),
        }
    }

    /// Rounds paired so far: the first unpaired round's index.
    pub fn rounds_paired(&self) -> usize {
        self.rounds.iter().take_while(|r| r.pairings.is_some()).count()
    }

    /// Set (or replace, if no result is in yet) a round's pairings: the director's own, for a
    /// manual round or to override any method. Every active player is in exactly one line;
    /// withdrawn players in none. Earlier rounds must be paired. The lines' tables are assigned
    /// afresh (the `tables` module).
    pub fn set_pairings(&mut self, round: usize, pairings: Vec<Pairing>) -> Result<(), Error> {
        let r = self.round(round)?;
        if let Some(old) = &r.pairings
            && old.iter().any(|p| matches!(p, Pairing::Game { result: Some(_), .. }))
        {
            return Err(Error::HasResults { round: shown(round) });
        }
        if self.rounds_paired() < round {
            return Err(Error::OutOfOrder { round: shown(round), before: shown(self.rounds_paired()) });
        }
        let mut seen = vec![false; self.players.len()];
        for (i, p) in pairings.iter().enumerate() {
            if let Pairing::Game { result: Some(_), .. } = p {
                return Err(Error::Unpairable("new pairings carry no results".into()));
            }
            if let Pairing::Game { first, second, .. } = *p
                && first == second
            {
                return Err(Error::MeetsThemself { player: first, round: shown(round), pairing: i + 1 });
            }
            for player in p.players() {
                self.check_player(player)?;
                if self.players[player.index()].withdrawn {
                    return Err(Error::Withdrawn { player });
                }
                if std::mem::replace(&mut seen[player.index()], true) {
                    return Err(Error::PairedTwice { player, round: shown(round) });
                }
            }
        }
        if let Some(player) = self.active().find(|p| !seen[p.index()]) {
            return Err(Error::Unpaired { player, round: shown(round) });
        }
        self.rounds[round].pairings = Some(pairings);
        self.assign_tables(round);
        Ok(())
    }

    /// Enter (or, with `correct`, replace) the result of one game of a paired round.
    pub fn record(
        &mut self,
        round: usize,
        pairing: usize,
        result: GameResult,
        correct: bool,
    ) -> Result<(), Error> {
        self.round(round)?;
        let Some(lines) = self.rounds[round].pairings.as_mut() else {
            return Err(Error::NotPaired { round: shown(round) });
        };
        let count = lines.len();
        let line = lines.get_mut(pairing).ok_or(Error::NoSuchPairing {
            round: shown(round),
            pairing: pairing + 1,
            pairings: count,
        })?;
        if let GameResult::Forfeit { winner } = result
            && winner > 1
        {
            return Err(Error::NoSuchSeat { winner });
        }
        match line {
            Pairing::Bye { .. } => Err(Error::ByeResult { round: shown(round), pairing: pairing + 1 }),
            Pairing::Game { result: Some(_), .. } if !correct => {
                Err(Error::Finished { round: shown(round), pairing: pairing + 1 })
            }
            Pairing::Game { result: slot, .. } => {
                *slot = Some(result);
                Ok(())
            }
        }
    }

    /// Withdraw a player: paired no more, and every game of theirs paired and still to be
    /// played is a forfeit to their opponent. The forfeits made, as (round, line) indices: the
    /// caller ends a game in play there with the same result.
    pub fn withdraw(&mut self, player: PlayerId) -> Result<Vec<(usize, usize)>, Error> {
        self.check_player(player)?;
        if self.players[player.index()].withdrawn {
            return Err(Error::AlreadyWithdrawn { player });
        }
        self.players[player.index()].withdrawn = true;
        let mut forfeits = Vec::new();
        for (k, round) in self.rounds.iter_mut().enumerate() {
            for (i, line) in round.pairings.iter_mut().flatten().enumerate() {
                if let Pairing::Game { first, second, result: result @ None } = line
                    && (*first == player || *second == player)
                {
                    *result = Some(GameResult::forfeit_by(usize::from(*second == player)));
                    forfeits.push((k, i));
                }
            }
        }
        Ok(forfeits)
    }

    /// Add a player at the end of the seed list; paired from the next round paired. Refused for
    /// a division that has [`MAX_PLAYERS`] already, or a name a `.t` file cannot hold
    /// ([`crate::tsh::name_problem`], whose home is `name.rs`).
    pub fn add_player(&mut self, player: Player) -> Result<PlayerId, Error> {
        if self.players.len() >= MAX_PLAYERS {
            return Err(Error::Full);
        }
        if let Some(why) = crate::name::name_problem(&player.name) {
            return Err(Error::Name(why));
        }
        self.players.push(player);
        Ok(PlayerId(self.players.len() as u32 - 1))
    }

    /// Where `player` is in `round`: the line's index and the line.
    pub fn line_of(&self, round: usize, player: PlayerId) -> Option<(usize, &Pairing)> {
        let lines = self.rounds.get(round)?.pairings.as_ref()?;
        lines.iter().enumerate().find(|(_, l)| l.players().any(|p| p == player))
    }
}
