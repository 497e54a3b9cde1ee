//! `dawgref lexicon compile | info | check`.

use super::CliResult;
use clap::Subcommand;
use dawgref::alphabet::Alphabet;
use dawgref::lexicon::{Lexicon, LoadKind, MAX_WORD_LEN, catalog};
use dawgref::rules::RulesetKind;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Subcommand, Debug)]
pub enum LexiconCommand {
    /// Compile a word list (one word per line) into a DAWG file.
    Compile {
        /// The word list.
        words: PathBuf,
        /// Alphabet of the list: en, ru, erudit (Ё folded to Е), or any ruleset's name (catalan,
        /// spanish …: words are split into its tiles, docs/rulesets.md). A ruleset's name keeps
        /// words as long as its board's side (21 letters for super-english); else 15.
        #[arg(long, default_value = "en")]
        alphabet: String,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Words, nodes, edges, bytes, checksum and build or load time of a lexicon.
    Info {
        /// A shipped name (en, ru, erudit), a compiled file or a word list.
        #[arg(default_value = "en")]
        lexicon: String,
        /// Alphabet of a word list (guessed when absent).
        #[arg(long)]
        alphabet: Option<Alphabet>,
    },
    /// Say whether each word is valid; exit code 0 only if all are.
    Check {
        /// A shipped name (en, ru, erudit), a compiled file or a word list.
        lexicon: String,
        /// Words to check.
        #[arg(required = true)]
        words: Vec<String>,
        /// Alphabet of a word list (guessed when absent).
        #[arg(long)]
        alphabet: Option<Alphabet>,
    },
}

pub fn run(cmd: LexiconCommand) -> CliResult {
    match cmd {
        LexiconCommand::Compile { words, alphabet, output } => {
            let start = Instant::now();
            let text = std::fs::read(&words).map_err(|e| format!("cannot read {}: {e}", words.display()))?;
            let name = words.file_stem().and_then(|s| s.to_str()).unwrap_or("lexicon");
            let longest = RulesetKind::by_name(&alphabet).map_or(MAX_WORD_LEN, RulesetKind::longest_word);
            let alphabet = Alphabet::by_name(&alphabet)?;
            let (lexicon, report) =
                Lexicon::compile_up_to(name, &dawgref::lexicon::word_list_text(&text).0, alphabet, longest)?;
            let elapsed = start.elapsed();
            let bytes = lexicon.to_bytes();
            std::fs::write(&output, &bytes).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
            println!("{report}");
            println!(
                "wrote {}: {} words, {} nodes, {} edges, {} bytes, checksum {:016x}, built in {:.1} ms",
                output.display(),
                lexicon.word_count(),
                lexicon.dawg().node_count(),
                lexicon.dawg().edge_count(),
                bytes.len(),
                lexicon.checksum(),
                elapsed.as_secs_f64() * 1e3
            );
            Ok(ExitCode::SUCCESS)
        }
        LexiconCommand::Info { lexicon, alphabet } => {
            let r = catalog::resolve(&lexicon, alphabet)?;
            let l = &r.lexicon;
            let d = l.dawg();
            println!("name      {}", l.name());
            println!("alphabet  {}", l.alphabet());
            println!("words     {}", l.word_count());
            println!("nodes     {}", d.node_count());
            println!("edges     {}", d.edge_count());
            println!("bytes     {}", d.packed_bytes());
            println!("checksum  {:016x}", l.checksum());
            match r.kind {
                LoadKind::Compiled(t) => println!("built in  {:.1} ms", t.as_secs_f64() * 1e3),
                LoadKind::Loaded(t) => println!("loaded in {:.1} ms", t.as_secs_f64() * 1e3),
            }
            if let Some(report) = r.report {
                println!("source    {report}");
            }
            Ok(ExitCode::SUCCESS)
        }
        LexiconCommand::Check { lexicon, words, alphabet } => {
            let r = catalog::resolve(&lexicon, alphabet)?;
            let mut all = true;
            for w in &words {
                match r.lexicon.contains_str(w) {
                    Ok(true) => println!("{w} valid"),
                    Ok(false) => {
                        all = false;
                        println!("{w} invalid");
                    }
                    Err(e) => {
                        all = false;
                        println!("{w} invalid ({e})");
                    }
                }
            }
            Ok(if all { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
    }
}
