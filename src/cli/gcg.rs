//! `dawgref gcg check` (replay records, recomputing every score) and `dawgref gcg export`
//! (a bot-vs-bot game as GCG).

use super::CliResult;
use clap::Subcommand;
use dawgref::bot::{BotLevel, play_out};
use dawgref::game::record::{check_record_with, write_gcg};
use dawgref::game::{ChallengeRule, Game, GameConfig};
use dawgref::lexicon::{Lexicon, catalog};
use dawgref::notation::gcg;
use dawgref::rules::{Ruleset, RulesetKind};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Subcommand, Debug)]
pub enum GcgCommand {
    /// Replay records and recompute every score: `<file> ok <scores>` or `<file> MISMATCH`
    /// with each differing line. Exit code 0 only when every file matches.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Ruleset of the records, by any shipped ruleset's name (english, russian, erudit,
        /// catalan, dutch, french, german, norwegian, polish, spanish, swedish, super-english).
        /// Default: the one each record names, else the one its letters are.
        #[arg(long)]
        ruleset: Option<RulesetKind>,
        /// Also look every word up in this lexicon and list those it lacks.
        #[arg(long, conflicts_with = "no_words")]
        lexicon: Option<String>,
        /// Do not look words up (the default without --lexicon).
        #[arg(long)]
        no_words: bool,
    },
    /// Play a bot-vs-bot game and write it as GCG.
    Export {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "english")]
        ruleset: RulesetKind,
        /// Lexicon (default: the ruleset's).
        #[arg(long)]
        lexicon: Option<String>,
        #[arg(long, default_value = "double")]
        challenge: ChallengeRule,
        /// Bot level per seat, comma-separated (2 to 4 seats).
        #[arg(long, default_value = "strong,greedy", value_delimiter = ',')]
        bots: Vec<BotLevel>,
        /// Output file (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
}

fn lexicon_for(spec: Option<&str>, kind: RulesetKind) -> Result<Lexicon, Box<dyn std::error::Error>> {
    let rules = Ruleset::new(kind);
    let name = match spec {
        Some(name) => name,
        None if rules.default_lexicon.is_empty() => {
            return Err(
                format!("the {kind} ruleset has no lexicon of its own: name one with --lexicon").into()
            );
        }
        None => rules.default_lexicon,
    };
    Ok(catalog::resolve(name, Some(kind.alphabet()))?.lexicon)
}

/// The lexicon a record is checked against: the one named, else its ruleset's. A ruleset with
/// none (its words are not looked up then) gets a stand-in of one word in its tiles: the replay
/// keeps cross-sets with a lexicon, and scores do not depend on which.
fn check_lexicon(spec: Option<&str>, kind: RulesetKind) -> Result<Lexicon, Box<dyn std::error::Error>> {
    if spec.is_none() && Ruleset::new(kind).default_lexicon.is_empty() {
        let a = kind.alphabet();
        let word = a.word_string(&[0, 0]).to_lowercase();
        return Ok(Lexicon::compile("none", &word, a)?.0);
    }
    lexicon_for(spec, kind)
}

pub fn run(cmd: GcgCommand) -> CliResult {
    match cmd {
        GcgCommand::Check { files, ruleset, lexicon, no_words } => {
            let words = lexicon.is_some() && !no_words;
            let mut lexicons: Vec<(RulesetKind, Lexicon)> = Vec::new();
            let mut all_ok = true;
            for f in &files {
                let text = match std::fs::read_to_string(f) {
                    Ok(t) => t,
                    Err(e) => {
                        all_ok = false;
                        println!("{} ERROR cannot read: {e}", f.display());
                        continue;
                    }
                };
                let rec = match gcg::parse(&text) {
                    Ok(r) => r,
                    Err(e) => {
                        all_ok = false;
                        println!("{} ERROR {e}", f.display());
                        continue;
                    }
                };
                let Some(kind) = ruleset.or_else(|| dawgref::game::record::guess_ruleset(&rec, None)) else {
                    all_ok = false;
                    println!(
                        "{} ERROR no ruleset's tiles spell the record's plays: name it with --ruleset",
                        f.display()
                    );
                    continue;
                };
                let at = match lexicons.iter().position(|(k, _)| *k == kind) {
                    Some(at) => at,
                    None => {
                        lexicons.push((kind, check_lexicon(lexicon.as_deref(), kind)?));
                        lexicons.len() - 1
                    }
                };
                let lex = &lexicons[at].1;
                let report = check_record_with(&rec, Arc::new(Ruleset::new(kind)), lex, words);
                if report.mismatches.is_empty() {
                    let finals: Vec<String> = report.finals.iter().map(|(n, s)| format!("{n} {s}")).collect();
                    println!("{} ok {}", f.display(), finals.join(" "));
                } else {
                    all_ok = false;
                    println!("{} MISMATCH", f.display());
                    for m in &report.mismatches {
                        let fmt = |(s, t): (i32, i32)| format!("{}{s} {t}", if s >= 0 { "+" } else { "" });
                        print!(
                            "  line {}: {}  recorded {}  recomputed {}",
                            m.line,
                            m.text,
                            fmt(m.recorded),
                            fmt(m.recomputed)
                        );
                        match &m.note {
                            Some(n) => println!("  ({n})"),
                            None => println!(),
                        }
                    }
                }
                for (line, word) in &report.unknown_words {
                    println!("  line {line}: {word} is not in {}", lex.name());
                }
            }
            Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        GcgCommand::Export { seed, ruleset, lexicon, challenge, bots, output } => {
            if !(2..=4).contains(&bots.len()) {
                return Err(format!("{} bots: a game has 2 to 4 seats", bots.len()).into());
            }
            let lex = Arc::new(lexicon_for(lexicon.as_deref(), ruleset)?);
            let mut config = GameConfig::new(Arc::new(Ruleset::new(ruleset)), lex, seed);
            config.challenge = challenge;
            config.seats = bots.len();
            let mut game = Game::new(config)?;
            play_out(&mut game, &bots, 1000, |_| {})?;
            // Named as the server names bot seats (`strong_bot`, a repeat `strong_bot_1`).
            let names: Vec<String> = bots.iter().map(|b| format!("{}_bot", b.name())).collect();
            let text = write_gcg(&game, &names);
            match output {
                Some(p) => {
                    std::fs::write(&p, text).map_err(|e| format!("cannot write {}: {e}", p.display()))?
                }
                None => print!("{text}"),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
