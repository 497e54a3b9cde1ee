//! Tables (TSH's "boards"): the number of the table each game of a round is played at, assigned
//! when the round is paired and kept with its pairings ([`crate::Round::tables`]), and a
//! director's reserved table for a player who needs a fixed one (a wheelchair's place, a
//! player who cannot move far: [`Division::set_reserved_table`]).
//!
//! The rule, as TSH assigns boards (`TSH::Division::ComputeBoards`, run when TSH shows a round's
//! pairings), over the round's lines in their order: a method's lines have
//! the better-ranked player's game first, as TSH sorts pairs by the standings before the round;
//! the director's own lines are theirs, top table first:
//! 1. each game line, in order, takes the first of its wishes no earlier line has taken: its
//!    first player's reserved table, then its second player's (TSH's `config reserved{'A'}[13]
//!    = 4` keeps player A13 at board 4; of a pair both reserving, the one listed first is tried
//!    first);
//! 2. the other game lines, in order, take the lowest tables no line has taken, so a reserved
//!    table beyond the round's count leaves the tables between it and the others empty;
//! 3. a bye has no table (0, as TSH's `board` field writes "no board").
//!
//! Two players may reserve the same table, as TSH's configuration lets them: when both are
//! paired in a round the first line holding one of them takes it and the other's line goes on to
//! its other player's reservation, else rule 2 (TSH tells the director, `eboardfull`, and seats
//! that pair with the rest). Where TSH
//! tries only the better-ranked player's reservation, a line here tries its second player's when
//! its first player's is taken: a director reserving a table for either expects it kept. TSH's
//! `board_stability` (keeping a pair at last round's board) is not followed: tables go by the
//! order of the lines.
//!
//! A round's tables stand once assigned: a reservation changed later applies from the next
//! round paired (TSH keeps a board once assigned the same way), and a round paired again is
//! assigned afresh. A `.t` file's `board` field ([`crate::tsh`]) is kept as it was assigned: its
//! numbers are each line's first wishes when the file is read.

use crate::division::{Division, Error, MAX_TABLE, Pairing, PlayerId, shown};
use std::collections::HashSet;

/// The tables of `lines`, one a line (0 for a bye): each game line takes the first of its
/// `wishes` (by line index) that is a table and no earlier line has taken, the rest the lowest
/// tables no line has taken.
pub(crate) fn assign(lines: &[Pairing], wishes: impl Fn(usize) -> Vec<u32>) -> Vec<u32> {
    let mut tables = vec![0; lines.len()];
    let mut taken = HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if matches!(line, Pairing::Game { .. }) {
            let wanted = wishes(i).into_iter().find(|&t| (1..=MAX_TABLE).contains(&t) && !taken.contains(&t));
            if let Some(t) = wanted {
                taken.insert(t);
                tables[i] = t;
            }
        }
    }
    let mut next = 1;
    for (i, line) in lines.iter().enumerate() {
        if matches!(line, Pairing::Game { .. }) && tables[i] == 0 {
            while taken.contains(&next) {
                next += 1;
            }
            taken.insert(next);
            tables[i] = next;
        }
    }
    tables
}

/// What is wrong with `tables` as the tables of `lines` (round `round`, from 0), if anything:
/// one a line, 0 exactly for a bye, each game's a table of its own.
pub(crate) fn problem(round: usize, lines: &[Pairing], tables: &[u32]) -> Option<String> {
    let round = shown(round);
    if tables.len() != lines.len() {
        return Some(format!("round {round} has {} lines and {} tables", lines.len(), tables.len()));
    }
    let mut taken = HashSet::new();
    for (i, (line, &t)) in lines.iter().zip(tables).enumerate() {
        let pairing = i + 1;
        match line {
            Pairing::Bye { .. } if t != 0 => {
                return Some(format!("round {round}'s pairing {pairing} is a bye, yet has table {t}"));
            }
            Pairing::Game { .. } if !(1..=MAX_TABLE).contains(&t) => {
                return Some(format!(
                    "round {round}'s pairing {pairing} has table {t}: tables are numbered 1 to {MAX_TABLE}"
                ));
            }
            Pairing::Game { .. } if !taken.insert(t) => {
                return Some(format!("round {round} has two games at table {t}"));
            }
            _ => {}
        }
    }
    None
}

impl Division {
    /// Reserve table `table` for `player` (None: no reservation), kept for them in every round
    /// paired from now on (the `tables` module's rule). A table is 1 to [`MAX_TABLE`]; two players
    /// may reserve the same one, as TSH lets them (the first line paired takes it).
    pub fn set_reserved_table(&mut self, player: PlayerId, table: Option<u32>) -> Result<(), Error> {
        self.check_player(player)?;
        if let Some(t) = table
            && !(1..=MAX_TABLE).contains(&t)
        {
            return Err(Error::NoSuchTable { table: t });
        }
        self.players[player.index()].reserved_table = table;
        Ok(())
    }

    /// The table of round `round`'s line `line` (both from 0): None for a bye, a round not
    /// paired, or a line not there.
    pub fn table(&self, round: usize, line: usize) -> Option<u32> {
        let tables = self.rounds.get(round)?.tables.as_ref()?;
        tables.get(line).copied().filter(|&t| t != 0)
    }

    /// The tables of `lines` as the rule assigns them, by the players' reserved tables.
    fn tables_for(&self, lines: &[Pairing]) -> Vec<u32> {
        let reserved = |p: PlayerId| self.players.get(p.index()).and_then(|p| p.reserved_table);
        assign(lines, |i| lines[i].players().filter_map(reserved).collect())
    }

    /// Round `round`'s tables assigned afresh for its pairings (None while unpaired).
    pub(crate) fn assign_tables(&mut self, round: usize) {
        let tables = self.rounds[round].pairings.as_deref().map(|lines| self.tables_for(lines));
        self.rounds[round].tables = tables;
    }
}

impl Division {
    /// Each paired round's tables against its lines ([`problem`]; none is left for `restore` to
    /// assign), none for a round not paired, and each player's reserved table within bounds.
    pub(crate) fn check_tables(&self) -> Result<(), Error> {
        for (k, round) in self.rounds.iter().enumerate() {
            match (&round.pairings, &round.tables) {
                (Some(lines), Some(tables)) => {
                    if let Some(why) = problem(k, lines, tables) {
                        return Err(Error::Invalid(why));
                    }
                }
                (None, Some(_)) => {
                    return Err(Error::Invalid(format!("round {} is not paired, yet has tables", shown(k))));
                }
                (_, None) => {}
            }
        }
        for player in &self.players {
            if let Some(t) = player.reserved_table
                && !(1..=MAX_TABLE).contains(&t)
            {
                return Err(Error::NoSuchTable { table: t });
            }
        }
        Ok(())
    }
}
