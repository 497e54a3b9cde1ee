//! Records an earlier build wrote: the wire's `Tournament` message itself (with its sentinels: a
//! `second` of 0 for a bye, a `forfeited_by` of 0 for none), each player's token hash and the
//! seed, as one prost message, perhaps with its events and kept answers inside. Read once and
//! upgraded to the record this build keeps; written back as that at the tournament's next
//! change.

use super::event::TournamentEvent;
use super::record::{Answer, DivisionRecord, Record};
use crate::settings::{GameSettings, SettingsRow};
use dawgref_tournament::{Controls, Division, GameResult, Method, Pairing, Player, PlayerId, Round};

#[derive(Clone, PartialEq, prost::Message)]
struct Legacy {
    #[prost(message, optional, tag = "1")]
    tournament: Option<Tournament>,
    /// Per division, per player: the token's SHA-256 (empty for a bot).
    #[prost(message, repeated, tag = "2")]
    hashes: Vec<Hashes>,
    #[prost(uint64, tag = "3")]
    seed: u64,
    #[prost(message, repeated, tag = "4")]
    events: Vec<TournamentEvent>,
    #[prost(message, repeated, tag = "5")]
    answers: Vec<LegacyAnswer>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyAnswer {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(bytes = "vec", tag = "2")]
    body: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct Hashes {
    #[prost(bytes = "vec", repeated, tag = "1")]
    players: Vec<Vec<u8>>,
}

// The wire's messages of that build, as far as its records used them (field for field: these are
// that format's, frozen, not the API's of today).

#[derive(Clone, PartialEq, prost::Message)]
struct Tournament {
    #[prost(string, tag = "1")]
    slug: String,
    #[prost(string, tag = "2")]
    name: String,
    #[prost(message, optional, tag = "3")]
    game: Option<SettingsRow>,
    #[prost(message, repeated, tag = "4")]
    divisions: Vec<LegacyDivision>,
    #[prost(uint64, tag = "5")]
    events: u64,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyDivision {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, repeated, tag = "2")]
    players: Vec<LegacyPlayer>,
    #[prost(message, repeated, tag = "3")]
    rounds: Vec<LegacyRound>,
    #[prost(message, optional, tag = "4")]
    controls: Option<LegacyControls>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyPlayer {
    #[prost(string, tag = "2")]
    name: String,
    #[prost(uint32, tag = "3")]
    rating: u32,
    /// The wire's bot level: 1 weak, 2 greedy, 3 (or 0) strong, 4 champion.
    #[prost(int32, optional, tag = "4")]
    bot: Option<i32>,
    #[prost(bool, tag = "5")]
    withdrawn: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyRound {
    #[prost(message, optional, tag = "2")]
    spec: Option<LegacySpec>,
    #[prost(bool, tag = "3")]
    paired: bool,
    #[prost(bool, tag = "4")]
    started: bool,
    #[prost(message, repeated, tag = "5")]
    pairings: Vec<LegacyPairing>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacySpec {
    /// 0 or 2 Swiss, 1 round robin, 3 King of the Hill, 4 factor, 5 initial Fontes, 6 random,
    /// 7 manual.
    #[prost(int32, tag = "1")]
    method: i32,
    #[prost(uint32, tag = "2")]
    factor: u32,
    #[prost(uint32, tag = "3")]
    fontes_rounds: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyPairing {
    #[prost(uint32, tag = "2")]
    first: u32,
    #[prost(uint32, tag = "3")]
    second: u32,
    #[prost(string, tag = "4")]
    game_id: String,
    #[prost(bool, tag = "5")]
    done: bool,
    #[prost(int32, repeated, tag = "6")]
    scores: Vec<i32>,
    #[prost(uint32, tag = "7")]
    forfeited_by: u32,
    #[prost(int32, tag = "8")]
    bye_spread: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
struct LegacyControls {
    #[prost(int32, optional, tag = "1")]
    bye_spread: Option<i32>,
    #[prost(int32, optional, tag = "2")]
    forfeit_spread: Option<i32>,
    #[prost(uint32, tag = "3")]
    spread_cap: u32,
    #[prost(bool, tag = "4")]
    gibsonize: bool,
    #[prost(uint32, tag = "5")]
    gibson_spread: u32,
    #[prost(uint32, tag = "6")]
    min_placement: u32,
}

impl LegacySpec {
    fn method(&self) -> Method {
        match self.method {
            1 => Method::RoundRobin,
            3 => Method::KingOfTheHill,
            4 => Method::Factor(self.factor),
            5 => Method::InitialFontes(self.fontes_rounds),
            6 => Method::Random,
            7 => Method::Manual,
            _ => Method::Swiss,
        }
    }
}

impl LegacyControls {
    /// As that build read them: unset spreads the crate's defaults.
    fn controls(&self, seed: u64) -> Controls {
        let unset = Controls::default();
        Controls {
            bye_spread: self.bye_spread.unwrap_or(unset.bye_spread),
            forfeit_spread: self.forfeit_spread.unwrap_or(unset.forfeit_spread),
            spread_cap: self.spread_cap,
            gibson_spread: self.gibsonize.then_some(self.gibson_spread),
            min_placement: self.min_placement.max(1),
            seed,
            rating_system: unset.rating_system,
        }
    }
}

/// A bot level by the wire's number of that build, by the engine's name for it.
fn bot_name(level: i32) -> Option<&'static str> {
    use dawgref_engine::bot::BotLevel;
    let level = match level {
        0 | 3 => BotLevel::Strong,
        1 => BotLevel::Weak,
        2 => BotLevel::Greedy,
        4 => BotLevel::Champion,
        _ => return None,
    };
    Some(level.name())
}

/// The record an earlier build's `body` holds, as this build keeps it (its carried events and
/// answers unwritten, to become rows at its next change); what makes it unreadable, named.
pub(crate) fn upgrade(body: &[u8]) -> Result<Record, String> {
    let old = <Legacy as prost::Message>::decode(body).map_err(|e| e.to_string())?;
    let t = old.tournament.ok_or("the record holds no tournament")?;
    let game = t.game.map(GameSettings::try_from).transpose()?.unwrap_or_default();
    let mut record = Record::new(&t.slug, &t.name, game, old.seed);
    record.events = t.events;
    for (d, div) in t.divisions.into_iter().enumerate() {
        let players: Vec<Player> = (div.players.iter())
            .map(|p| Player {
                name: p.name.clone(),
                rating: dawgref_tournament::zero_is_unrated::read(p.rating),
                withdrawn: p.withdrawn,
                bot: p.bot.and_then(bot_name).map(str::to_string),
                lifetime_games: None,
                reserved_table: None,
                account: None,
            })
            .collect();
        let rounds = (div.rounds.iter())
            .map(|r| Round {
                method: r.spec.clone().unwrap_or_default().method(),
                pairings: r.paired.then(|| r.pairings.iter().map(pairing).collect()),
                // Assigned by the rule when the division is restored: that build kept none.
                tables: None,
            })
            .collect();
        let games = (div.rounds.iter())
            .map(|r| r.started.then(|| r.pairings.iter().map(|p| p.game_id.clone()).collect()))
            .collect();
        let seed = record.division_seed(d);
        let division = Division::restore(
            div.name.clone(),
            players,
            rounds,
            div.controls.unwrap_or_default().controls(seed),
        )
        .map_err(|e| format!("division {}: {e}", div.name))?;
        let hashes = old.hashes.get(d).map(|h| h.players.as_slice()).unwrap_or_default();
        let tokens = (0..division.players().len())
            .map(|i| hashes.get(i).and_then(|h| <[u8; 32]>::try_from(h.as_slice()).ok()))
            .collect();
        record.divisions.push(DivisionRecord { games, tokens, ..DivisionRecord::new(division, Vec::new()) });
    }
    record.unwritten = old.events;
    record.answers = old.answers.into_iter().map(|a| Answer { key: a.key, body: a.body }).collect();
    Ok(record)
}

/// A line as the wire wrote it.
fn pairing(p: &LegacyPairing) -> Pairing {
    let id = |n: u32| PlayerId(n.saturating_sub(1));
    if p.second == 0 {
        return Pairing::Bye { player: id(p.first), spread: p.bye_spread };
    }
    let result = p.done.then(|| match p.forfeited_by {
        0 => GameResult::Scores([
            p.scores.first().copied().unwrap_or(0),
            p.scores.get(1).copied().unwrap_or(0),
        ]),
        absent => GameResult::Forfeit { winner: usize::from(absent == p.first) },
    });
    Pairing::Game { first: id(p.first), second: id(p.second), result }
}
