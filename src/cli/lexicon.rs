//! `dawgref lexicon compile | info | check`.

use super::CliResult;
use clap::Subcommand;
use dawgref::alphabet::Alphabet;
use dawgref::lexicon::{Lexicon, LexiconError, LoadKind, MAX_WORD_LEN, catalog, word_list_text};
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
        /// words as long as its board's side (21 letters for super-english); else 15. Default:
        /// the one its letters are (Ñ Spanish, Cyrillic Russian, A to Z English).
        #[arg(long)]
        alphabet: Option<String>,
        /// Output file.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Words, nodes, edges (and their bytes in memory), the compiled file's bytes, checksum and
    /// build or load time of a lexicon.
    Info {
        /// A shipped name (en, ru, erudit), a compiled file or a word list.
        #[arg(default_value = "en")]
        lexicon: String,
        /// Alphabet of a word list (default: the one its letters are).
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
        /// Alphabet of a word list (default: the one its letters are).
        #[arg(long)]
        alphabet: Option<Alphabet>,
    },
}

pub fn run(cmd: LexiconCommand) -> CliResult {
    match cmd {
        LexiconCommand::Compile { words, alphabet, output } => {
            let start = Instant::now();
            let bytes = std::fs::read(&words).map_err(|e| format!("cannot read {}: {e}", words.display()))?;
            let text = word_list_text(&bytes).0;
            let name = words.file_stem().and_then(|s| s.to_str()).unwrap_or("lexicon");
            let (alphabet, longest) = match alphabet {
                Some(named) => (
                    Alphabet::by_name(&named)?,
                    RulesetKind::by_name(&named).map_or(MAX_WORD_LEN, RulesetKind::longest_word),
                ),
                None => {
                    let alphabet = catalog::list_alphabet(&text, &words.display().to_string())
                        .map_err(with_alphabet_flag)?;
                    (alphabet, RulesetKind::for_alphabet(alphabet).longest_word())
                }
            };
            let (lexicon, report) = Lexicon::compile_up_to(name, &text, alphabet, longest)?;
            let elapsed = start.elapsed();
            let bytes = lexicon.to_bytes();
            std::fs::write(&output, &bytes).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
            println!("{report}");
            println!(
                "wrote {} ({} bytes): {} words in the {} alphabet, {} nodes, {} edges ({}), checksum {:016x}, built in {:.1} ms",
                output.display(),
                bytes.len(),
                lexicon.word_count(),
                lexicon.alphabet(),
                lexicon.dawg().node_count(),
                lexicon.dawg().edge_count(),
                in_memory(&lexicon),
                lexicon.checksum(),
                elapsed.as_secs_f64() * 1e3
            );
            Ok(ExitCode::SUCCESS)
        }
        LexiconCommand::Info { lexicon, alphabet } => {
            let r = catalog::resolve(&lexicon, alphabet).map_err(with_alphabet_flag)?;
            let l = &r.lexicon;
            let d = l.dawg();
            println!("name      {}", l.name());
            println!("alphabet  {}", l.alphabet());
            println!("words     {}", l.word_count());
            println!("nodes     {}", d.node_count());
            println!("edges     {} ({})", d.edge_count(), in_memory(l));
            // The compiled file's size, whether it was read from one or compiled from a list:
            // the size `lexicon compile` writes.
            println!("file      {} bytes", l.to_bytes().len());
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
            let r = catalog::resolve(&lexicon, alphabet).map_err(with_alphabet_flag)?;
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

/// A word list whose alphabet cannot be told: the flag that names it.
fn with_alphabet_flag(e: LexiconError) -> String {
    match e {
        LexiconError::UnknownAlphabet(_) => format!("{e}; name it with --alphabet"),
        e => e.to_string(),
    }
}

/// The bytes a lexicon's edge array takes in memory, as `info` and `compile` both say it
/// beside the compiled file's size, which adds a header (with the alphabet written out, for any
/// but the classic three) and a checksum.
fn in_memory(lexicon: &Lexicon) -> String {
    format!("{} bytes in memory", lexicon.dawg().packed_bytes())
}
