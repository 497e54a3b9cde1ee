//! `dawgref words anagram | pattern | hooks`: word study on the command line, the same search
//! as `LexiconsService.FindWords`. One word a line: the word (blanks in lower case), its length and
//! its probability of being drawn from the full bag; hooks also say their side and letter.

use super::CliResult;
use clap::{Args, Subcommand, ValueEnum};
use dawgref::lexicon::catalog;
use dawgref::lexicon::study::{self, Order, Side};
use dawgref::rules::{Ruleset, RulesetKind};
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum WordsCommand {
    /// The words a rack spells ("?" a blank): all its tiles, or with --min every word of at
    /// least that many.
    Anagram {
        rack: String,
        /// Every word of at least this many tiles (default: all the rack's).
        #[arg(long, default_value_t = 0)]
        min: usize,
        #[command(flatten)]
        options: WordOptions,
    },
    /// The words that fit a pattern: letters, "?" any one letter, "*" any run, "[...]" a set.
    Pattern {
        pattern: String,
        #[command(flatten)]
        options: WordOptions,
    },
    /// A word's front and back hooks.
    Hooks {
        word: String,
        #[command(flatten)]
        options: WordOptions,
    },
}

#[derive(Args, Debug)]
pub struct WordOptions {
    /// A shipped name (en, ru, erudit), a compiled file or a word list.
    #[arg(long, default_value = "en")]
    lexicon: String,
    #[arg(long, value_enum, default_value_t = SortBy::Length)]
    order: SortBy,
    /// Words printed at most.
    #[arg(long, default_value_t = 100)]
    limit: usize,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum SortBy {
    Length,
    Alphabet,
    Probability,
}

pub fn run(cmd: WordsCommand) -> CliResult {
    let (kind, text, min, options) = match cmd {
        WordsCommand::Anagram { rack, min, options } => ("anagram", rack, min, options),
        WordsCommand::Pattern { pattern, options } => ("pattern", pattern, 0, options),
        WordsCommand::Hooks { word, options } => ("hooks", word, 0, options),
    };
    let lexicon = catalog::resolve(&options.lexicon, None)?.lexicon;
    let alphabet = lexicon.alphabet();
    let query = study::read_query(kind, &text, min, alphabet).map_err(|e| format!("{kind} {text:?}: {e}"))?;
    // The probabilities are of the bag of the first ruleset that plays in this alphabet.
    let ruleset = RulesetKind::for_alphabet(alphabet);
    let order = match options.order {
        SortBy::Length => Order::Length,
        SortBy::Alphabet => Order::Alphabet,
        SortBy::Probability => Order::Probability,
    };
    let answers = study::find(lexicon.dawg(), &Ruleset::new(ruleset), &query, order, options.limit);
    for a in &answers.words {
        let hook = match a.hook {
            Some((Side::Front, x)) => format!(" front {}", alphabet.label(x)),
            Some((Side::Back, x)) => format!(" back {}", alphabet.label(x)),
            None => String::new(),
        };
        println!("{} {} {:.6}{hook}", study::with_blanks(a, alphabet), a.word.len(), a.probability);
    }
    let more = if answers.complete { "" } else { " or more" };
    let valid = if kind == "hooks" {
        if answers.valid { ", itself a word" } else { ", itself not a word" }
    } else {
        ""
    };
    eprintln!("{} of {}{more} words{valid}", answers.words.len(), answers.total);
    Ok(ExitCode::SUCCESS)
}
