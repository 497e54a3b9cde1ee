//! `dawgref-lab vs-magpie …`: what `vs-magpie/run.sh h2h` needs of ours to play MAGPIE
//! (vs-magpie/README.md):
//! - `leaves`: our English leave table as MAGPIE's `convert csv2klv` reads it, so that MAGPIE
//!   values a leave as the champion does;
//! - `h2h`: the champion against MAGPIE's timed player ([`crate::magpie_player`]), each deal
//!   played from both seats, each game written as GCG with both sides' thinking times, and the
//!   champion's wins, spread and split by seat summed up.

use super::CliResult;
use crate::magpie_player::{self, MagpiePlayer, champion_options};
use crate::setup::duration;
use clap::{Args, Subcommand};
use dawgref::alphabet::Letter;
use dawgref::bot::{ChampionOptions, champion_action};
use dawgref::game::record::write_gcg;
use dawgref::game::{ChallengeRule, Game, GameConfig};
use dawgref::leaves::{LeaveTable, MAX_LISTED};
use dawgref::lexicon::Lexicon;
use dawgref::rack::Rack;
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::selfplay::MatchResult;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Subcommand, Debug)]
pub enum VsMagpieCommand {
    /// Our English leave table as MAGPIE's `convert csv2klv` reads it, on standard output:
    /// `LEAVE,VALUE` for every leave of 1 to 6 tiles the English tile set allows (`?` a blank),
    /// valued as the champion values it with tiles still to draw.
    Leaves,
    /// The champion against MAGPIE's timed player, one thread and the same time a move each:
    /// every deal played twice, each side moving first once.
    H2h(H2hArgs),
    /// Where the champion and MAGPIE choose differently: both asked every turn of games
    /// between them, their disagreements judged by our simulation and endgame solver.
    Disagree(crate::magpie_disagree::DisagreeArgs),
}

#[derive(Args, Debug)]
pub struct H2hArgs {
    /// Deals to play; each is played twice, the champion moving first in one game and MAGPIE
    /// in the other.
    #[arg(long, default_value_t = 50)]
    deals: u64,
    /// Each side's thinking time a move, in seconds (more than 0, at most 60).
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// Deal `d` (from 0) is the bag seeded by `seed + d`.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    pub(crate) sides: crate::magpie_player::Sides,
    /// Where each game's GCG, `errors.txt` and `summary.txt` are written.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(command: VsMagpieCommand) -> CliResult {
    match command {
        VsMagpieCommand::Leaves => leaves(),
        VsMagpieCommand::H2h(args) => h2h(args),
        VsMagpieCommand::Disagree(args) => crate::magpie_disagree::disagree(args),
    }
}

fn leaves() -> CliResult {
    let kind = RulesetKind::english();
    let rules = Ruleset::new(kind);
    let table = LeaveTable::shipped(kind);
    let kinds: Vec<(Option<Letter>, u8)> = rules.full_set().kinds().collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut written = Ok(());
    every_leave(&kinds, &mut Rack::new(), &mut |leave| {
        if written.is_ok() {
            written = writeln!(out, "{},{:.3}", leave.to_string(rules.alphabet), table.value(leave));
        }
    });
    written?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Calls `each` once with every leave of 1 to [`MAX_LISTED`] tiles made of `kinds` (each tile
/// and its copies in the set) added to `leave`: tiles are added in `kinds`' order only, so no
/// leave comes twice.
fn every_leave(kinds: &[(Option<Letter>, u8)], leave: &mut Rack, each: &mut dyn FnMut(&Rack)) {
    if leave.len() == MAX_LISTED {
        return;
    }
    for (i, &(tile, copies)) in kinds.iter().enumerate() {
        if tile.map_or(leave.blanks(), |l| leave.count(l)) >= copies {
            continue;
        }
        match tile {
            Some(l) => leave.add(l),
            None => leave.add_blank(),
        }
        each(leave);
        every_leave(&kinds[i..], leave, each);
        match tile {
            Some(l) => leave.take(l),
            None => leave.take_blank(),
        };
    }
}

/// One game played to its end (or to a harness error).
struct Played {
    deal: u64,
    champion_seat: usize,
    game: Game,
    /// Each move's thinking, in order.
    moves: Vec<Thought>,
}

/// One move's thinking.
struct Thought {
    champion: bool,
    ms: f64,
    /// Tiles in the bag when it was made (which part of a player thought).
    bag: usize,
    /// The position as MAGPIE is shown it, from the mover's side ([`magpie_player::position`]).
    position: String,
}

/// A champion line of `overruns.txt` ([`Played::overruns`]) read back: its record's file name,
/// the move's turn (from 0: move `n` is turn `n - 1`) and its time in milliseconds; `None` for
/// MAGPIE's lines and anything else.
pub(crate) fn champion_overrun(line: &str) -> Option<(&str, u32, f64)> {
    let (file, rest) = line.split_once(" move ")?;
    let (n, rest) = rest.split_once(": champion ")?;
    let (ms, _) = rest.split_once(" ms")?;
    Some((file, n.parse::<u32>().ok()?.checked_sub(1)?, ms.parse().ok()?))
}

impl Played {
    fn champion_spread(&self) -> i32 {
        let s = self.game.scores();
        s[self.champion_seat] - s[1 - self.champion_seat]
    }

    /// A line for each move that took `limit_ms` or more: where it is, who thought how long,
    /// and the position as MAGPIE's player reads it (`cgp …`, to time it again).
    fn overruns(&self, limit_ms: f64) -> Vec<String> {
        let who = |t: &Thought| if t.champion { "champion" } else { "MAGPIE" };
        (self.moves.iter().enumerate())
            .filter(|(_, t)| t.ms >= limit_ms)
            .map(|(i, t)| {
                let (name, bag) = (self.file_name(), t.bag);
                format!(
                    "{name} move {}: {} {:.0} ms, {bag} in the bag: cgp {}",
                    i + 1,
                    who(t),
                    t.ms,
                    t.position
                )
            })
            .collect()
    }

    fn file_name(&self) -> String {
        let first = if self.champion_seat == 0 { "champion" } else { "magpie" };
        format!("deal-{}-{first}-first.gcg", self.deal)
    }

    /// The game as GCG, each move followed by a `#note` of its side's thinking time and the
    /// tiles then in the bag.
    fn gcg(&self) -> Result<String, String> {
        let mut names = vec!["MAGPIE".to_string(); 2];
        names[self.champion_seat] = "champion".to_string();
        let plain = write_gcg(&self.game, &names);
        let mut notes = self.moves.iter();
        let mut out = String::with_capacity(plain.len() + 32 * self.moves.len());
        for line in plain.lines() {
            out.push_str(line);
            out.push('\n');
            // Move lines: `>nick: RACK MOVE …`; the end's rack lines have `(TILES)` instead.
            let fields: Vec<&str> = line.split_whitespace().take(3).collect();
            if line.starts_with('>') && fields.len() == 3 && !fields[1..].iter().any(|f| f.starts_with('(')) {
                let Some(t) = notes.next() else {
                    return Err(format!("{}: more move lines than moves", self.file_name()));
                };
                let who = if t.champion { "champion" } else { "MAGPIE" };
                let _ = writeln!(out, "#note {who} thought {:.0} ms, {} in the bag", t.ms, t.bag);
            }
        }
        if notes.next().is_some() {
            return Err(format!("{}: fewer move lines than moves", self.file_name()));
        }
        Ok(out)
    }
}

/// Plays one game of deal `deal` (its bag seeded by it), the champion in `champion_seat`.
/// The game so far comes back with the harness error that stopped it, if one did: a move of
/// MAGPIE's we refuse, or scored otherwise than MAGPIE scored it, or a position it refused.
fn play(
    magpie: &mut MagpiePlayer,
    rules: &Arc<Ruleset>,
    lexicon: &Arc<Lexicon>,
    deal: u64,
    champion_seat: usize,
    budget: Duration,
    options: &ChampionOptions,
) -> Result<(Played, Option<String>), Box<dyn std::error::Error>> {
    let mut config = GameConfig::new(rules.clone(), lexicon.clone(), deal);
    // Neither side plays a word outside the lexicon; a move of MAGPIE's that does is refused.
    config.challenge = ChallengeRule::Void;
    let game = Game::new(config)?;
    let mut played = Played { deal, champion_seat, game, moves: Vec::new() };
    let mut now = 0;
    while !played.game.is_over() {
        let game = &mut played.game;
        let seat = game.to_move();
        now += 1000;
        let bag = game.bag_len();
        let turn = game.turn();
        let position = magpie_player::position(game, deal.wrapping_mul(1000).wrapping_add(u64::from(turn)))?;
        if seat == champion_seat {
            let started = Instant::now();
            let action = champion_action(game, seat, budget, options);
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            game.act(seat, action, now)?;
            played.moves.push(Thought { champion: true, ms, bag, position });
            continue;
        }
        let at = |what: String| Some(format!("deal {deal}, turn {}, position {position}: {what}", turn + 1));
        let answer = match magpie.choose(game, &position) {
            Ok(answer) => answer,
            Err(e) => return Ok((played, at(e))),
        };
        if let Err(e) = game.act(seat, answer.action, now) {
            return Ok((played, at(format!("MAGPIE's move {} is refused: {e}", answer.text))));
        }
        played.moves.push(Thought { champion: false, ms: answer.ms, bag, position: position.clone() });
        let ours = game.history().iter().rev().find(|e| e.kind.takes_turn()).map_or(0, |e| e.points);
        if ours != answer.score {
            return Ok((played, at(format!("MAGPIE's move {} scores {ours} by our rules", answer.text))));
        }
    }
    Ok((played, None))
}

fn h2h(args: H2hArgs) -> CliResult {
    if !(args.seconds > 0.0 && args.seconds <= 60.0) {
        return Err(format!("--seconds {}: expected more than 0 and at most 60", args.seconds).into());
    }
    if args.deals == 0 {
        return Err("--deals 0: expected at least one deal".into());
    }
    let (rules, lexicon) = crate::setup::ruleset(RulesetKind::english())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot make {}: {e}", args.out.display()))?;
    let budget = Duration::from_secs_f64(args.seconds);
    let options = champion_options(args.sides.champion.as_deref(), &rules)?;
    let (mut magpie, warm) = args.sides.start_magpie(args.seconds, args.seed, &rules, &lexicon)?;
    println!("MAGPIE's player started, and warmed up on an endgame in {warm:.0} ms (its endgame table made)");
    let games = 2 * args.deals;
    let started = Instant::now();
    let mut results: Vec<Played> = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut overruns: Vec<String> = Vec::new();
    // A deal one of whose games was not counted is not counted at all: each deal counts from
    // both seats or not.
    let mut void_deal = None;
    for g in 0..games {
        let (deal, champion_seat) = (args.seed + g / 2, (g % 2) as usize);
        if void_deal == Some(deal) {
            println!(
                "game {}/{games}, deal {deal}: not played (its deal's other game was not counted)",
                g + 1
            );
            continue;
        }
        let (played, error) = play(&mut magpie, &rules, &lexicon, deal, champion_seat, budget, &options)?;
        std::fs::write(args.out.join(played.file_name()), played.gcg()?)?;
        let before = overruns.len();
        overruns.extend(played.overruns(1500.0 * args.seconds));
        if overruns.len() > before {
            std::fs::write(args.out.join("overruns.txt"), overruns.join("\n") + "\n")?;
        }
        let first = if champion_seat == 0 { "champion first" } else { "MAGPIE first" };
        let done = (g + 1) as f64;
        let elapsed = started.elapsed().as_secs_f64();
        let left = duration(elapsed / done * (games as f64 - done));
        let scores = played.game.scores();
        let (ours, theirs) = (scores[champion_seat], scores[1 - champion_seat]);
        match &error {
            Some(e) => {
                println!("game {}/{games}, deal {deal}, {first}: HARNESS ERROR, not counted: {e}", g + 1);
                errors.push(format!("{}: {e}", played.file_name()));
                std::fs::write(args.out.join("errors.txt"), errors.join("\n") + "\n")?;
                results.retain(|p| p.deal != deal);
                void_deal = Some(deal);
                if magpie.broken() {
                    // The one that hangs is let go (killed if it does not end); a new one goes on.
                    drop(magpie);
                    let warm;
                    (magpie, warm) =
                        args.sides.start_magpie(args.seconds, args.seed + g, &rules, &lexicon)?;
                    println!("MAGPIE's player no longer answered: started again (warmed up in {warm:.0} ms)");
                }
            }
            None => {
                results.push(played);
                let wins =
                    MatchResult { spreads: results.iter().map(Played::champion_spread).collect() }.wins().0;
                println!(
                    "game {}/{games}, deal {deal}, {first}: champion {ours} MAGPIE {theirs} ({:+}); \
                     champion {:.1} of {} so far; {} gone, about {left} left",
                    g + 1,
                    ours - theirs,
                    wins * results.len() as f64,
                    results.len(),
                    duration(elapsed),
                );
            }
        }
    }
    let summary = summary(&args, &results, errors.len(), started.elapsed().as_secs_f64());
    print!("{summary}");
    std::fs::write(args.out.join("summary.txt"), &summary)?;
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// `W of N games, P% ± E, mean spread +S ± E` for the champion.
fn record(played: &[&Played]) -> String {
    let result = MatchResult { spreads: played.iter().map(|p| p.champion_spread()).collect() };
    let ((wins, wins_error), (spread, spread_error)) = (result.wins(), result.mean_spread());
    format!(
        "{:.1} of {} games, {:.1}% ± {:.1}, mean spread {spread:+.1} ± {spread_error:.1}",
        wins * played.len() as f64,
        played.len(),
        100.0 * wins,
        100.0 * wins_error,
    )
}

/// Mean and max of one side's thinking times a move, and the moves that took half as long
/// again as `budget_ms` or more, by the tiles in the bag (which part of the player ran).
fn times(results: &[Played], champion: bool, budget_ms: f64) -> String {
    let moves: Vec<&Thought> =
        results.iter().flat_map(|p| &p.moves).filter(|t| t.champion == champion).collect();
    let mean = moves.iter().map(|t| t.ms).sum::<f64>() / moves.len().max(1) as f64;
    let max = moves.iter().map(|t| t.ms).fold(0.0, f64::max);
    let over: Vec<&&Thought> = moves.iter().filter(|t| t.ms >= 1.5 * budget_ms).collect();
    let with = |bags: std::ops::RangeInclusive<usize>| over.iter().filter(|t| bags.contains(&t.bag)).count();
    format!(
        "mean {mean:.0} ms, max {max:.0} ms over {} moves; {} over 1.5× the budget \
         ({} with 5 or more in the bag, {} with 1 to 4, {} with none)",
        moves.len(),
        over.len(),
        with(5..=usize::MAX),
        with(1..=4),
        with(0..=0),
    )
}

fn summary(args: &H2hArgs, results: &[Played], errors: usize, seconds: f64) -> String {
    let all: Vec<&Played> = results.iter().collect();
    let seat = |s: usize| -> Vec<&Played> { results.iter().filter(|p| p.champion_seat == s).collect() };
    let mut out = String::new();
    let champion = args.sides.champion.as_ref().map_or("champion".to_string(), |v| format!("champion+{v}"));
    let _ = writeln!(
        out,
        "{champion} vs MAGPIE's timed player (its PlayChooser: simulation of 15 candidates, 2 plies; \
         pre-endgame with 1 to 4 in the bag; endgame), one thread each, {} s a move each; \
         {} from seed {}, each from both seats",
        args.seconds,
        plural(args.deals as usize, "deal"),
        args.seed
    );
    let _ = writeln!(out, "champion wins {}", record(&all));
    let _ = writeln!(out, "  moving first:  {}", record(&seat(0)));
    let _ = writeln!(out, "  moving second: {}", record(&seat(1)));
    let budget_ms = 1000.0 * args.seconds;
    let _ = writeln!(out, "thinking time a move: champion {}", times(results, true, budget_ms));
    let _ = writeln!(out, "                      MAGPIE   {}", times(results, false, budget_ms));
    if results.iter().flat_map(|p| &p.moves).any(|t| t.ms >= 1.5 * budget_ms) {
        let _ = writeln!(
            out,
            "those moves' positions, to time again: {}",
            args.out.join("overruns.txt").display()
        );
    }
    let per_game = seconds / (results.len() + errors).max(1) as f64;
    let _ = writeln!(
        out,
        "{} in {} ({:.1} s a game)",
        plural(results.len() + errors, "game"),
        duration(seconds),
        per_game
    );
    if errors > 0 {
        let _ = writeln!(
            out,
            "HARNESS ERRORS: {} not counted, nor their deals' other games; see {}",
            plural(errors, "game"),
            args.out.join("errors.txt").display()
        );
    }
    out
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dawgref::bot::{BotLevel, play_while};

    /// MAGPIE's English leave table has 914,624 leaves of 1 to 6 tiles (`convert klv2csv`
    /// lists them): each comes once, and none holds more of a tile than the set.
    #[test]
    fn every_english_leave_once() {
        let rules = Ruleset::new(RulesetKind::english());
        let set = rules.full_set();
        let kinds: Vec<(Option<Letter>, u8)> = set.kinds().collect();
        let mut seen = std::collections::HashSet::new();
        let mut bad = 0;
        every_leave(&kinds, &mut Rack::new(), &mut |leave| {
            bad += usize::from(!(1..=MAX_LISTED).contains(&leave.len()) || !set.contains(leave));
            seen.insert(leave.to_string(rules.alphabet));
        });
        assert_eq!((seen.len(), bad), (914_624, 0));
        assert!(seen.contains("EEEE??") && seen.contains("Q") && !seen.contains("QQ"));
    }

    fn played(moves: usize) -> Played {
        let (rules, lexicon) = crate::setup::ruleset(RulesetKind::english()).unwrap();
        let mut game = Game::new(GameConfig::new(rules, lexicon, 4)).unwrap();
        play_while(&mut game, &[BotLevel::Strong], 1000, |_| true).unwrap();
        Played {
            deal: 4,
            champion_seat: 1,
            game,
            moves: (0..moves)
                .map(|i| Thought {
                    champion: i % 2 == 1,
                    ms: 100.0 + i as f64,
                    bag: 86 - i,
                    position: String::new(),
                })
                .collect(),
        }
    }

    /// Each move line of the record is followed by its side's thinking time; the end's rack
    /// lines are not moves.
    #[test]
    fn every_move_of_the_record_has_its_time() {
        let turns = played(0).game.history().iter().filter(|e| e.kind.takes_turn()).count();
        let p = played(turns);
        let gcg = p.gcg().unwrap();
        let lines: Vec<&str> = gcg.lines().collect();
        let notes: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("#note")).collect();
        assert_eq!(notes.len(), turns);
        assert_eq!(lines[notes[0]], "#note MAGPIE thought 100 ms, 86 in the bag");
        assert_eq!(lines[notes[1]], "#note champion thought 101 ms, 85 in the bag");
        assert!(lines[notes[0] - 1].starts_with(">MAGPIE: "));
        assert!(lines[notes[1] - 1].starts_with(">champion: "));
        assert!(lines.last().unwrap().contains(") "), "the record ends with the racks left: {gcg}");
        assert_eq!(
            p.overruns(101.0)[0],
            "deal-4-magpie-first.gcg move 2: champion 101 ms, 85 in the bag: cgp "
        );
        assert_eq!(champion_overrun(&p.overruns(101.0)[0]), Some(("deal-4-magpie-first.gcg", 1, 101.0)));
        assert_eq!(champion_overrun(&p.overruns(100.0)[0]), None, "MAGPIE's line");
        assert_eq!(p.overruns(100.0 + turns as f64).len(), 0);
        assert_eq!(
            played(turns - 1).gcg(),
            Err("deal-4-magpie-first.gcg: more move lines than moves".to_string())
        );
        assert_eq!(
            played(turns + 1).gcg(),
            Err("deal-4-magpie-first.gcg: fewer move lines than moves".to_string())
        );
    }
}
