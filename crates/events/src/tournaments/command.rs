//! A director's changes to a tournament as commands: each a typed [`Command`] made by an
//! [`Actor`], applied by the layer under the tournament's hold, once per request id, and answered
//! with a typed [`Outcome`] (what it changed) beside the tournament as it then stands. The rules
//! of each are here or the division's own; the services only turn the wire into a command and the
//! outcome into the wire. CreateTournament is [`Events::create_tournament`]; the commands that act
//! on games before they change the tournament (RecordResult, WithdrawPlayer, StartRound) are
//! `direct`'s and `start`'s, through the same hold and the same kept answers.

use super::change::{Answer, Retry};
use super::event::{Actor, EventKind};
use super::record::{DivisionId, DivisionRecord, Record, ReportsMode};
use crate::Events;
use crate::error::{
    DivisionAt, EventsError, Invalid, NameAt, PlayerNamed, PlayersOf, SpreadOf, check_controls,
    check_divisions, check_methods, check_name, check_players, check_rounds, check_spread,
};
use crate::settings::GameSettings;
use dawgref_host::TokenHash;
use dawgref_tournament::prizes::PrizeList;
use dawgref_tournament::{Controls, Division, Method, Missed, Pairing, Player, PlayerId, RoundId};

/// A change a director makes to a tournament that does not act on its games.
#[derive(Clone, Debug)]
pub enum Command {
    /// A late entry at the end of `division`'s seed list (`token`: their token's hash; None for a
    /// bot), each round already paired counted as `missed` says.
    /// `same_name`: the director allows a name a player of the division has.
    AddPlayer { division: String, player: Player, token: Option<TokenHash>, missed: Missed, same_name: bool },
    /// Round `round` (from 1) of `division` paired by its method.
    PairRound { division: String, round: u32 },
    /// Round `round` (from 1) of `division` paired by hand, before it starts.
    SetPairings { division: String, round: u32, lines: Vec<Line> },
    /// A division read from a TSH `.t` file.
    ImportDivision(Import),
    /// Rounds added at the end of `division`, each paired by its method.
    AddRounds { division: String, methods: Vec<Method> },
    /// The last `count` rounds of `division` taken off (none of them paired).
    RemoveRounds { division: String, count: u32 },
    /// Withdrawn player `player` (from 1) of `division` entered again.
    ReenterPlayer { division: String, player: u32 },
    /// Round `round` (from 1) of `division`'s pairings taken back, to be paired again.
    UnpairRound { division: String, round: u32 },
    /// Whether and how `division`'s players report their own results.
    SetReports { division: String, mode: ReportsMode },
    /// Player `player` (from 1) of `division` keeps `table` (None: no longer) in the rounds
    /// paired from now on.
    ReserveTable { division: String, player: u32, table: Option<u32> },
    /// `division`'s prize list replaced.
    SetPrizes { division: String, prizes: PrizeList },
    /// `division`'s games reviewed as they end, at `ms` a turn (0: not; checked by
    /// [`review_ms`](super::review_ms) otherwise).
    SetReviews { division: String, ms: u32 },
}

/// A line of a round paired by hand: its players by number (from 1); no second for a bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    pub first: u32,
    pub second: Option<u32>,
}

/// A division from a TSH `.t` file: its rounds played kept as manual rounds, `rounds_to_come`
/// after them; its controls' seed is the division's own, drawn from the tournament's.
#[derive(Clone, Debug)]
pub struct Import {
    pub division: String,
    /// The file's text (a byte-order mark already taken off).
    pub text: String,
    pub controls: Controls,
    pub rounds_to_come: Vec<Method>,
    /// Per player of the file, their token's hash (None for a bot).
    pub tokens: Vec<Option<TokenHash>>,
}

/// What a command changed, in the tournament as it then stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A player of a division: the one added.
    Player { division: DivisionId, player: PlayerId },
    /// A round of a division: the one paired, started.
    Round { division: DivisionId, round: RoundId },
    /// A division: the one its change is in.
    Division { division: DivisionId },
}

impl Outcome {
    /// The division it is in.
    pub fn division(self) -> DivisionId {
        match self {
            Outcome::Player { division, .. }
            | Outcome::Round { division, .. }
            | Outcome::Division { division } => division,
        }
    }
}

/// A tournament to make: its divisions each with its players (and their tokens' hashes), rounds
/// and controls (whose seed is the division's own, drawn from `seed`).
#[derive(Clone, Debug)]
pub struct NewTournament {
    pub slug: String,
    pub name: String,
    pub game: GameSettings,
    pub seed: u64,
    pub divisions: Vec<NewDivision>,
    /// The director allows two players of a division the same name.
    pub same_names: bool,
}

#[derive(Clone, Debug)]
pub struct NewDivision {
    pub name: String,
    pub players: Vec<Player>,
    pub tokens: Vec<Option<TokenHash>>,
    pub methods: Vec<Method>,
    pub controls: Controls,
    /// Whether and how its players report their own results.
    pub reports: ReportsMode,
    /// A bots' arena: only bots are entered in it.
    pub bots_only: bool,
}

impl Import {
    /// The division the file and what is given beside it make, its controls' seed `seed`: the
    /// rounds to come and the controls checked as a new division's are, and the file's players
    /// and rounds as many as a division has.
    pub fn read(&self, seed: u64) -> Result<Division, Invalid> {
        if !self.rounds_to_come.is_empty() {
            check_rounds(&self.rounds_to_come, DivisionAt::Imported)?;
        }
        check_controls(&self.controls, DivisionAt::Imported)?;
        let controls = Controls { seed, ..self.controls.clone() };
        let division =
            dawgref_tournament::tsh::import(&self.division, &self.text, controls, &self.rounds_to_come)?;
        check_players(division.players().len(), PlayersOf::Imported)?;
        let rounds = division.rounds().len();
        if !(1..=dawgref_tournament::MAX_ROUNDS).contains(&rounds) {
            return Err(Invalid::Rounds { rounds, at: DivisionAt::Imported });
        }
        for (j, p) in division.players().iter().enumerate() {
            if let Some(Err(why)) = p.bot.as_deref().map(str::parse::<dawgref_engine::bot::BotLevel>) {
                return Err(Invalid::BotLevel { player: j as u32 + 1, why });
            }
        }
        Ok(division)
    }
}

impl Command {
    /// The call it is, for the key its answer is kept by.
    fn method(&self) -> &'static str {
        match self {
            Command::AddPlayer { .. } => "AddPlayer",
            Command::PairRound { .. } => "PairRound",
            Command::SetPairings { .. } => "SetPairings",
            Command::ImportDivision(_) => "ImportTsh",
            Command::AddRounds { .. } => "AddRound",
            Command::RemoveRounds { .. } => "RemoveRounds",
            Command::ReenterPlayer { .. } => "ReenterPlayer",
            Command::UnpairRound { .. } => "UnpairRound",
            Command::SetReports { .. } => "SetResultReports",
            Command::SetReviews { .. } => "SetDivisionReviews",
            Command::ReserveTable { .. } => "SetReservedTable",
            Command::SetPrizes { .. } => "SetDivisionPrizes",
        }
    }
}

impl Events {
    /// Make `command` on tournament `slug` as `actor`, durably, once per `request_id` (empty:
    /// none): a retry is answered the first answer and changes nothing. Answered with `answer`
    /// of the tournament as the command left it and what it changed.
    pub async fn command<A: Answer>(
        &self,
        slug: &str,
        actor: &Actor,
        request_id: &str,
        command: Command,
        answer: impl Fn(&Record, Outcome) -> A,
    ) -> Result<A, EventsError> {
        if let Command::PairRound { .. } = command {
            // A round is paired on every result in, those that ended unheard included.
            self.reconcile(slug).await?;
        }
        actor.directs(command.method())?;
        // A bot entered by its account plays with the account's token. The account refused
        // (no such bot, a suspended one) is the answer unless the request was answered before.
        let mut refused: Option<AccountRefused> = None;
        let command = match command {
            Command::AddPlayer { division, player, token: _, missed, same_name }
                if player.account.is_some() =>
            {
                let token = match self.account_token(player.account.as_deref().unwrap_or_default()).await {
                    Ok(hash) => Some(hash),
                    Err(EventsError::NotFound(what)) => {
                        refused = Some(AccountRefused::NoBot(what));
                        None
                    }
                    Err(EventsError::BotSuspended { name }) => {
                        refused = Some(AccountRefused::Suspended(name));
                        None
                    }
                    Err(e) => return Err(e),
                };
                Command::AddPlayer { division, player, token, missed, same_name }
            }
            command => command,
        };
        let retry = Retry { method: command.method(), request_id };
        let held = self.hold(slug).await;
        self.once(&held, retry, |rec| {
            if let Some(refused) = &refused {
                return Err(refused.error());
            }
            rec.by = actor.name().to_string();
            let outcome = rec.apply(&command)?;
            Ok(answer(rec, outcome))
        })
        .await
    }

    /// CreateTournament: `new` made as the tournament's first version by `actor`:
    /// ALREADY_EXISTS when there is one by its slug.
    pub async fn create_tournament(&self, actor: &Actor, new: NewTournament) -> Result<Record, EventsError> {
        actor.directs("CreateTournament")?;
        check_divisions(new.divisions.len(), false)?;
        let mut record = Record::new(&new.slug, &new.name, new.game, new.seed);
        for (i, mut d) in new.divisions.into_iter().enumerate() {
            let at = DivisionAt::New { index: i };
            if record.divisions.iter().any(|taken| taken.division.name() == d.name) {
                return Err(Invalid::DivisionTaken { name: d.name, at }.into());
            }
            check_players(d.players.len(), PlayersOf::NewDivision { index: i })?;
            check_rounds(&d.methods, at)?;
            check_controls(&d.controls, at)?;
            for (j, p) in d.players.iter().enumerate() {
                let at = NameAt::NewDivision { division: i, player: j };
                check_name(&p.name, at)?;
                let before = (record.divisions.iter().flat_map(|e| entered(e, e.division.players())))
                    .chain(d.players[..j].iter().zip(1..).map(|(p, n)| (d.name.as_str(), n, p)));
                check_entry(p, &d.name, d.bots_only, before, at)?;
            }
            // A bot entered by its account plays with the account's token.
            for (j, p) in d.players.iter().enumerate() {
                if let Some(account) = &p.account {
                    d.tokens[j] = Some(self.account_token(account).await?);
                }
            }
            if !new.same_names {
                // Each name against those before it, by its key: once a player.
                let mut seen = std::collections::HashMap::with_capacity(d.players.len());
                for (j, p) in d.players.iter().enumerate() {
                    if let Some(&first) = seen.get(&name_key(&p.name)) {
                        let at = NameAt::NewDivision { division: i, player: j };
                        return Err(
                            Invalid::SameName { name: p.name.trim().to_string(), player: first, at }.into()
                        );
                    }
                    seen.insert(name_key(&p.name), j as u32 + 1);
                }
            }
            let controls = Controls { seed: record.division_seed(i), ..d.controls };
            let division = Division::new(d.name, d.players, &d.methods, controls);
            let mut entry = DivisionRecord::new(division, d.tokens);
            entry.reports_mode = d.reports;
            entry.bots_only = d.bots_only;
            record.divisions.push(entry);
        }
        record.by = actor.name().to_string();
        record.event(EventKind::Created, "", 0, 0, format!("{} made", new.name));
        let record = self.create(record).await?;
        tracing::info!(tournament = %new.slug, "tournament created");
        Ok(record)
    }
}

/// A name as two players' names are compared: without case and spacing ("Bo  baker" is "Bo
/// Baker").
fn name_key(name: &str) -> Vec<String> {
    name.split_whitespace().map(str::to_lowercase).collect()
}

/// Why a bot's account could not be entered, kept to answer with once the request is known to
/// be a new one (its error made again for each try of the change).
enum AccountRefused {
    NoBot(String),
    Suspended(String),
}

impl AccountRefused {
    fn error(&self) -> EventsError {
        match self {
            AccountRefused::NoBot(what) => EventsError::NotFound(what.clone()),
            AccountRefused::Suspended(name) => EventsError::BotSuspended { name: name.clone() },
        }
    }
}

/// A division's players as [`check_entry`] reads those entered before: the division's name, each
/// player's number (from 1) and the player.
fn entered<'a>(
    entry: &'a DivisionRecord,
    players: &'a [Player],
) -> impl Iterator<Item = (&'a str, u32, &'a Player)> {
    players.iter().zip(1..).map(move |(p, n)| (entry.division.name(), n, p))
}

/// A new player at `at` of division `division` by a bots' arena's rules: a registered bot's
/// account under its own name, never beside a server bot's level, once in the tournament (its
/// token finds one player: those `before` it); in a division of bots only (`bots_only`), a bot.
fn check_entry<'a>(
    player: &Player,
    division: &str,
    bots_only: bool,
    mut before: impl Iterator<Item = (&'a str, u32, &'a Player)>,
    at: NameAt,
) -> Result<(), Invalid> {
    let Some(account) = &player.account else {
        if bots_only && player.bot.is_none() {
            return Err(Invalid::BotsOnly { division: division.to_string(), at });
        }
        return Ok(());
    };
    if player.bot.is_some() {
        return Err(Invalid::AccountAndLevel { at });
    }
    if player.name != *account {
        return Err(Invalid::AccountName { name: player.name.clone(), account: account.clone(), at });
    }
    match before.find(|(_, _, p)| p.account.as_ref() == Some(account)) {
        Some((division, player, _)) => Err(Invalid::AccountTwice {
            account: account.clone(),
            division: division.to_string(),
            player,
            at,
        }),
        None => Ok(()),
    }
}

/// A new player's `name`, unless a player of `players` has it ([`name_key`]).
fn check_name_free(players: &[Player], name: &str, at: NameAt) -> Result<(), Invalid> {
    let key = name_key(name);
    match players.iter().position(|p| name_key(&p.name) == key) {
        Some(i) => Err(Invalid::SameName { name: name.trim().to_string(), player: i as u32 + 1, at }),
        None => Ok(()),
    }
}

impl Record {
    /// Apply `command` (its events noted, by whom the record's change is by).
    fn apply(&mut self, command: &Command) -> Result<Outcome, EventsError> {
        match command {
            Command::AddPlayer { division, player, token, missed, same_name } => {
                if let Missed::Byes { spread } = *missed {
                    check_spread(spread, SpreadOf::Missed)?;
                }
                let d = self.division(division)?;
                let before = self.divisions.iter().flat_map(|e| entered(e, e.division.players()));
                let entry = &self.divisions[d];
                check_entry(player, entry.division.name(), entry.bots_only, before, NameAt::LateEntry)?;
                if !same_name {
                    check_name_free(self.division_at(d).players(), &player.name, NameAt::LateEntry)?;
                }
                self.add_player(d, player.clone(), *token, *missed)
            }
            Command::PairRound { division, round } => {
                let d = self.division(division)?;
                let k = self.round(d, *round)?;
                self.divisions[d].division.pair(k.index()).map_err(EventsError::Rules)?;
                let lines = self.divisions[d].lines(k).to_vec();
                self.event(EventKind::PairingsMade, division, *round, 0, format!("round {round} paired"))
                    .keep_lines(&lines);
                Ok(Outcome::Round { division: d, round: k })
            }
            Command::SetPairings { division, round, lines } => {
                let d = self.division(division)?;
                let k = self.round(d, *round)?;
                self.set_pairings(d, k, lines)?;
                Ok(Outcome::Round { division: d, round: k })
            }
            Command::ImportDivision(import) => self.import(import),
            Command::AddRounds { division, methods } => {
                if methods.is_empty() {
                    return Err(Invalid::NoRoundsToAdd.into());
                }
                check_methods(methods, DivisionAt::Kept)?;
                let d = self.division(division)?;
                self.add_rounds(d, methods)?;
                Ok(Outcome::Division { division: d })
            }
            Command::RemoveRounds { division, count } => {
                if *count == 0 {
                    return Err(Invalid::NoRoundsToRemove.into());
                }
                let d = self.division(division)?;
                self.remove_rounds(d, *count as usize)?;
                Ok(Outcome::Division { division: d })
            }
            Command::ReenterPlayer { division, player } => {
                let d = self.division(division)?;
                self.reenter(d, *player)?;
                Ok(Outcome::Division { division: d })
            }
            Command::UnpairRound { division, round } => {
                let d = self.division(division)?;
                let k = self.round(d, *round)?;
                self.unpair(d, k)?;
                Ok(Outcome::Division { division: d })
            }
            Command::SetReports { division, mode } => {
                let d = self.division(division)?;
                self.set_reports(d, *mode);
                Ok(Outcome::Division { division: d })
            }
            Command::ReserveTable { division, player, table } => {
                let d = self.division(division)?;
                let player = self.reserve_table(d, *player, *table)?;
                Ok(Outcome::Player { division: d, player })
            }
            Command::SetPrizes { division, prizes } => {
                let d = self.division(division)?;
                self.set_prizes(d, prizes.clone());
                Ok(Outcome::Division { division: d })
            }
            Command::SetReviews { division, ms } => {
                let d = self.division(division)?;
                let ms = if *ms == 0 { 0 } else { super::review_ms(*ms)? };
                self.set_reviews(d, ms);
                Ok(Outcome::Division { division: d })
            }
        }
    }

    /// AddPlayer: `player` at the end of division `d`'s seed list, by the division's own rules
    /// for a newcomer (the most players, a name a `.t` file can hold).
    fn add_player(
        &mut self,
        d: DivisionId,
        player: Player,
        token: Option<TokenHash>,
        missed: Missed,
    ) -> Result<Outcome, EventsError> {
        let number = self.division_at(d).players().len() as u32 + 1;
        let name = player.name.clone();
        let id = self.add_late_player(d, player, token, missed).map_err(|e| match e {
            dawgref_tournament::Error::Full => {
                Invalid::Players { players: number as usize, of: PlayersOf::LateEntry }.into()
            }
            dawgref_tournament::Error::Name(why) => {
                Invalid::PlayerName { why: why.to_string(), at: NameAt::LateEntry }.into()
            }
            other => EventsError::Rules(other),
        })?;
        let detail = format!("{name} joins as player {number}{}", self.missed_detail(d, missed));
        let division = self.division_at(d).name().to_string();
        self.event(EventKind::PlayerAdded, &division, 0, 0, detail).players = vec![number];
        Ok(Outcome::Player { division: d, player: id })
    }

    /// What a late entry's event adds: how the rounds they missed count (nothing before round 1).
    fn missed_detail(&self, d: DivisionId, missed: Missed) -> String {
        match (self.division_at(d).rounds_paired(), missed) {
            (0, _) => String::new(),
            (1, Missed::Absent) => ", absent from round 1".into(),
            (n, Missed::Absent) => format!(", absent from rounds 1 to {n}"),
            (1, Missed::Byes { spread }) => format!(", a bye ({spread:+}) for round 1"),
            (n, Missed::Byes { spread }) => format!(", a bye ({spread:+}) for each of rounds 1 to {n}"),
        }
    }

    /// SetPairings: round `k` of division `d` paired by hand, before it has started.
    fn set_pairings(&mut self, d: DivisionId, k: RoundId, given: &[Line]) -> Result<(), EventsError> {
        let round = k.number();
        if self.divisions[d].started(k) {
            return Err(EventsError::RoundStarted { round });
        }
        let id = |line: usize, second: bool, n: u32| {
            self.player_named_by(d, PlayerNamed::Line { line, second }, n)
        };
        let mut lines = Vec::with_capacity(given.len());
        for (i, line) in given.iter().enumerate() {
            let first = id(i, false, line.first)?;
            lines.push(match line.second {
                None => Pairing::Bye { player: first, spread: self.division_at(d).controls().bye_spread },
                Some(n) => {
                    let second = id(i, true, n)?;
                    Pairing::Game { first, second, result: None }
                }
            });
        }
        self.divisions[d].division.set_pairings(k.index(), lines).map_err(EventsError::Rules)?;
        let division = self.division_at(d).name().to_string();
        let detail = format!("round {round} paired by the director");
        let lines = self.divisions[d].lines(k).to_vec();
        self.event(EventKind::PairingsMade, &division, round, 0, detail).keep_lines(&lines);
        Ok(())
    }

    /// ImportTsh: a division read from a `.t` file added, with the division's own seed (as a
    /// division made at creation in its place has). A round with every game still to play is
    /// paired and not started (StartRound makes its games); one with a result in, or only byes,
    /// has started, its other results to be entered by hand.
    fn import(&mut self, import: &Import) -> Result<Outcome, EventsError> {
        let name = import.division.as_str();
        if self.divisions.iter().any(|d| d.division.name() == name) {
            return Err(Invalid::DivisionTaken { name: name.to_string(), at: DivisionAt::Imported }.into());
        }
        check_divisions(self.divisions.len() + 1, true)?;
        let division = import.read(self.division_seed(self.divisions.len()))?;
        let players = division.players().len();
        if import.tokens.len() != players {
            return Err(Invalid::Tokens { players, tokens: import.tokens.len() }.into());
        }
        let played = division.rounds().len() - import.rounds_to_come.len();
        let mut entry = DivisionRecord::new(division, import.tokens.clone());
        for k in entry.round_ids().take(played) {
            let lines = entry.lines(k);
            let started = lines.iter().any(|l| matches!(l, Pairing::Game { result: Some(_), .. }))
                || lines.iter().all(|l| matches!(l, Pairing::Bye { .. }));
            if started {
                entry.games[k.index()] = Some(vec![String::new(); lines.len()]);
            }
        }
        self.divisions.push(entry);
        let detail = format!("{players} players, {played} rounds played");
        self.event(EventKind::DivisionImported, name, 0, 0, detail);
        Ok(Outcome::Division { division: DivisionId(self.divisions.len() - 1) })
    }
}
