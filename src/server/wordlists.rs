//! The rulesets and word lists a server is given at start (`--ruleset FILE`,
//! `--word-list NAME=RULESET:FILE`): ruleset files read and registered, word lists compiled in
//! their ruleset's alphabet, and every word that could not be split reported.

use crate::lexicon::{CompileReport, Lexicon};
use crate::rulebook;
use crate::rules::RulesetKind;
use std::path::{Path, PathBuf};

/// A word list to compile at start: `NAME=RULESET:FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WordListSpec {
    /// The lexicon's name, as CreateGame's `lexicon` names it.
    pub name: String,
    /// The ruleset whose alphabet splits its words (a name ListRulesets gives).
    pub ruleset: String,
    pub path: PathBuf,
}

impl std::str::FromStr for WordListSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("{s:?}: a word list is NAME=RULESET:FILE (e.g. fise=spanish:/usr/share/dict/spanish)");
        let (name, rest) = s.split_once('=').ok_or_else(bad)?;
        let (ruleset, path) = rest.split_once(':').ok_or_else(bad)?;
        let name = name.trim();
        if name.is_empty()
            || ruleset.trim().is_empty()
            || path.is_empty()
            || !name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        {
            return Err(bad());
        }
        Ok(WordListSpec {
            name: name.to_string(),
            ruleset: ruleset.trim().to_string(),
            path: PathBuf::from(path),
        })
    }
}

/// Read and register each ruleset file, in order (a later file may not take an earlier name).
pub fn register_rulesets(files: &[PathBuf]) -> Result<Vec<RulesetKind>, String> {
    files
        .iter()
        .map(|path| {
            let def = rulebook::read_file(path).map_err(|e| e.to_string())?;
            // A table that does not parse is refused before the ruleset is registered.
            if let Some(text) = &def.leaves {
                crate::leaves::LeaveTable::parse(text, def.alphabet)
                    .map_err(|e| format!("{}: its leaves-file: {e}", path.display()))?;
            }
            if let Some(text) = &def.winprob {
                crate::winprob::WinTable::parse(text)
                    .map_err(|e| format!("{}: its winprob-file: {e}", path.display()))?;
            }
            let kind = rulebook::register(def).map_err(|e| e.to_string())?;
            tracing::info!(ruleset = %kind, file = %path.display(), tiles = kind.alphabet().len(), "ruleset registered");
            Ok(kind)
        })
        .collect()
}

/// Compile a word list in its ruleset's alphabet. Every word that could not be split into that
/// alphabet's tiles is in the report, and, with `report_dir`, written one a line to
/// `NAME.skipped.txt` there.
pub fn compile(spec: &WordListSpec, report_dir: Option<&Path>) -> Result<(Lexicon, CompileReport), String> {
    let kind = RulesetKind::by_name(&spec.ruleset).ok_or_else(|| {
        format!("--word-list {}: {}", spec.name, crate::rules::UnknownRuleset(spec.ruleset.clone()))
    })?;
    let bytes = std::fs::read(&spec.path)
        .map_err(|e| format!("--word-list {}: cannot read {}: {e}", spec.name, spec.path.display()))?;
    let (text, latin1) = crate::lexicon::word_list_text(&bytes);
    if latin1 {
        tracing::info!(lexicon = %spec.name, file = %spec.path.display(), "not UTF-8: read as ISO-8859-1");
    }
    let (lexicon, report) = Lexicon::compile_up_to(&spec.name, &text, kind.alphabet(), kind.longest_word())
        .map_err(|e| format!("--word-list {}: {e}", spec.name))?;
    let written = report_dir.filter(|_| !report.unsplittable.is_empty()).and_then(|dir| {
        let path = dir.join(format!("{}.skipped.txt", spec.name));
        std::fs::create_dir_all(dir).ok()?;
        std::fs::write(&path, report.unsplittable.join("\n") + "\n").ok()?;
        Some(path)
    });
    tracing::info!(
        lexicon = %spec.name,
        ruleset = %kind,
        words = report.kept,
        unsplittable = report.unsplittable.len(),
        // Only when a list was written: without a lexicon cache, or with every word split, there
        // is none (an empty field would read as a file with no name).
        skipped_list = written.as_deref().map(|p| tracing::field::display(p.display())),
        "word list compiled: {report}"
    );
    Ok((lexicon, report))
}
