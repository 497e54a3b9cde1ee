//! Records an earlier build wrote: the wire's `Tournament` message itself (with its sentinels: a
//! `second` of 0 for a bye, a `forfeited_by` of 0 for none), each player's token hash and the
//! seed, as one prost message, perhaps with its events and kept answers inside. Read once and
//! upgraded to the record this build keeps; written back as that at the tournament's next
//! change.

use super::record::{Answer, DivisionRecord, Record, controls, method};
use crate::proto::v1 as pb;
use dawgref_tournament::{Division, GameResult, Pairing, Player, PlayerId, Round};

#[derive(Clone, PartialEq, prost::Message)]
struct Legacy {
    #[prost(message, optional, tag = "1")]
    tournament: Option<pb::Tournament>,
    /// Per division, per player: the token's SHA-256 (empty for a bot).
    #[prost(message, repeated, tag = "2")]
    hashes: Vec<Hashes>,
    #[prost(uint64, tag = "3")]
    seed: u64,
    #[prost(message, repeated, tag = "4")]
    events: Vec<pb::WatchTournamentResponse>,
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

/// The record an earlier build's `body` holds, as this build keeps it (its carried events and
/// answers unwritten, to become rows at its next change); what makes it unreadable, named.
pub(super) fn upgrade(body: &[u8]) -> Result<Record, String> {
    let old = <Legacy as prost::Message>::decode(body).map_err(|e| e.to_string())?;
    let t = old.tournament.ok_or("the record holds no tournament")?;
    let mut record = Record::new(&t.slug, &t.name, t.game.unwrap_or_default(), old.seed);
    record.events = t.events;
    for (d, div) in t.divisions.into_iter().enumerate() {
        let players: Vec<Player> = (div.players.iter())
            .map(|p| Player {
                name: p.name.clone(),
                rating: p.rating,
                withdrawn: p.withdrawn,
                bot: p
                    .bot
                    .and_then(|l| super::super::convert::bot_from(l).ok())
                    .map(|l| l.name().to_string()),
            })
            .collect();
        let rounds = (div.rounds.iter())
            .map(|r| Round {
                method: method(r.spec.as_ref()),
                pairings: r.paired.then(|| r.pairings.iter().map(pairing).collect()),
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
            controls(&div.controls.unwrap_or_default(), seed),
        )
        .map_err(|e| format!("division {}: {e}", div.name))?;
        let hashes = old.hashes.get(d).map(|h| h.players.as_slice()).unwrap_or_default();
        let tokens = (0..division.players().len())
            .map(|i| hashes.get(i).and_then(|h| <[u8; 32]>::try_from(h.as_slice()).ok()))
            .collect();
        record.divisions.push(DivisionRecord { division, games, tokens });
    }
    record.unwritten = old.events;
    record.answers = old.answers.into_iter().map(|a| Answer { key: a.key, body: a.body }).collect();
    Ok(record)
}

/// A line as the wire wrote it.
fn pairing(p: &pb::TournamentPairing) -> Pairing {
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
