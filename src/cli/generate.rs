//! `dawgref gen` (all plays of CGP positions) and `dawgref selfplay` (greedy games as CGP).

use super::CliResult;
use clap::Args;
use dawgref::lexicon::{Lexicon, catalog};
use dawgref::movegen::{Mode, all_plays, top_plays};
use dawgref::notation::cgp::{self, Cgp, Ops};
use dawgref::notation::format_play;
use dawgref::rules::{Ruleset, RulesetKind};
use dawgref::selfplay::greedy_game;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(Args, Debug)]
pub struct GenArgs {
    /// A position as one CGP line (the first rack is the mover's).
    #[arg(long, conflicts_with = "cgp_file", required_unless_present = "cgp_file")]
    cgp: Option<String>,
    /// A file of CGP lines; each position's plays are headed `# <line> <count> plays`.
    #[arg(long)]
    cgp_file: Option<PathBuf>,
    /// Lexicon: a shipped name (en, ru, erudit) or a path to a word list or compiled file.
    /// Default: the CGP's `lex` when it resolves, else the ruleset's lexicon.
    #[arg(long)]
    lexicon: Option<String>,
    /// across, down or both.
    #[arg(long, default_value = "both")]
    mode: Mode,
    /// Print only the N best plays.
    #[arg(long)]
    top: Option<usize>,
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    /// Number of games.
    #[arg(long, default_value_t = 1)]
    games: u64,
    /// Seed of the first game (game i uses seed + i).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Lexicon: a shipped name or a path.
    #[arg(long, default_value = "en")]
    lexicon: String,
    /// Ruleset (english, russian, erudit); default: from the lexicon's alphabet.
    #[arg(long)]
    ruleset: Option<RulesetKind>,
    /// Write every position before each move, with the mover's rack, as CGP lines.
    #[arg(long)]
    cgp_out: Option<PathBuf>,
}

/// Lexicons resolved once per name.
#[derive(Default)]
struct Lexicons(HashMap<String, Arc<Lexicon>>);

impl Lexicons {
    fn get(&mut self, spec: &str, kind: RulesetKind) -> Result<Arc<Lexicon>, Box<dyn std::error::Error>> {
        let key = format!("{spec}\u{0}{kind}");
        if let Some(l) = self.0.get(&key) {
            return Ok(l.clone());
        }
        let l = Arc::new(catalog::resolve(spec, Some(kind.alphabet()))?.lexicon);
        self.0.insert(key, l.clone());
        Ok(l)
    }

    /// The explicit lexicon, else the CGP's `lex` if it resolves, else the ruleset default.
    fn for_position(
        &mut self,
        explicit: Option<&str>,
        c: &Cgp,
    ) -> Result<Arc<Lexicon>, Box<dyn std::error::Error>> {
        if let Some(spec) = explicit {
            return self.get(spec, c.ruleset);
        }
        if let Some(lex) = &c.ops.lex
            && let Ok(l) = self.get(lex, c.ruleset)
        {
            return Ok(l);
        }
        self.get(Ruleset::new(c.ruleset).default_lexicon, c.ruleset)
    }
}

fn plays_text(c: &Cgp, lexicon: &Lexicon, mode: Mode, top: Option<usize>) -> (usize, String) {
    let rules = Arc::new(c.rules());
    let board = c.board(rules, lexicon.dawg());
    let rack = &c.racks[0];
    let plays = match top {
        Some(n) => top_plays(&board, rack, lexicon.dawg(), mode, n),
        None => all_plays(&board, rack, lexicon.dawg(), mode),
    };
    let alphabet = c.ruleset.alphabet();
    let mut out = String::new();
    for p in &plays {
        let _ = writeln!(out, "{} {}", format_play(&p.play, alphabet), p.score);
    }
    (plays.len(), out)
}

pub fn run(args: GenArgs) -> CliResult {
    let mut lexicons = Lexicons::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if let Some(text) = &args.cgp {
        let c = cgp::parse(text, None)?;
        let lex = lexicons.for_position(args.lexicon.as_deref(), &c)?;
        out.write_all(plays_text(&c, &lex, args.mode, args.top).1.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let path = args.cgp_file.as_ref().expect("clap requires --cgp or --cgp-file");
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut failed = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        match cgp::parse(line, None) {
            Ok(c) => {
                let lex = lexicons.for_position(args.lexicon.as_deref(), &c)?;
                let (n, body) = plays_text(&c, &lex, args.mode, args.top);
                writeln!(out, "# {} {n} plays", i + 1)?;
                out.write_all(body.as_bytes())?;
            }
            Err(e) => {
                failed = true;
                eprintln!("{}:{}: {e}", path.display(), i + 1);
            }
        }
    }
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

pub fn selfplay(args: SelfplayArgs) -> CliResult {
    let resolved = catalog::resolve(&args.lexicon, args.ruleset.map(|k| k.alphabet()))?;
    let lexicon = resolved.lexicon;
    let kind = args.ruleset.unwrap_or(RulesetKind::for_alphabet(lexicon.alphabet()));
    let rules = Arc::new(Ruleset::new(kind));
    let mut cgp_out = match &args.cgp_out {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("cannot create {}: {e}", p.display()))?,
        )),
        None => None,
    };
    let lex_name = args.lexicon.clone();
    for g in 0..args.games {
        let seed = args.seed + g;
        let mut moves = 0;
        let mut write_err = None;
        let (_, scores) = greedy_game(rules.clone(), lexicon.dawg(), seed, |pos, _turn| {
            moves += 1;
            if let Some(w) = cgp_out.as_mut() {
                let ops = Ops {
                    lex: Some(lex_name.clone()),
                    ld: Some(kind.name().to_string()),
                    ..Default::default()
                };
                let c =
                    cgp::from_board(pos.board, &[*pos.rack, Default::default()], &pos.scores, pos.zeros, ops);
                if let Err(e) = writeln!(w, "{}", cgp::write(&c)) {
                    write_err = Some(e);
                }
            }
        });
        if let Some(e) = write_err {
            return Err(e.into());
        }
        println!("game {} seed {seed}: {} moves, {}-{}", g + 1, moves, scores[0], scores[1]);
    }
    if let Some(mut w) = cgp_out {
        w.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}
