//! GCG game records, in both the macondo and the (older) Quackle dialects.
//!
//! ```text
//! #player1 nick Real Name
//! #lexicon NWL23
//! >nick: RACK 8D WINDY +32 32          a play (row-first across, column-first down, any case)
//! >nick: RACK -QO +0 32                an exchange (or -7: seven tiles)
//! >nick: RACK - +0 32                  a pass
//! >nick: RACK -- -24 8                 the last play withdrawn (Quackle writes +0)
//! >nick: RACK (challenge) +5 37        a failed challenge's bonus
//! >nick: (G) +4 41                     end-of-game rack points (2× in two-player NASPA records)
//! >nick: FWLI (FWLI) -10 31            a rack penalty
//! >nick: NU (time) -10 21              a time penalty
//! ```
//! Parsing keeps the text of each move; replaying and scoring it is [`crate::game::record`]'s.

use crate::text::clip;
use std::fmt;

/// A parsed record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    /// Players in seat order (`#player1`, `#player2`, …).
    pub players: Vec<Player>,
    pub lexicon: Option<String>,
    /// Other `#` lines, kept in order (`#note` lines excluded).
    pub pragmas: Vec<(String, String)>,
    pub moves: Vec<MoveLine>,
    /// The player a `#note NICK resigned` line names (dawgref writes it where a game ended by
    /// resignation; GCG has no move line for it).
    pub resigned: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    pub nick: String,
    pub name: String,
}

/// One `>` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveLine {
    /// 1-based line number in the file.
    pub line: usize,
    pub nick: String,
    /// The rack shown, if any.
    pub rack: Option<String>,
    pub kind: MoveKind,
    /// The written score of the line.
    pub score: i32,
    /// The written running total.
    pub cumulative: i32,
    /// The line as written.
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveKind {
    Play {
        coordinate: String,
        word: String,
    },
    Pass,
    /// Letters exchanged, or only a count.
    Exchange {
        tiles: String,
    },
    Withdrawn,
    ChallengeBonus,
    TimePenalty,
    /// `(RACK)`: points for a rack at the end (positive: collected; negative: a penalty).
    EndRack {
        rack: String,
    },
}

/// Malformed GCG text: the line and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("GCG line {line}: {kind}")]
pub struct GcgError {
    pub line: usize,
    pub kind: GcgErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GcgErrorKind {
    #[error("a move line needs '>nick: … score total'")]
    MoveShape,
    #[error("not a score: {0:?}")]
    Score(String),
    #[error("unrecognized move {0:?}")]
    Move(String),
    #[error("player pragma needs a nick: {0:?}")]
    Player(String),
    #[error("player number {0} (a record has players 1 to {MAX_PLAYERS})")]
    PlayerNumber(usize),
    #[error("no moves")]
    Empty,
}

fn score(s: &str, line: usize) -> Result<i32, GcgError> {
    let t = s.strip_prefix('+').unwrap_or(s);
    t.parse().map_err(|_| GcgError { line, kind: GcgErrorKind::Score(clip(s)) })
}

/// A rack: letters, `?` blanks, tiles of several letters in brackets (`[CH]`), and the other
/// spellings some alphabets give in digits or signs (Spanish's 1 2 3, Catalan's L·L). A coordinate
/// or a score is not one: it starts with a digit or a sign.
fn is_rack(s: &str) -> bool {
    let first = s.chars().next();
    first.is_some_and(|c| c.is_alphabetic() || c == '?' || c == '[')
        && s.chars().all(|c| c.is_alphabetic() || matches!(c, '?' | '[' | ']' | '·'))
}

/// Most players a record may name (the game has at most 4; a record naming `#player99999999`
/// must not make the parser allocate for them).
pub const MAX_PLAYERS: usize = 8;

/// Parse a GCG record.
pub fn parse(text: &str) -> Result<Record, GcgError> {
    let mut rec = Record::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim_end_matches('\r').trim();
        if l.is_empty() {
            continue;
        }
        if let Some(p) = l.strip_prefix('#') {
            let mut it = p.splitn(2, char::is_whitespace);
            let key = it.next().unwrap_or("").to_string();
            let value = it.next().unwrap_or("").trim().to_string();
            if let Some(n) = key.strip_prefix("player").and_then(|n| n.parse::<usize>().ok()) {
                if !(1..=MAX_PLAYERS).contains(&n) {
                    return Err(GcgError { line, kind: GcgErrorKind::PlayerNumber(n) });
                }
                let mut parts = value.splitn(2, char::is_whitespace);
                let nick = parts.next().unwrap_or("").to_string();
                if nick.is_empty() {
                    return Err(GcgError { line, kind: GcgErrorKind::Player(clip(l)) });
                }
                let name = parts.next().unwrap_or(&nick).trim().to_string();
                if rec.players.len() < n {
                    rec.players.resize(n, Player { nick: String::new(), name: String::new() });
                }
                rec.players[n - 1] = Player { nick, name };
            } else if key == "lexicon" {
                rec.lexicon = Some(value);
            } else if key == "note" {
                if let [nick, "resigned"] = value.split_whitespace().collect::<Vec<_>>()[..] {
                    rec.resigned = Some(nick.to_string());
                }
            } else {
                rec.pragmas.push((key, value));
            }
            continue;
        }
        let Some(body) = l.strip_prefix('>') else { continue };
        let Some((nick, rest)) = body.split_once(':') else {
            return Err(GcgError { line, kind: GcgErrorKind::MoveShape });
        };
        let tokens: Vec<&str> = rest.split_whitespace().collect();
        if tokens.len() < 3 {
            return Err(GcgError { line, kind: GcgErrorKind::MoveShape });
        }
        let cumulative = score(tokens[tokens.len() - 1], line)?;
        let points = score(tokens[tokens.len() - 2], line)?;
        let middle = &tokens[..tokens.len() - 2];
        let (rack, kind) = move_kind(middle)
            .ok_or_else(|| GcgError { line, kind: GcgErrorKind::Move(clip(&middle.join(" "))) })?;
        rec.moves.push(MoveLine {
            line,
            nick: nick.trim().to_string(),
            rack,
            kind,
            score: points,
            cumulative,
            text: l.to_string(),
        });
    }
    if rec.moves.is_empty() {
        return Err(GcgError { line: text.lines().count(), kind: GcgErrorKind::Empty });
    }
    // Players named only by their move lines (no pragmas) get seats in order of appearance.
    for m in &rec.moves {
        if !rec.players.iter().any(|p| p.nick == m.nick) {
            rec.players.push(Player { nick: m.nick.clone(), name: m.nick.clone() });
        }
    }
    rec.players.retain(|p| !p.nick.is_empty());
    Ok(rec)
}

/// The rack (if shown) and the move of a line's middle tokens.
fn move_kind(tokens: &[&str]) -> Option<(Option<String>, MoveKind)> {
    let (rack, rest): (Option<String>, &[&str]) = match tokens {
        [r, rest @ ..] if !rest.is_empty() && is_rack(r) => (Some(r.to_string()), rest),
        _ => (None, tokens),
    };
    let kind = match rest {
        ["--"] => MoveKind::Withdrawn,
        ["-"] => MoveKind::Pass,
        [t] if t.starts_with('-') => MoveKind::Exchange { tiles: t[1..].to_string() },
        [t] if t.eq_ignore_ascii_case("(challenge)") => MoveKind::ChallengeBonus,
        [t] if t.eq_ignore_ascii_case("(time)") => MoveKind::TimePenalty,
        [t] if t.starts_with('(') && t.ends_with(')') && t.len() >= 2 => {
            MoveKind::EndRack { rack: t[1..t.len() - 1].to_string() }
        }
        [coordinate, word] => MoveKind::Play { coordinate: coordinate.to_string(), word: word.to_string() },
        // A rack-less end line: `>nick: (ENOR) +8 481` was taken as rack + nothing; handled above.
        _ => return None,
    };
    Some((rack, kind))
}

impl fmt::Display for MoveLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects() {
        let text = "#player1 Brian Brian Cappelletto\n#player2 Pakorn Pakorn N\n\
            >Brian: CNNTU?? 8b NoCTUrN +70 70\n>Pakorn: LWGRAKE   -- +0 59\n\
            >Brian: ACDEJOQ   (challenge) +5 339\n>Brian:    (ENOR) +8 481\n\
            >x: EEKOQRS -EQ +0 0\n>x: ?AHLNUU - +0 405\n>x: NU (time) -10 422\n>x: FWLI (FWLI) -10 31\n";
        let r = parse(text).unwrap();
        assert_eq!(r.players.len(), 3);
        assert_eq!(r.players[1].name, "Pakorn N");
        let kinds: Vec<&MoveKind> = r.moves.iter().map(|m| &m.kind).collect();
        assert_eq!(
            kinds,
            [
                &MoveKind::Play { coordinate: "8b".into(), word: "NoCTUrN".into() },
                &MoveKind::Withdrawn,
                &MoveKind::ChallengeBonus,
                &MoveKind::EndRack { rack: "ENOR".into() },
                &MoveKind::Exchange { tiles: "EQ".into() },
                &MoveKind::Pass,
                &MoveKind::TimePenalty,
                &MoveKind::EndRack { rack: "FWLI".into() },
            ]
        );
        assert_eq!((r.moves[3].score, r.moves[3].cumulative, r.moves[3].rack.clone()), (8, 481, None));
        assert_eq!(r.moves[7].score, -10);
    }

    #[test]
    fn malformed_lines_name_their_number() {
        assert_eq!(
            parse("#player1 a a\n>a 8H CAT +10 10\n").unwrap_err(),
            GcgError { line: 2, kind: GcgErrorKind::MoveShape }
        );
        assert_eq!(
            parse(">a: CAT 8H CAT +x 10\n").unwrap_err(),
            GcgError { line: 1, kind: GcgErrorKind::Score("+x".into()) }
        );
        assert_eq!(parse(">a: A B C D +1 1\n").unwrap_err().kind, GcgErrorKind::Move("A B C D".into()));
        assert_eq!(parse("#player1 a a\n").unwrap_err().kind, GcgErrorKind::Empty);
    }
}
