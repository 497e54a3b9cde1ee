//! `dawgref analyze GAME.gcg`: the whole-game review offline. The record is replayed (its
//! ruleset and lexicon found as ImportGcg finds them), every turn whose rack the record shows is
//! judged by the champion's machinery on `--threads` threads, a progress bar on standard error
//! meanwhile; then a table per turn and a summary per player, or the whole result as JSON.

use super::CliResult;
use clap::Args;
use dawgref::game::Action;
use dawgref::game::record::{ImportAsk, import_game, import_setup};
use dawgref::lexicon::catalog;
use dawgref::notation::{format_play, gcg};
use dawgref::review::{self, Class, Grade, Method, Options, Plan, TurnReview};
use dawgref::rules::RulesetKind;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The game record (GCG).
    file: PathBuf,
    /// Thinking time per turn, in milliseconds (50 to 60000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(50..=60_000))]
    ms_per_turn: u64,
    /// The record's ruleset (default: its lexicon's, its description's, else its letters').
    #[arg(long)]
    ruleset: Option<RulesetKind>,
    /// Lexicon (default: the record's when it is one of ours, else the ruleset's).
    #[arg(long)]
    lexicon: Option<String>,
    /// Threads judging turns at once (default: every core).
    #[arg(long)]
    threads: Option<usize>,
    /// The simulations' seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The whole result as JSON on standard output.
    #[arg(long)]
    json: bool,
}

pub fn run(args: AnalyzeArgs) -> CliResult {
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let record = gcg::parse(&text).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let ask = ImportAsk { ruleset: args.ruleset, lexicon: args.lexicon.clone(), challenge: None };
    // A shipped name, or a file (a word list read in the asked ruleset's alphabet).
    let find = |name: &str| {
        catalog::resolve(name, args.ruleset.map(|k| k.alphabet())).ok().map(|r| Arc::new(r.lexicon))
    };
    let config = import_setup(&record, &ask, find).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let game = import_game(&record, config).map_err(|e| format!("{}: {e}", args.file.display()))?;
    let options =
        Options { per_turn: Duration::from_millis(args.ms_per_turn), seed: args.seed, ..Options::default() };
    // A turn is judged only when the record shows its rack.
    let plan = Plan::new(Arc::new(game), Some(review::racks_shown(&record)), options, |_| true);
    let game = plan.game();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 64);
    let started = Instant::now();
    let bar = dawgref::console::progress_bar(plan.turns().len() as u64, "turns");
    let reviews = plan.judge_all(threads, || bar.inc(1));
    bar.finish_and_clear();
    let summaries = review::summarize(game, &reviews);
    let alphabet = game.config().rules.alphabet;
    let names: Vec<String> = record.players.iter().map(|p| p.nick.clone()).collect();
    let action = |a: &Action| match a {
        Action::Play(p) => format_play(p, alphabet),
        Action::Exchange(t) => format!("-{}", t.to_string(alphabet)),
        Action::Pass => "-".to_string(),
        Action::Resign => "resign".to_string(),
    };
    if args.json {
        println!("{}", json(&reviews, &summaries, &names, &action));
    } else {
        println!(
            "{:>4}  {:<12} {:<9} {:<22} {:>6}  {:<22} {:>6}  {:>6}  {:<10} notes",
            "turn", "player", "rack", "played", "win%", "best", "win%", "lost", "class"
        );
        // A mistake's grade is shown in the notes when there is one.
        for r in &reviews {
            let name = names.get(r.seat).cloned().unwrap_or_default();
            if !r.analysable {
                println!(
                    "{:>4}  {:<12} {:<9} {:<22} not analysable (no rack in the record)",
                    r.turn + 1,
                    name,
                    "",
                    action(&r.played.action)
                );
                continue;
            }
            let rack = r.rack.map(|x| x.to_string(alphabet)).unwrap_or_default();
            let pct = |w: f64| if w.is_nan() { "—".to_string() } else { format!("{:.1}", 100.0 * w) };
            let lost = if r.method == Method::Static {
                format!("{:.1}eq", r.lost)
            } else {
                format!("{:.1}", 100.0 * r.lost)
            };
            let mut notes = Vec::new();
            if r.phony {
                notes.push(if r.challenged { "phony, challenged" } else { "phony, unchallenged" });
            }
            if r.valid_challenged_off {
                notes.push("valid, challenged off");
            }
            if r.bingo_missed {
                notes.push("bingo missed");
            }
            if r.pass_or_exchange_beaten {
                notes.push("a play was better");
            }
            if r.play_beaten_by_exchange {
                notes.push("an exchange was better");
            }
            if r.puzzle {
                notes.push("puzzle");
            }
            let grade = format!("{} mistake", r.grade.name());
            if r.grade != Grade::None {
                notes.insert(0, &grade);
            }
            println!(
                "{:>4}  {:<12} {:<9} {:<22} {:>6}  {:<22} {:>6}  {:>6}  {:<10} {}",
                r.turn + 1,
                name,
                rack,
                action(&r.played.action),
                pct(r.played.win),
                action(&r.best.action),
                pct(r.best.win),
                lost,
                r.class.name(),
                notes.join(", ")
            );
        }
        println!();
        for s in &summaries {
            let name = names.get(s.seat).cloned().unwrap_or_default();
            let classes: Vec<String> =
                Class::ALL.iter().zip(s.classes).map(|(c, n)| format!("{} {n}", c.name())).collect();
            let grades: Vec<String> = Grade::ALL[1..]
                .iter()
                .zip(&s.grades[1..])
                .map(|(g, n)| format!("{} {n}", g.name()))
                .collect();
            println!(
                "{name}: {} turns, accuracy {:.1}, mean loss {:.2}, {}; mistakes {} (index {:.1}); \
                 bingos {} (missed {}), phonies {} (let go {})",
                s.turns,
                s.accuracy,
                if game.config().seats == 2 { 100.0 * s.mean_lost } else { s.mean_lost },
                classes.join(", "),
                grades.join(", "),
                s.mistake_index,
                s.bingos,
                s.bingos_missed,
                s.phonies,
                s.phonies_let_go
            );
        }
    }
    eprintln!("{} turns in {:.1} s on {threads} threads", reviews.len(), started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
}

/// A figure for JSON: NaN (no win probability with more than two seats) is null.
fn number(x: f64) -> serde_json::Value {
    if x.is_finite() { serde_json::json!(x) } else { serde_json::Value::Null }
}

fn json(
    reviews: &[TurnReview],
    summaries: &[review::SeatSummary],
    names: &[String],
    action: &dyn Fn(&Action) -> String,
) -> String {
    use serde_json::json;
    let name = |seat: usize| names.get(seat).cloned().unwrap_or_default();
    let judged = |j: &review::Judged| json!({ "move": action(&j.action), "score": j.score, "equity": number(j.equity), "win": number(j.win) });
    let turns: Vec<serde_json::Value> = reviews
        .iter()
        .map(|r| {
            json!({
                "turn": r.turn,
                "seat": r.seat,
                "player": name(r.seat),
                "analysable": r.analysable,
                "position": r.cgp,
                "played": judged(&r.played),
                "best": judged(&r.best),
                "lost": number(r.lost),
                "class": r.class.name(),
                "grade": r.grade.name(),
                "phony": r.phony,
                "challenged": r.challenged,
                "phony_unchallenged": r.phony_unchallenged,
                "valid_challenged_off": r.valid_challenged_off,
                "bingo": r.bingo,
                "bingo_missed": r.bingo_missed,
                "pass_or_exchange_beaten": r.pass_or_exchange_beaten,
                "play_beaten_by_exchange": r.play_beaten_by_exchange,
                "puzzle": r.puzzle,
                "exact": r.exact,
            })
        })
        .collect();
    let players: Vec<serde_json::Value> = summaries
        .iter()
        .map(|s| {
            let classes: serde_json::Map<String, serde_json::Value> =
                Class::ALL.iter().zip(s.classes).map(|(c, n)| (c.name().to_string(), json!(n))).collect();
            let grades: serde_json::Map<String, serde_json::Value> =
                Grade::ALL.iter().zip(s.grades).map(|(g, n)| (g.name().to_string(), json!(n))).collect();
            json!({
                "seat": s.seat,
                "player": name(s.seat),
                "turns": s.turns,
                "accuracy": number(s.accuracy),
                "mean_lost": number(s.mean_lost),
                "classes": classes,
                "grades": grades,
                "mistake_index": number(s.mistake_index),
                "bingos": s.bingos,
                "bingos_missed": s.bingos_missed,
                "phonies": s.phonies,
                "phonies_let_go": s.phonies_let_go,
            })
        })
        .collect();
    json!({ "turns": turns, "players": players }).to_string()
}
