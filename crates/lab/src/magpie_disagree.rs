//! `dawgref-lab vs-magpie disagree`: where the champion and MAGPIE choose differently, and whose
//! choice does better (issue 74's study).
//!
//! Games of the champion against MAGPIE's timed player are played as `h2h` plays them (one game
//! a deal, the first seat alternating by deal), but on every turn **both** are asked, at the
//! same time on their own cores, what they would play; the seat's owner's move is made. Where
//! the two differ, both moves are judged afterwards, with the time the players did not have:
//! - with 8 or more tiles in the bag, by our simulation of the two moves alone on the same draws
//!   (common random numbers), `--plies` turns after each, each line valued as a win probability
//!   as the champion values it; the difference comes with its standard error over the draws;
//! - with 1 to 7, by our pre-endgame solver (`--peg-ms`): both moves searched through the bag's
//!   orders (every order, or 200 drawn), the wins each gives and its mean final spread (with an
//!   exchange among them, simulated to the game's end instead);
//! - with the bag empty, by our endgame solver after each move (`--endgame-ms` each), as the
//!   final spread and the win it gives.
//!
//! The judge is ours, so it shares the champion's evaluation (its static player in the lines,
//! its win table): a position where MAGPIE's choice still judges better is one the champion's
//! own model, given time, would have played otherwise. The report splits the disagreements by
//! phase and by the kinds of the two moves, and ranks MAGPIE's move in our static order (is it
//! among the champion's candidates at all?).

use super::CliResult;
use crate::magpie_player::{self, champion_options};
use crate::setup::{duration, mean_error};
use clap::Args;
use dawgref::bot::{PLAY_OUT_BAG, PLAY_OUT_PLIES, champion_action};
use dawgref::endgame::{EndgameLimits, Position};
use dawgref::game::{Action, ChallengeRule, Game, GameConfig};
use dawgref::lexicon::Lexicon;
use dawgref::notation::{Move, format_move};
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::sim;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct DisagreeArgs {
    /// Deals to play, one game each (the champion moving first on even deals).
    #[arg(long, default_value_t = 20)]
    deals: u64,
    /// Each side's thinking time a move, in seconds (more than 0, at most 60).
    #[arg(long, default_value_t = 0.25)]
    seconds: f64,
    /// Deal `d` (from 0) is the bag seeded by `seed + d`.
    #[arg(long, default_value_t = 5001)]
    seed: u64,
    #[command(flatten)]
    sides: crate::magpie_player::Sides,
    /// Draws each disagreement with tiles in the bag is judged on.
    #[arg(long, default_value_t = 1000)]
    iterations: u64,
    /// Turns played after each move in a judging line with 8 or more tiles in the bag.
    #[arg(long, default_value_t = 4)]
    plies: usize,
    /// The endgame solver's time for each move of a disagreement with the bag empty.
    #[arg(long, default_value_t = 3000)]
    endgame_ms: u64,
    /// The pre-endgame solver's time for a disagreement with 1 to 7 in the bag (both moves
    /// searched through the bag's orders; one with an exchange is simulated instead).
    #[arg(long, default_value_t = 6000)]
    peg_ms: u64,
    /// Threads judging (after the games, MAGPIE stopped).
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Where `positions.tsv` (every position asked) and `summary.txt` are written.
    #[arg(long)]
    out: PathBuf,
}

/// One position both were asked about.
struct Asked {
    deal: u64,
    game: Game,
    champion_moved: bool,
    champion: Action,
    magpie: Action,
}

/// How a disagreement judged: MAGPIE's move less the champion's.
#[derive(Clone, Copy)]
struct Judged {
    /// Win probability (0 to 1).
    win: f64,
    /// Its standard error (0 for an endgame).
    win_error: f64,
    /// Spread in points.
    spread: f64,
    /// An endgame both of whose moves were solved exactly, or a pre-endgame searched over every
    /// order of the bag with every search exact.
    exact: bool,
}

impl Judged {
    /// MAGPIE's move is better by more than two standard errors (an endgame: wins more).
    fn magpie_better(&self) -> bool {
        self.win > 2.0 * self.win_error && self.win > 1e-9
    }
    fn champion_better(&self) -> bool {
        -self.win > 2.0 * self.win_error && -self.win > 1e-9
    }
}

const PHASES: [&str; 4] =
    ["opening (first two turns)", "mid-game (bag 8+)", "bag 1-7", "endgame (bag empty)"];

/// Which of [`PHASES`] the position is in.
fn phase(game: &Game) -> &'static str {
    PHASES[match game.bag_len() {
        0 => 3,
        1..=PLAY_OUT_BAG => 2,
        _ if game.turn() < 2 => 0,
        _ => 1,
    }]
}

/// What a move is: a pass, an exchange, a bingo, a short play (one or two tiles: fishing), an
/// edge play (a tile on an edge row or column: opening a triple lane), or another play.
fn kind(action: &Action, game: &Game) -> &'static str {
    match action {
        Action::Pass | Action::Resign => "pass",
        Action::Exchange(_) => "exchange",
        Action::Play(p) => {
            let last = game.board().size() - 1;
            let edge =
                p.placements().any(|pl| pl.row == 0 || pl.col == 0 || pl.row == last || pl.col == last);
            match p.tiles_placed() {
                n if n >= game.config().rules.rack_size => "bingo",
                1 | 2 => "short",
                _ if edge => "edge",
                _ => "play",
            }
        }
    }
}

fn text(action: &Action, game: &Game) -> String {
    let alphabet = game.config().rules.alphabet;
    let m = match action {
        Action::Play(p) => Move::Play(*p),
        Action::Exchange(r) => Move::Exchange(*r),
        Action::Pass | Action::Resign => Move::Pass,
    };
    format_move(&m, alphabet)
}

/// Where a move stands in our static order of plays.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Rank {
    /// Its place among the plays (1: the static best).
    Play(usize),
    /// A play beyond the first [`RANKED`].
    Beyond,
    Exchange,
    Pass,
    /// The position has no static order (no rack to move).
    Unknown,
}

/// Plays ranked before a play is [`Rank::Beyond`].
const RANKED: usize = 200;

impl Rank {
    fn of(game: &Game, action: &Action) -> Rank {
        let params = sim::Params { candidates: RANKED, reserve: 0, plies: 0, seed: 0 };
        let Some(setup) = sim::Setup::from_game(game, game.to_move(), params) else { return Rank::Unknown };
        match action {
            Action::Play(_) => (setup.candidates.iter().filter(|c| matches!(c.action, Action::Play(_))))
                .position(|c| c.action.same_move(action))
                .map_or(Rank::Beyond, |i| Rank::Play(i + 1)),
            Action::Exchange(_) => Rank::Exchange,
            _ => Rank::Pass,
        }
    }

    /// As `positions.tsv` writes it: `3`, `>200`, `exchange`, `pass` or `-`.
    fn text(self) -> String {
        match self {
            Rank::Play(n) => n.to_string(),
            Rank::Beyond => format!(">{RANKED}"),
            Rank::Exchange => "exchange".into(),
            Rank::Pass => "pass".into(),
            Rank::Unknown => "-".into(),
        }
    }

    /// The summary's bucket: one of [`RANK_BUCKETS`].
    fn bucket(self) -> Option<&'static str> {
        Some(match self {
            Rank::Play(1) => "1",
            Rank::Play(2..=10) => "2-10",
            Rank::Play(11..=30) => "11-30",
            Rank::Play(_) => "31-200",
            Rank::Beyond => ">200",
            Rank::Exchange => "exchange",
            Rank::Pass => "pass",
            Rank::Unknown => return None,
        })
    }
}

const RANK_BUCKETS: [&str; 7] = ["1", "2-10", "11-30", "31-200", ">200", "exchange", "pass"];

/// Both moves judged in `asked`'s position (see the module's top).
fn judge(asked: &Asked, args: &DisagreeArgs) -> Option<Judged> {
    let game = &asked.game;
    let seat = game.to_move();
    let dawg = game.config().lexicon.dawg();
    if game.bag_len() == 0 {
        let value = |action: &Action| -> Option<(i32, bool)> {
            let mut after = game.clone();
            let now = after.history().last().map_or(0, |e| e.time_ms) + 1000;
            after.act(seat, action.clone(), now).ok()?;
            let s = after.scores();
            let spread = s[seat] - s[1 - seat];
            match Position::from_game(&after) {
                None => Some((spread, true)),
                Some(position) => {
                    let limits = EndgameLimits {
                        budget: dawgref::budget::Budget::until(
                            Instant::now() + Duration::from_millis(args.endgame_ms),
                        ),
                        ..Default::default()
                    };
                    let solution = dawgref::endgame::solve(&position, dawg, limits);
                    Some((spread - solution.value, solution.exact))
                }
            }
        };
        let (c, c_exact) = value(&asked.champion)?;
        let (m, m_exact) = value(&asked.magpie)?;
        let win = |v: i32| match v.signum() {
            1 => 1.0,
            0 => 0.5,
            _ => 0.0,
        };
        return Some(Judged {
            win: win(m) - win(c),
            win_error: 0.0,
            spread: f64::from(m - c),
            exact: c_exact && m_exact,
        });
    }
    let exchange = |a: &Action| matches!(a, Action::Exchange(_));
    if game.bag_len() <= dawgref::pre_endgame::MAX_BAG
        && !exchange(&asked.champion)
        && !exchange(&asked.magpie)
    {
        let setup = dawgref::pre_endgame::Setup::from_game(game, 1)?;
        let (setup, c) = setup.with_action(&asked.champion);
        let (mut setup, m) = setup.with_action(&asked.magpie);
        setup.candidates = vec![setup.candidates[c].clone(), setup.candidates[m].clone()];
        let limits = dawgref::pre_endgame::PreEndgameLimits {
            budget: dawgref::budget::Budget::until(Instant::now() + Duration::from_millis(args.peg_ms)),
            seed: asked.deal,
            ..Default::default()
        };
        let report = dawgref::pre_endgame::solve(&setup, dawg, &limits, |_| true);
        let [ours, theirs] = &report.records[..] else { return None };
        return Some(Judged {
            win: theirs.win_share() - ours.win_share(),
            win_error: 0.0,
            spread: theirs.mean_spread() - ours.mean_spread(),
            exact: report.exact() && report.every_order,
        });
    }
    let plies = if game.bag_len() <= PLAY_OUT_BAG { PLAY_OUT_PLIES } else { args.plies };
    let params =
        sim::Params { candidates: 1, reserve: 0, plies, seed: asked.deal ^ (game.turn() as u64) << 32 };
    let setup = sim::Setup::from_game(game, seat, params)?;
    let (setup, c) = setup.with_action(&asked.champion);
    let (mut setup, m) = setup.with_action(&asked.magpie);
    setup.candidates = vec![setup.candidates[c].clone(), setup.candidates[m].clone()];
    let (mut sum, mut squares, mut spread) = (0.0, 0.0, 0.0);
    for i in 0..args.iterations {
        let v = setup.iteration(i, dawg);
        let d = v[1].0 - v[0].0;
        sum += d;
        squares += d * d;
        spread += v[1].1 - v[0].1;
    }
    let n = args.iterations.max(1) as f64;
    let mean = sum / n;
    let variance = (squares / n - mean * mean).max(0.0);
    Some(Judged { win: mean, win_error: (variance / n).sqrt(), spread: spread / n, exact: false })
}

/// Widen this process's cores to every core (it was pinned to one to play): the judging
/// threads, made after, inherit it.
fn unpin() {
    let cores = format!("0-{}", std::thread::available_parallelism().map_or(1, |n| n.get()).max(2) - 1);
    let _ = std::process::Command::new("taskset")
        .args(["-p", "-c", &cores, &std::process::id().to_string()])
        .stdout(std::process::Stdio::null())
        .status();
}

pub fn disagree(args: DisagreeArgs) -> CliResult {
    if !(args.seconds > 0.0 && args.seconds <= 60.0) {
        return Err(format!("--seconds {}: expected more than 0 and at most 60", args.seconds).into());
    }
    if args.deals == 0 || args.iterations == 0 {
        return Err("--deals and --iterations: expected at least 1".into());
    }
    let (rules, lexicon) = crate::setup::ruleset(RulesetKind::english())?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot make {}: {e}", args.out.display()))?;
    let asked = collect(&args, &rules, &lexicon)?;
    unpin();
    let disagreements: Vec<usize> =
        (0..asked.len()).filter(|&i| !asked[i].champion.same_move(&asked[i].magpie)).collect();
    println!(
        "{} positions asked, {} disagreements; judging them on {} threads",
        asked.len(),
        disagreements.len(),
        args.threads
    );
    let judged: Vec<std::sync::Mutex<Option<Judged>>> =
        (0..asked.len()).map(|_| std::sync::Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..args.threads.max(1) {
            s.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&i) = disagreements.get(k) else { break };
                    let j = judge(&asked[i], &args);
                    *judged[i].lock().unwrap() = j;
                    if (k + 1).is_multiple_of(50) {
                        let gone = started.elapsed().as_secs_f64();
                        let left = gone / (k + 1) as f64 * (disagreements.len() - k - 1) as f64;
                        println!(
                            "judged {}/{}; {} gone, about {} left",
                            k + 1,
                            disagreements.len(),
                            duration(gone),
                            duration(left)
                        );
                    }
                }
            });
        }
    });
    let judged: Vec<Option<Judged>> = judged.into_iter().map(|m| m.into_inner().unwrap()).collect();
    // Both moves' places in our static order, where they differ (a move generation each).
    let ranks: Vec<Option<(Rank, Rank)>> = (asked.iter())
        .map(|a| {
            (!a.champion.same_move(&a.magpie))
                .then(|| (Rank::of(&a.game, &a.champion), Rank::of(&a.game, &a.magpie)))
        })
        .collect();
    let mut tsv = String::from(
        "deal\tturn\tbag\tphase\tmover\tchampion\tchampion_kind\tchampion_rank\tmagpie\tmagpie_kind\t\
         magpie_rank\tdelta_win\tdelta_win_error\tdelta_spread\tcgp\n",
    );
    for ((a, j), rank) in asked.iter().zip(&judged).zip(&ranks) {
        let g = &a.game;
        let (dw, de, ds) = j.map_or((String::new(), String::new(), String::new()), |j| {
            (format!("{:.4}", j.win), format!("{:.4}", j.win_error), format!("{:.1}", j.spread))
        });
        let (ours, theirs) = rank.map_or((String::new(), String::new()), |(c, m)| (c.text(), m.text()));
        let _ = writeln!(
            tsv,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{dw}\t{de}\t{ds}\t{}",
            a.deal,
            g.turn(),
            g.bag_len(),
            phase(g),
            if a.champion_moved { "champion" } else { "MAGPIE" },
            text(&a.champion, g),
            kind(&a.champion, g),
            ours,
            text(&a.magpie, g),
            kind(&a.magpie, g),
            theirs,
            magpie_player::position(g, 0).unwrap_or_default(),
        );
    }
    std::fs::write(args.out.join("positions.tsv"), tsv)?;
    let summary = summary(&args, &asked, &judged, &ranks);
    print!("{summary}");
    std::fs::write(args.out.join("summary.txt"), &summary)?;
    Ok(ExitCode::SUCCESS)
}

/// Plays the games, asking both at every turn; a game MAGPIE's player cannot go on with is
/// left where it stopped (its positions so far kept).
fn collect(args: &DisagreeArgs, rules: &Arc<Ruleset>, lexicon: &Arc<Lexicon>) -> Result<Vec<Asked>, String> {
    let budget = Duration::from_secs_f64(args.seconds);
    let options = champion_options(args.sides.champion.as_deref(), rules)?;
    let (mut magpie, warm) = args.sides.start_magpie(args.seconds, args.seed, rules, lexicon)?;
    println!("MAGPIE's player started, and warmed up on an endgame in {warm:.0} ms");
    let mut asked = Vec::new();
    let started = Instant::now();
    for d in 0..args.deals {
        let deal = args.seed + d;
        let champion_seat = (d % 2) as usize;
        let mut config = GameConfig::new(rules.clone(), lexicon.clone(), deal);
        config.challenge = ChallengeRule::Void;
        let mut game = Game::new(config).map_err(|e| e.to_string())?;
        let mut now = 0;
        let mut stopped = None;
        while !game.is_over() {
            now += 1000;
            let seat = game.to_move();
            let position =
                magpie_player::position(&game, deal.wrapping_mul(1000).wrapping_add(game.turn() as u64))?;
            let (ours, theirs) = std::thread::scope(|s| {
                let theirs = s.spawn(|| magpie.choose(&game, &position));
                let ours = champion_action(&game, seat, budget, &options);
                (ours, theirs.join().unwrap_or_else(|_| Err("the thread asking MAGPIE panicked".into())))
            });
            let champion_moved = seat == champion_seat;
            let theirs = match theirs {
                Ok(answer) => answer.action,
                Err(e) => {
                    stopped = Some(e);
                    break;
                }
            };
            asked.push(Asked {
                deal,
                game: game.clone(),
                champion_moved,
                champion: ours.clone(),
                magpie: theirs.clone(),
            });
            let action = if champion_moved { ours } else { theirs };
            if let Err(e) = game.act(seat, action, now) {
                stopped = Some(format!("the move is refused: {e}"));
                break;
            }
        }
        let gone = started.elapsed().as_secs_f64();
        let left = gone / (d + 1) as f64 * (args.deals - d - 1) as f64;
        match stopped {
            Some(e) => println!("deal {deal}: stopped at turn {}: {e}", game.turn() + 1),
            None => println!(
                "deal {deal}: {} positions so far; {} gone, about {} left",
                asked.len(),
                duration(gone),
                duration(left)
            ),
        }
        if magpie.broken() {
            drop(magpie);
            (magpie, _) = args.sides.start_magpie(args.seconds, args.seed + d + 1, rules, lexicon)?;
        }
    }
    Ok(asked)
}

/// One line of the report: the positions, the disagreements, MAGPIE's move less the champion's
/// (win % and points, mean ± error over the disagreements), and how many clearly each way.
fn line(label: &str, positions: usize, judged: &[Judged]) -> String {
    let wins: Vec<f64> = judged.iter().map(|j| 100.0 * j.win).collect();
    let spreads: Vec<f64> = judged.iter().map(|j| j.spread).collect();
    let (w, we) = mean_error(&wins);
    let (s, se) = mean_error(&spreads);
    format!(
        "{label:<40} {positions:>6} {:>6} {:>5.1}% {:>+7.2} ± {:<5.2} {:>+7.1} ± {:<5.1} {:>6} {:>6}",
        judged.len(),
        100.0 * judged.len() as f64 / positions.max(1) as f64,
        w,
        we,
        s,
        se,
        judged.iter().filter(|j| j.magpie_better()).count(),
        judged.iter().filter(|j| j.champion_better()).count(),
    )
}

fn summary(
    args: &DisagreeArgs,
    asked: &[Asked],
    judged: &[Option<Judged>],
    ranks: &[Option<(Rank, Rank)>],
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "champion and MAGPIE's timed player asked every turn of {} games (deals {}-{}), {} s a move each; \
         disagreements judged by our simulation ({} draws, {} plies; with 7 or fewer in the \
         bag: our pre-endgame solver, {} ms) or our endgame solver ({} ms a move)",
        args.deals,
        args.seed,
        args.seed + args.deals - 1,
        args.seconds,
        args.iterations,
        args.plies,
        args.peg_ms,
        args.endgame_ms,
    );
    let header = format!(
        "{:<40} {:>6} {:>6} {:>6} {:>17} {:>15} {:>6} {:>6}",
        "", "asked", "differ", "", "MAGPIE-ours win%", "spread", "M+", "ours+"
    );
    let _ = writeln!(out, "\nby phase (M+: MAGPIE's move better by > 2 s.e.; ours+: the champion's)");
    let _ = writeln!(out, "{header}");
    let select = |keep: &dyn Fn(&Asked) -> bool| -> (usize, Vec<Judged>) {
        let n = asked.iter().filter(|a| keep(a)).count();
        let j = asked.iter().zip(judged).filter(|(a, _)| keep(a)).filter_map(|(_, j)| *j).collect();
        (n, j)
    };
    for p in PHASES {
        let (n, j) = select(&|a| phase(&a.game) == p);
        let _ = writeln!(out, "{}", line(p, n, &j));
    }
    let (n, j) = select(&|_| true);
    let _ = writeln!(out, "{}", line("all", n, &j));
    for (label, champion) in [("  champion's turns", true), ("  MAGPIE's turns", false)] {
        let (n, j) = select(&|a| a.champion_moved == champion);
        let _ = writeln!(out, "{}", line(label, n, &j));
    }
    let (_, exact) = select(&|a| a.game.bag_len() == 0);
    let _ = writeln!(
        out,
        "  endgames judged exactly (both moves): {} of {}",
        exact.iter().filter(|j| j.exact).count(),
        exact.len()
    );
    let (_, peg) = select(&|a| (1..=dawgref::pre_endgame::MAX_BAG).contains(&a.game.bag_len()));
    let _ = writeln!(
        out,
        "  pre-endgames judged over every order of the bag, every search exact: {} of {}",
        peg.iter().filter(|j| j.exact).count(),
        peg.len()
    );
    for (label, bags) in [("  bag 1-2", 1..=2), ("  bag 3-4", 3..=4), ("  bag 5-7", 5..=7)] {
        let (n, j) = select(&|a| bags.contains(&a.game.bag_len()));
        let _ = writeln!(out, "{}", line(label, n, &j));
    }

    let _ = writeln!(out, "\nby the kinds of the two moves (ours -> MAGPIE's), disagreements only");
    let _ = writeln!(out, "{header}");
    let mut pairs: Vec<(String, Vec<Judged>)> = Vec::new();
    for (a, j) in asked.iter().zip(judged) {
        let Some(j) = j else { continue };
        let key = format!("{} -> {}", kind(&a.champion, &a.game), kind(&a.magpie, &a.game));
        match pairs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(*j),
            None => pairs.push((key, vec![*j])),
        }
    }
    pairs.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    for (key, v) in &pairs {
        let _ = writeln!(out, "{}", line(key, v.len(), v));
    }

    let _ = writeln!(out, "\nMAGPIE's move in our static order of plays, disagreements with 8+ in the bag");
    let _ = writeln!(out, "{header}");
    let mut buckets: Vec<(&str, Vec<Judged>)> = RANK_BUCKETS.iter().map(|r| (*r, Vec::new())).collect();
    for ((a, j), rank) in asked.iter().zip(judged).zip(ranks) {
        let (Some(j), Some((_, magpie))) = (j, rank) else { continue };
        if a.game.bag_len() <= PLAY_OUT_BAG {
            continue;
        }
        if let Some((_, v)) = buckets.iter_mut().find(|(r, _)| Some(*r) == magpie.bucket()) {
            v.push(*j);
        }
    }
    for (r, v) in &buckets {
        let _ = writeln!(out, "{}", line(&format!("rank {r}"), v.len(), v));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dawgref::bot::{BotLevel, play_while};
    use dawgref::endgame::Move as EndgameMove;

    fn args() -> DisagreeArgs {
        DisagreeArgs {
            deals: 1,
            seconds: 0.25,
            seed: 1,
            sides: crate::magpie_player::Sides {
                magpie: PathBuf::new(),
                magpie_core: 1,
                magpie_lexicon: "NWL99".into(),
                champion: None,
            },
            iterations: 64,
            plies: 2,
            endgame_ms: 2000,
            peg_ms: 500,
            threads: 1,
            out: PathBuf::new(),
        }
    }

    /// A strong-bot game from `seed`, stopped once `stop` says so.
    fn game(seed: u64, stop: impl Fn(&Game) -> bool) -> Game {
        let (rules, lexicon) = crate::setup::ruleset(RulesetKind::english()).unwrap();
        let mut config = GameConfig::new(rules, lexicon, seed);
        config.challenge = ChallengeRule::Void;
        let mut game = Game::new(config).unwrap();
        play_while(&mut game, &[BotLevel::Strong], 1000, |g| !stop(g)).unwrap();
        game
    }

    /// The same move judged against itself differs by nothing on every draw (both lines are
    /// played on the same draws), and a mid-game position is judged by simulation.
    #[test]
    fn a_move_against_itself_judges_level_on_the_same_draws() {
        let g = game(11, |g| g.turn() >= 6);
        assert!(g.bag_len() > 7);
        let best = choose_action_within_strong(&g);
        let asked = Asked { deal: 11, game: g, champion_moved: true, champion: best.clone(), magpie: best };
        let j = judge(&asked, &args()).unwrap();
        assert_eq!((j.win, j.win_error, j.spread, j.exact), (0.0, 0.0, 0.0, false));
    }

    /// With the bag empty, both moves are solved exactly: the solver's own move judges at least
    /// as well as passing.
    #[test]
    fn an_endgame_is_judged_by_the_solver() {
        // Small racks, so that both solves are exact at once even in a debug build.
        let small = |g: &Game| g.bag_len() == 0 && (0..2).all(|s| g.rack(s).is_some_and(|r| r.len() <= 3));
        let g = (1..200).map(|s| game(s, small)).find(|g| !g.is_over() && small(g)).unwrap();
        let position = Position::from_game(&g).unwrap();
        let dawg = g.config().lexicon.dawg();
        let solution = dawgref::endgame::solve(&position, dawg, EndgameLimits::default());
        assert!(solution.exact);
        let Some(EndgameMove::Play { play, .. }) = solution.pv.first().copied() else {
            panic!("the solver passes first")
        };
        let asked = Asked {
            deal: 1,
            game: g,
            champion_moved: true,
            champion: Action::Play(play),
            magpie: Action::Pass,
        };
        let j = judge(&asked, &args()).unwrap();
        assert!(j.exact && j.spread <= 0.0 && j.win <= 0.0, "{:?}", (j.win, j.spread));
        assert_eq!(j.win_error, 0.0);
    }

    fn choose_action_within_strong(g: &Game) -> Action {
        dawgref::bot::choose_action(g, g.to_move(), BotLevel::Strong)
    }

    /// The strong bot's play is the static best; each place is written and bucketed once.
    #[test]
    fn a_move_is_ranked_in_our_static_order() {
        let g = game(11, |g| g.turn() >= 6);
        assert_eq!(Rank::of(&g, &choose_action_within_strong(&g)), Rank::Play(1));
        assert_eq!(Rank::of(&g, &Action::Pass), Rank::Pass);
        assert_eq!(Rank::of(&g, &Action::Exchange(*g.rack(g.to_move()).unwrap())), Rank::Exchange);
        let texts: Vec<String> =
            [Rank::Play(12), Rank::Beyond, Rank::Exchange, Rank::Unknown].iter().map(|r| r.text()).collect();
        assert_eq!(texts, ["12", ">200", "exchange", "-"]);
        let buckets: Vec<Option<&str>> =
            [Rank::Play(1), Rank::Play(10), Rank::Play(31), Rank::Beyond, Rank::Unknown]
                .map(Rank::bucket)
                .to_vec();
        assert_eq!(buckets, [Some("1"), Some("2-10"), Some("31-200"), Some(">200"), None]);
    }

    #[test]
    fn moves_are_sorted_into_kinds() {
        let g = game(11, |g| g.turn() >= 6);
        assert_eq!(kind(&Action::Pass, &g), "pass");
        assert_eq!(kind(&Action::Exchange(*g.rack(g.to_move()).unwrap()), &g), "exchange");
        let Action::Play(p) = choose_action_within_strong(&g) else { panic!("the strong bot plays") };
        assert!(["bingo", "short", "edge", "play"].contains(&kind(&Action::Play(p), &g)));
        assert_eq!(PHASES.iter().filter(|p| **p == phase(&g)).count(), 1);
    }
}
