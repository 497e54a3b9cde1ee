//! How a tournament's record is written to the store and read back: a head (its name, games'
//! settings, seed, event count and divisions' names) as the state's body, and parts beside it,
//! each JSON: a division's players, token hashes and controls (`<d>`), each of its rounds'
//! method and state (`<d>.<k>`), and the round's lines, the crate's own, with their games, 64 a
//! part (`<d>.<k>.<c>`). A change writes the head and the parts whose contents differ from what
//! the store holds (a result writes its 64 lines, not its round or every player);
//! a read puts the crate's `Division` back together through `Division::restore`, which checks
//! it. A body that is not this build's is an earlier build's (`legacy`).

use super::record::{DivisionRecord, LineReports, Record, ReportsMode};
use crate::error::EventsError;
use crate::settings::GameSettings;
use dawgref_host::{TokenHash, hex, unhex};
use dawgref_store::StoredTournament;
use dawgref_tournament::prizes::PrizeList;
use dawgref_tournament::{Controls, Division, Method, Pairing, Player, PlayerId, Round, RoundId};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::BTreeSet;

/// The state's body.
#[derive(Serialize, Deserialize)]
struct Head<'a> {
    slug: Cow<'a, str>,
    name: Cow<'a, str>,
    /// The games' settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    settings: Option<Cow<'a, GameSettings>>,
    /// The games' settings as an earlier build wrote them: their protobuf bytes, in hex (read
    /// when `settings` is absent; never written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    game: Option<String>,
    seed: u64,
    events: u64,
    /// The divisions' names, in order (each division's parts are keyed by its place).
    divisions: Vec<Cow<'a, str>>,
}

/// A division's part: all of it but its rounds.
#[derive(Serialize, Deserialize)]
struct DivisionPart<'a> {
    name: Cow<'a, str>,
    controls: Cow<'a, Controls>,
    players: Cow<'a, [Player]>,
    /// Each player's token hash in hex ("" for a bot).
    tokens: Vec<String>,
    /// Its rounds, each a part of its own.
    rounds: usize,
    /// Whether and how its players report their results (absent: they do not).
    #[serde(default, skip_serializing_if = "is_off")]
    reports: ReportsMode,
    /// Its prize list (absent: none).
    #[serde(default, skip_serializing_if = "no_prizes")]
    prizes: Cow<'a, PrizeList>,
    /// The players who have checked in, by id (absent: none).
    #[serde(default, skip_serializing_if = "no_one")]
    checked_in: Cow<'a, BTreeSet<PlayerId>>,
    /// Only bots are entered in it (absent: anyone is).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    bots_only: bool,
    /// Each game is reviewed when it ends, at this time a turn (absent: none is).
    #[serde(default, skip_serializing_if = "is_zero")]
    review_ms: u32,
}

fn is_zero(ms: &u32) -> bool {
    *ms == 0
}

// serde's `skip_serializing_if` is handed the field as it is: a `Cow`.
#[allow(clippy::ptr_arg)]
fn no_prizes(list: &Cow<'_, PrizeList>) -> bool {
    list.prizes().is_empty()
}

// As `no_prizes`: a `Cow`.
#[allow(clippy::ptr_arg)]
fn no_one(players: &Cow<'_, BTreeSet<PlayerId>>) -> bool {
    players.is_empty()
}

fn is_off(mode: &ReportsMode) -> bool {
    *mode == ReportsMode::Off
}

/// A round's part: its method, whether it is paired and started, and how many parts its lines
/// take ([`LINES_A_PART`] each).
#[derive(Serialize, Deserialize)]
struct RoundPart {
    method: Method,
    paired: bool,
    started: bool,
    parts: usize,
    /// Each line's table once paired (absent: a round kept before tables were, assigned by the
    /// rule when read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tables: Option<Vec<u32>>,
}

/// Some of a round's lines, the crate's own, with their games once started.
#[derive(Serialize, Deserialize)]
struct LinesPart<'a> {
    lines: Cow<'a, [Pairing]>,
    games: Option<Cow<'a, [String]>>,
    /// The players' reports of these lines while they wait for their results: (line index in
    /// the round, its reports).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reports: Vec<(usize, LineReports)>,
}

/// A round's lines are kept in parts of this many, so that a result writes its own part (about
/// 7 KB) and not the whole round (a 1,000-player round's 500 lines are about 52 KB).
const LINES_A_PART: usize = 64;

/// A part of the state, by where it is.
#[derive(Clone, Copy)]
enum Part {
    /// Division `d`, all of it but its rounds.
    Division(usize),
    /// Division `d`'s round `k`, but its lines.
    Round(usize, usize),
    /// Division `d`'s round `k`'s lines from `c` × [`LINES_A_PART`].
    Lines(usize, usize, usize),
}

impl Part {
    fn key(self) -> String {
        match self {
            Part::Division(d) => d.to_string(),
            Part::Round(d, k) => format!("{d}.{k}"),
            Part::Lines(d, k, c) => format!("{d}.{k}.{c}"),
        }
    }

    /// What this part of `record` holds, hashed (not its text: telling an unchanged part costs
    /// no encoding).
    fn hash(self, record: &Record) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = xxhash_rust::xxh3::Xxh3Default::new();
        match self {
            Part::Division(d) => {
                let entry = &record.divisions[d];
                let div = &entry.division;
                (
                    div.name(),
                    div.controls(),
                    div.players(),
                    &entry.tokens,
                    div.rounds().len(),
                    entry.reports_mode,
                    &entry.prizes,
                    &entry.checked_in,
                    entry.bots_only,
                    entry.review_ms,
                )
                    .hash(&mut h);
            }
            Part::Round(d, k) => {
                let entry = &record.divisions[d];
                (round_part(entry, k), &entry.division.rounds()[k].tables).hash(&mut h)
            }
            Part::Lines(d, k, c) => {
                let (lines, games) = lines_part(&record.divisions[d], k, c);
                (lines, games, reports_part(&record.divisions[d], k, c)).hash(&mut h);
            }
        }
        h.finish()
    }

    /// This part of `record` as written.
    fn text(self, record: &Record) -> Vec<u8> {
        match self {
            Part::Division(d) => {
                let entry = &record.divisions[d];
                let div = &entry.division;
                json(&DivisionPart {
                    name: Cow::Borrowed(div.name()),
                    controls: Cow::Borrowed(div.controls()),
                    players: Cow::Borrowed(div.players()),
                    tokens: entry.tokens.iter().map(|t| t.map(|t| hex(&t)).unwrap_or_default()).collect(),
                    rounds: div.rounds().len(),
                    reports: entry.reports_mode,
                    prizes: Cow::Borrowed(&entry.prizes),
                    checked_in: Cow::Borrowed(&entry.checked_in),
                    bots_only: entry.bots_only,
                    review_ms: entry.review_ms,
                })
            }
            Part::Round(d, k) => {
                let (method, paired, started, parts) = round_part(&record.divisions[d], k);
                let tables = record.divisions[d].division.rounds()[k].tables.clone();
                json(&RoundPart { method, paired, started, parts, tables })
            }
            Part::Lines(d, k, c) => {
                let (lines, games) = lines_part(&record.divisions[d], k, c);
                let reports = reports_part(&record.divisions[d], k, c);
                json(&LinesPart { lines: Cow::Borrowed(lines), games: games.map(Cow::Borrowed), reports })
            }
        }
    }
}

/// What round `k`'s own part holds: its method, whether it is paired and started, its parts of
/// lines.
fn round_part(entry: &DivisionRecord, k: usize) -> (Method, bool, bool, usize) {
    let (round, id) = (&entry.division.rounds()[k], RoundId::at(k));
    (round.method, round.pairings.is_some(), entry.started(id), entry.lines(id).len().div_ceil(LINES_A_PART))
}

/// Round `k`'s lines in part `c`, with their games once started.
fn lines_part(entry: &DivisionRecord, k: usize, c: usize) -> (&[Pairing], Option<&[String]>) {
    let lines = entry.lines(RoundId::at(k));
    let range = c * LINES_A_PART..((c + 1) * LINES_A_PART).min(lines.len());
    (&lines[range.clone()], entry.games[k].as_ref().map(|g| &g[range]))
}

/// The reports of round `k`'s lines in part `c`: (line index, reports).
fn reports_part(entry: &DivisionRecord, k: usize, c: usize) -> Vec<(usize, LineReports)> {
    let range = (k, c * LINES_A_PART)..(k, (c + 1) * LINES_A_PART);
    entry.reports.range(range).map(|(&(_, i), &r)| (i, r)).collect()
}

/// Every part of `record`.
fn parts(record: &Record) -> impl Iterator<Item = Part> + '_ {
    record.divisions.iter().enumerate().flat_map(|(d, entry)| {
        let rounds = (0..entry.division.rounds().len()).flat_map(move |k| {
            let parts = entry.lines(RoundId::at(k)).len().div_ceil(LINES_A_PART);
            let lines = (0..parts).map(move |c| Part::Lines(d, k, c));
            std::iter::once(Part::Round(d, k)).chain(lines)
        });
        std::iter::once(Part::Division(d)).chain(rounds)
    })
}

/// The state `record` is at `version`: its head, and the parts that differ from those the store
/// holds (all of them for a record the store has not held in parts). `record.stored` becomes
/// what the store holds once this is written.
pub(crate) fn written(record: &mut Record, version: u64) -> StoredTournament {
    let changed: Vec<(Part, u64)> = parts(record)
        .map(|part| (part, part.hash(record)))
        .filter(|(part, hash)| record.stored.get(&part.key()) != Some(hash))
        .collect();
    let mut written = Vec::with_capacity(changed.len());
    for (part, hash) in changed {
        written.push((part.key(), part.text(record)));
        record.stored.insert(part.key(), hash);
    }
    let head = Head {
        slug: Cow::Borrowed(&record.slug),
        name: Cow::Borrowed(&record.name),
        settings: Some(Cow::Borrowed(&record.game)),
        game: None,
        seed: record.seed,
        events: record.events,
        divisions: record.divisions.iter().map(|d| Cow::Borrowed(d.division.name())).collect(),
    };
    StoredTournament { slug: record.slug.clone(), version, body: json(&head), parts: written }
}

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("a record's parts all write as JSON")
}

/// A stored tournament's record: INTERNAL naming what is wrong when it cannot be read (as this
/// build writes it, or as an earlier build did) or breaks the rules it was made by.
pub(crate) fn decode(stored: &StoredTournament) -> Result<Record, EventsError> {
    let unreadable =
        |e: String| EventsError::Internal(format!("tournament {} cannot be read: {e}", stored.slug));
    let record = if stored.body.first() == Some(&b'{') {
        read(stored)?
    } else {
        super::legacy::upgrade(&stored.body).map_err(unreadable)?
    };
    record.divisions.iter().try_for_each(DivisionRecord::check).map_err(unreadable)?;
    Ok(record)
}

/// This build's head and parts, as a record.
fn read(stored: &StoredTournament) -> Result<Record, EventsError> {
    let slug = &stored.slug;
    let unreadable = |what: &str, e: String| {
        EventsError::Internal(format!("tournament {slug}'s {what} cannot be read: {e}"))
    };
    let head: Head = serde_json::from_slice(&stored.body).map_err(|e| unreadable("state", e.to_string()))?;
    let game = match (head.settings, &head.game) {
        (Some(settings), _) => settings.into_owned(),
        (None, Some(hex)) => unhex(hex)
            .ok_or_else(|| "its games' settings are not theirs".to_string())
            .and_then(|bytes| crate::settings::settings_from_protobuf(&bytes))
            .map_err(|e| unreadable("state", e))?,
        (None, None) => return Err(unreadable("state", "it has no games' settings".into())),
    };
    let mut record = Record::new(&head.slug, &head.name, game, head.seed);
    record.events = head.events;
    let bodies: std::collections::HashMap<&str, &[u8]> =
        stored.parts.iter().map(|(key, body)| (key.as_str(), body.as_slice())).collect();
    for d in 0..head.divisions.len() {
        let part = |key: &str| {
            bodies.get(key).copied().ok_or_else(|| unreadable(&format!("part {key}"), "missing".into()))
        };
        let key = Part::Division(d).key();
        let division: DivisionPart = serde_json::from_slice(part(&key)?)
            .map_err(|e| unreadable(&format!("part {key}"), e.to_string()))?;
        let mut rounds = Vec::with_capacity(division.rounds);
        let mut games = Vec::with_capacity(division.rounds);
        let mut reports = std::collections::BTreeMap::new();
        for k in 0..division.rounds {
            let key = Part::Round(d, k).key();
            let round: RoundPart = serde_json::from_slice(part(&key)?)
                .map_err(|e| unreadable(&format!("part {key}"), e.to_string()))?;
            let (mut lines, mut kept_games) = (Vec::new(), Vec::new());
            let mut kept_reports = Vec::new();
            for c in 0..round.parts {
                let key = Part::Lines(d, k, c).key();
                let part: LinesPart = serde_json::from_slice(part(&key)?)
                    .map_err(|e| unreadable(&format!("part {key}"), e.to_string()))?;
                // (Games that do not fit their lines are refused with the division: `check`.)
                lines.extend(part.lines.into_owned());
                kept_games.extend(part.games.map(Cow::into_owned).unwrap_or_default());
                kept_reports.extend(part.reports.into_iter().map(|(i, r)| ((k, i), r)));
            }
            let pairings = round.paired.then_some(lines);
            rounds.push(Round { method: round.method, pairings, tables: round.tables });
            games.push(round.started.then_some(kept_games));
            reports.extend(kept_reports);
        }
        let tokens = (division.tokens.iter())
            .map(|t| match t.as_str() {
                "" => Ok(None),
                t => unhex(t).and_then(|b| TokenHash::try_from(b.as_slice()).ok()).map(Some).ok_or(()),
            })
            .collect::<Result<Vec<_>, ()>>()
            .map_err(|()| unreadable(&format!("part {key}"), "a token hash is not one".into()))?;
        let name = division.name.into_owned();
        let reports_mode = division.reports;
        let prizes = division.prizes.into_owned();
        let checked_in = division.checked_in.into_owned();
        let bots_only = division.bots_only;
        let review_ms = division.review_ms;
        let division =
            Division::restore(&name, division.players.into_owned(), rounds, division.controls.into_owned())
                .map_err(|e| unreadable(&format!("division {name}"), e.to_string()))?;
        record.divisions.push(DivisionRecord {
            division,
            games,
            tokens,
            reports_mode,
            reports,
            prizes,
            checked_in,
            bots_only,
            review_ms,
        });
    }
    // What the store holds, part by part.
    record.stored = parts(&record).map(|part| (part.key(), part.hash(&record))).collect();
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::super::record::{DivisionId, Source};
    use super::*;
    use dawgref_tournament::{GameResult, Method, PairingId};

    /// A tournament of one 6-player division over three manual rounds, round 1 paired.
    fn record() -> Record {
        let players =
            (0..6).map(|i| Player::new(format!("Player {}", ["A", "B", "C", "D", "E", "F"][i]), Some(1500)));
        let mut d = Division::new("open", players.collect(), &[Method::Manual; 3], Controls::default());
        let game = |a: u32, b: u32| dawgref_tournament::Pairing::Game {
            first: dawgref_tournament::PlayerId(a),
            second: dawgref_tournament::PlayerId(b),
            result: None,
        };
        d.set_pairings(0, vec![game(0, 1), game(2, 3), game(4, 5)]).unwrap();
        let mut record = Record::new("spring", "Spring", GameSettings::default(), 7);
        let tokens = (0..6).map(|i| (i != 5).then_some([i as u8; 32])).collect();
        record.divisions.push(DivisionRecord::new(d, tokens));
        record.divisions[0].games[0] = Some(vec!["g1".into(), "g2".into(), String::new()]);
        record
    }

    /// Two records hold the same tournament: name, settings, seed, events, and each division
    /// with its games and tokens.
    fn assert_same(a: &Record, b: &Record) {
        assert_eq!(
            (&a.slug, &a.name, &a.game, a.seed, a.events),
            (&b.slug, &b.name, &b.game, b.seed, b.events)
        );
        assert_eq!(a.divisions.len(), b.divisions.len());
        for (x, y) in a.divisions.iter().zip(&b.divisions) {
            assert_eq!((&x.division, &x.games, &x.tokens), (&y.division, &y.games, &y.tokens));
        }
    }

    fn keys(stored: &StoredTournament) -> Vec<&str> {
        stored.parts.iter().map(|(key, _)| key.as_str()).collect()
    }

    /// What a write holds, read back as the store would give it: every part written so far.
    fn read_back(all: &mut std::collections::BTreeMap<String, Vec<u8>>, stored: &StoredTournament) -> Record {
        all.extend(stored.parts.iter().cloned());
        let whole = StoredTournament { parts: all.clone().into_iter().collect(), ..stored.clone() };
        decode(&whole).unwrap()
    }

    #[test]
    fn a_change_writes_the_parts_it_changed_and_reads_back_whole() {
        let mut all = std::collections::BTreeMap::new();
        let mut rec = record();
        let first = written(&mut rec, 1);
        assert_eq!(keys(&first), ["0", "0.0", "0.0.0", "0.1", "0.2"], "a new record writes every part");
        let back = read_back(&mut all, &first);
        assert_same(&back, &rec);
        assert_eq!(back.divisions[0].tokens, rec.divisions[0].tokens);

        // A result writes its round, and nothing else but the head.
        let mut rec = back;
        rec.enter_result(
            DivisionId(0),
            RoundId(0),
            PairingId(1),
            GameResult::Scores([420, 380]),
            Source::Game,
        )
        .unwrap();
        let result = written(&mut rec, 2);
        assert_eq!(keys(&result), ["0.0.0"]);
        // Nothing changed: no part.
        assert_eq!(keys(&written(&mut rec.clone(), 3)), Vec::<&str>::new());
        let back = read_back(&mut all, &result);
        assert_eq!(back.division_at(DivisionId(0)), rec.division_at(DivisionId(0)));
        assert_eq!(back.events, 1, "the result's event counted in the head");

        // A withdrawal changes the players (their part) and forfeits the games paired.
        let mut rec = back;
        assert_eq!(rec.withdraw(DivisionId(0), 1).unwrap(), [(RoundId(0), PairingId(0))]);
        let withdrawn = written(&mut rec, 3);
        assert_eq!(keys(&withdrawn), ["0", "0.0.0"]);
        let back = read_back(&mut all, &withdrawn);
        assert_same(&back, &rec);
    }

    #[test]
    fn a_result_in_a_round_of_many_lines_writes_its_own_part_of_them() {
        let players = (0..200).map(|i| {
            Player::new(format!("Player {}{}", ["A", "B", "C"][i % 3], "x".repeat(i / 3)), Some(1500))
        });
        let mut d = Division::new("big", players.collect(), &[Method::Manual], Controls::default());
        let game = |a: u32| dawgref_tournament::Pairing::Game {
            first: dawgref_tournament::PlayerId(a),
            second: dawgref_tournament::PlayerId(a + 100),
            result: None,
        };
        d.set_pairings(0, (0..100).map(game).collect()).unwrap();
        let mut rec = Record::new("big", "Big", GameSettings::default(), 7);
        rec.divisions.push(DivisionRecord::new(d, vec![None; 200]));
        rec.divisions[0].games[0] = Some((0..100).map(|i| format!("game {i}")).collect());
        let mut all = std::collections::BTreeMap::new();
        let first = written(&mut rec, 1);
        assert_eq!(keys(&first), ["0", "0.0", "0.0.0", "0.0.1"], "100 lines in parts of 64");
        read_back(&mut all, &first);
        rec.enter_result(
            DivisionId(0),
            RoundId(0),
            PairingId(70),
            GameResult::Forfeit { winner: 1 },
            Source::Game,
        )
        .unwrap();
        let result = written(&mut rec, 2);
        assert_eq!(keys(&result), ["0.0.1"], "line 71 is in the second part");
        let back = read_back(&mut all, &result);
        assert_same(&back, &rec);
        assert_eq!(back.divisions[0].games, rec.divisions[0].games);
    }

    #[test]
    fn players_reports_the_reports_mode_the_prizes_and_a_bots_arena_are_kept_with_their_parts() {
        use super::super::record::{LineReports, ReportsMode};
        use dawgref_tournament::prizes::{Prize, PrizeKind, PrizeList};
        let mut all = std::collections::BTreeMap::new();
        let mut rec = record();
        rec.divisions[0].games[0] = None;
        let first = written(&mut rec, 1);
        read_back(&mut all, &first);
        // The mode and the prizes are the division's part; a report, its lines' part.
        rec.divisions[0].reports_mode = ReportsMode::BothAgree;
        rec.divisions[0].prizes = PrizeList::new(vec![Prize::new(PrizeKind::Place(1), "$100")]).unwrap();
        rec.divisions[0].bots_only = true;
        rec.divisions[0].review_ms = 250;
        let set = written(&mut rec, 2);
        assert_eq!(keys(&set), ["0"]);
        read_back(&mut all, &set);
        let report = LineReports { first: Some([400, 350]), second: None };
        rec.divisions[0].reports.insert((0, 2), report);
        let reported = written(&mut rec, 3);
        assert_eq!(keys(&reported), ["0.0.0"]);
        let back = read_back(&mut all, &reported);
        assert_eq!(back.divisions[0].reports_mode, ReportsMode::BothAgree);
        assert_eq!(back.divisions[0].prizes, rec.divisions[0].prizes);
        assert!(back.divisions[0].bots_only);
        assert_eq!(back.divisions[0].review_ms, 250);
        assert_eq!(back.divisions[0].reports.get(&(0, 2)), Some(&report));
        // A kept report of a line with its result is refused by name.
        let mut broken = rec.clone();
        broken.divisions[0].reports.insert((0, 0), report);
        broken.divisions[0]
            .division
            .record(0, 0, dawgref_tournament::GameResult::Scores([1, 2]), false)
            .unwrap();
        broken.stored.clear();
        let e = decode(&written(&mut broken, 4)).err().unwrap();
        assert_eq!(
            e.to_string(),
            "tournament spring cannot be read: division open: a report of round 1 line 1, which is no game waiting for its result"
        );
    }

    #[test]
    fn a_head_of_an_earlier_build_reads_its_games_settings_from_their_protobuf() {
        // The wire's numbers as that build kept them: 2 Russian, 3 a double challenge.
        let row = crate::settings::SettingsRow {
            ruleset: 2,
            lexicon: "ru".into(),
            challenge_rule: 3,
            clock: Some(crate::settings::ClockSettings { initial_ms: 1_500_000, ..Default::default() }),
            bot_delay_ms: Some(80),
            ..Default::default()
        };
        let settings = GameSettings {
            ruleset: Some(dawgref_engine::rules::RulesetKind::russian()),
            lexicon: "ru".into(),
            challenge: Some(dawgref_engine::game::ChallengeRule::Double),
            clock: row.clock,
            bot_delay_ms: Some(80),
            options: None,
        };
        let mut rec = record();
        rec.game = settings.clone();
        let mut stored = written(&mut rec, 1);
        // As an earlier build wrote the head: the settings' protobuf bytes in hex, under `game`.
        let mut head: serde_json::Value = serde_json::from_slice(&stored.body).unwrap();
        let object = head.as_object_mut().unwrap();
        assert!(object.remove("settings").is_some(), "this build writes `settings`");
        object.insert("game".into(), hex(&prost::Message::encode_to_vec(&row)).into());
        stored.body = serde_json::to_vec(&head).unwrap();
        let back = decode(&stored).unwrap();
        assert_eq!(back.game, settings);
        assert_same(&back, &rec);
        // A head with neither is refused by name.
        head.as_object_mut().unwrap().remove("game");
        stored.body = serde_json::to_vec(&head).unwrap();
        let e = decode(&stored).err().unwrap();
        assert_eq!(e.to_string(), "tournament spring's state cannot be read: it has no games' settings");
    }

    #[test]
    fn a_part_that_breaks_the_divisions_rules_is_refused_by_name() {
        let mut rec = record();
        let stored = written(&mut rec, 1);
        let mut broken = stored.clone();
        let round = broken.parts.iter_mut().find(|(key, _)| key == "0.0.0").unwrap();
        round.1 = String::from_utf8(round.1.clone())
            .unwrap()
            .replacen("\"second\":1", "\"second\":2", 1)
            .into_bytes();
        let e = decode(&broken).err().unwrap();
        assert!(matches!(e, EventsError::Internal(_)), "{e}");
        assert!(
            e.to_string().starts_with(
                "tournament spring's division open cannot be read: player 3 is in two pairings of round 1"
            ),
            "{}",
            e.to_string()
        );
        let mut missing = stored;
        missing.parts.retain(|(key, _)| key != "0.2");
        let e = decode(&missing).err().unwrap();
        assert_eq!(e.to_string(), "tournament spring's part 0.2 cannot be read: missing");
    }
}
