//! Word study, as word judges and players preparing for events use it: the words a rack spells
//! (blanks included), the words that fit a pattern, a word's hooks, and each word's chance of
//! being drawn. Every search walks the DAWG once, so a word is found at most once.
//!
//! - **Anagrams**: a depth-first walk spending the rack's tiles; a letter is taken from a tile
//!   of its own when the rack has one, else from a blank (using a tile whenever one is there
//!   never loses a word: the blank is worth more kept), so each word is reached by one path.
//! - **Patterns**: letters, `?` (any one letter), `*` (any run, none included) and `[...]` (one
//!   of the listed letters), matched as a small automaton whose set of live states rides along
//!   the walk (a bit set: a pattern has at most 63 items); a branch with no live state stops,
//!   and so does one whose node has none of the letters some part still needs below it
//!   ([`Dawg::letters_below`]: `*Q*` walks only towards a Q).
//! - **Hooks**: the letters that make a word of `x + word` (front) or `word + x` (back).
//! - **Probability**: the chance that as many tiles as the word has, drawn from the ruleset's
//!   full bag, can spell it (blanks standing in for any letter).

use super::Dawg;
use super::Node;
use crate::alphabet::{Alphabet, Letter, MAX_LETTERS};
use crate::rack::Rack;
use crate::rules::Ruleset;

/// The longest word the largest board (21×21) can hold. A lexicon holds no longer word, and one
/// compiled for the standard board none longer than 15, so this bounds a query, not an answer.
pub const MAX_WORD: usize = crate::rulebook::MAX_SIZE;

/// Why a query cannot be asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StudyError {
    #[error("an empty {0}")]
    Empty(&'static str),
    #[error("{len} letters: a word on the largest board has at most {MAX_WORD}")]
    TooLong { len: usize },
    #[error("{0:?} is not a letter of the alphabet")]
    Letter(char),
    #[error("a '[' without its ']'")]
    Unclosed,
    #[error("an empty set []")]
    EmptySet,
    #[error("the pattern has more than 63 parts")]
    TooManyParts,
}

/// One part of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// One letter of this set.
    One(u64),
    /// Any run of letters, none included.
    Run,
}

/// A pattern: letters, `?`, `*` and `[...]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    parts: Vec<Part>,
}

impl Pattern {
    /// Read a pattern in `alphabet` (any case). At most [`MAX_WORD`] parts that are one letter.
    pub fn parse(text: &str, alphabet: Alphabet) -> Result<Pattern, StudyError> {
        let all = alphabet.all_letters();
        let mut parts = Vec::new();
        // Letters are tiles, read by the longest spelling that fits (`L·L`, `CH`, or an alias),
        // in a class as outside one: `[CHL]` is CH or L.
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            rest = &rest[c.len_utf8()..];
            let part = match c {
                '?' | '.' => Part::One(all),
                '*' => {
                    // Runs side by side are one run.
                    if parts.last() == Some(&Part::Run) {
                        continue;
                    }
                    Part::Run
                }
                '[' => {
                    let mut set = 0u64;
                    loop {
                        match rest.chars().next() {
                            None => return Err(StudyError::Unclosed),
                            Some(']') => {
                                rest = &rest[1..];
                                break;
                            }
                            Some(c) => {
                                let (l, used) = tile_at(alphabet, rest, c)?;
                                set |= 1 << l;
                                rest = &rest[used..];
                            }
                        }
                    }
                    if set == 0 {
                        return Err(StudyError::EmptySet);
                    }
                    Part::One(set)
                }
                c => {
                    // The tile starts at `c`, already taken off `rest`.
                    let whole = &text[text.len() - rest.len() - c.len_utf8()..];
                    let (l, used) = tile_at(alphabet, whole, c)?;
                    rest = &whole[used..];
                    Part::One(1 << l)
                }
            };
            parts.push(part);
        }
        let letters = parts.iter().filter(|p| matches!(p, Part::One(_))).count();
        if parts.is_empty() {
            return Err(StudyError::Empty("pattern"));
        }
        if letters > MAX_WORD {
            return Err(StudyError::TooLong { len: letters });
        }
        if parts.len() > 63 {
            return Err(StudyError::TooManyParts);
        }
        Ok(Pattern { parts })
    }

    /// The states reachable without reading a letter from `states` (past runs).
    fn closure(&self, mut states: u64) -> u64 {
        for (i, p) in self.parts.iter().enumerate() {
            if states >> i & 1 == 1 && *p == Part::Run {
                states |= 1 << (i + 1);
            }
        }
        states
    }

    /// The states after reading `letter` from `states` (closed).
    fn step(&self, states: u64, letter: Letter) -> u64 {
        let mut next = 0u64;
        for (i, p) in self.parts.iter().enumerate() {
            if states >> i & 1 == 0 {
                continue;
            }
            match *p {
                Part::One(set) if set >> letter & 1 == 1 => next |= 1 << (i + 1),
                Part::Run => next |= 1 << i,
                Part::One(_) => {}
            }
        }
        self.closure(next)
    }

    fn accepts(&self, states: u64) -> bool {
        states >> self.parts.len() & 1 == 1
    }

    /// The states of `states` that can still end in a match when the rest of the word can use
    /// only the letters of `below` (every letter part after a state needs one of its letters
    /// there; the accepting state needs nothing).
    fn viable(&self, states: u64, below: u64) -> u64 {
        // needs_ok[i]: every letter part from i on can be met by `below`.
        let mut ok = 1u64 << self.parts.len();
        let mut all_met = true;
        for (i, p) in self.parts.iter().enumerate().rev() {
            if let Part::One(set) = p {
                all_met &= set & below != 0;
            }
            if all_met {
                ok |= 1 << i;
            }
        }
        states & ok
    }
}

/// The tile `text` starts with (its first character `c`, named when it is no tile) and the bytes
/// it takes. A `[` here is no tile: classes do not nest.
fn tile_at(alphabet: Alphabet, text: &str, c: char) -> Result<(Letter, usize), StudyError> {
    if c == '[' {
        return Err(StudyError::Letter(c));
    }
    alphabet.next_tile(text).map(|(l, _, used)| (l, used)).map_err(|_| StudyError::Letter(c))
}

/// A word found, with the letters that came from blanks (anagrams).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Found {
    pub word: Vec<Letter>,
    /// Per letter of `word`, whether a blank stands for it.
    pub blanks: Vec<bool>,
}

/// Every word `rack` spells with exactly its tiles, or with `min_length` below the rack's size
/// every word of `min_length` tiles or more. At most `cap` words (the walk stops there).
pub fn anagrams(dawg: &Dawg, rack: &Rack, min_length: usize, cap: usize) -> Vec<Found> {
    let size = rack.len().min(MAX_WORD);
    let least = if min_length == 0 || min_length >= size { size } else { min_length.max(1) };
    let mut out = Vec::new();
    let mut word = Vec::with_capacity(MAX_WORD);
    let mut blanks = Vec::with_capacity(MAX_WORD);
    let mut rack = *rack;
    spell(dawg, dawg.root(), &mut rack, least, size, &mut word, &mut blanks, &mut out, cap);
    out
}

#[allow(clippy::too_many_arguments)]
fn spell(
    dawg: &Dawg,
    node: Node,
    rack: &mut Rack,
    least: usize,
    most: usize,
    word: &mut Vec<Letter>,
    blanks: &mut Vec<bool>,
    out: &mut Vec<Found>,
    cap: usize,
) {
    if word.len() >= most {
        return;
    }
    for e in dawg.edges(node) {
        if out.len() >= cap {
            return;
        }
        let blank = if rack.take(e.letter) {
            false
        } else if rack.take_blank() {
            true
        } else {
            continue;
        };
        word.push(e.letter);
        blanks.push(blank);
        if e.terminal && word.len() >= least {
            out.push(Found { word: word.clone(), blanks: blanks.clone() });
        }
        spell(dawg, e.target, rack, least, most, word, blanks, out, cap);
        word.pop();
        blanks.pop();
        if blank {
            rack.add_blank();
        } else {
            rack.add(e.letter);
        }
    }
}

/// Every word of at most [`MAX_WORD`] letters that fits `pattern`, in letter order; at most
/// `cap`.
pub fn matching(dawg: &Dawg, pattern: &Pattern, cap: usize) -> Vec<Vec<Letter>> {
    let mut out = Vec::new();
    let mut word = Vec::with_capacity(MAX_WORD);
    walk(dawg, dawg.root(), pattern, pattern.closure(1), &mut word, &mut out, cap);
    out
}

fn walk(
    dawg: &Dawg,
    node: Node,
    pattern: &Pattern,
    states: u64,
    word: &mut Vec<Letter>,
    out: &mut Vec<Vec<Letter>>,
    cap: usize,
) {
    if word.len() >= MAX_WORD {
        return;
    }
    for e in dawg.edges(node) {
        if out.len() >= cap {
            return;
        }
        let next = pattern.step(states, e.letter);
        if next == 0 {
            continue;
        }
        word.push(e.letter);
        if e.terminal && pattern.accepts(next) {
            out.push(word.clone());
        }
        // Below this edge, only states whose letters are still there can match.
        let live = pattern.viable(next, dawg.letters_below(e.target));
        if live != 0 {
            walk(dawg, e.target, pattern, live, word, out, cap);
        }
        word.pop();
    }
}

/// A word's hooks: the letters that make a word in front of it and after it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hooks {
    pub front: Vec<Letter>,
    pub back: Vec<Letter>,
    /// The word itself is in the lexicon.
    pub valid: bool,
}

/// The hooks of `word` (letters of the lexicon's alphabet, 1 to [`MAX_WORD`] − 1 of them).
pub fn hooks(dawg: &Dawg, word: &[Letter], alphabet: Alphabet) -> Hooks {
    let mut hooks = Hooks { valid: dawg.contains(word), ..Hooks::default() };
    if word.is_empty() || word.len() >= MAX_WORD {
        return hooks;
    }
    let mut longer = Vec::with_capacity(word.len() + 1);
    for x in 0..alphabet.len() as Letter {
        longer.clear();
        longer.push(x);
        longer.extend_from_slice(word);
        if dawg.contains(&longer) {
            hooks.front.push(x);
        }
    }
    if let Some(e) = dawg.walk(dawg.root(), word) {
        hooks.back = dawg.edges(e.target).filter(|x| x.terminal).map(|x| x.letter).collect();
    }
    hooks
}

/// The chance that `word.len()` tiles drawn from `rules`'s full bag can spell `word`, blanks
/// standing in for any letter.
pub fn probability(rules: &Ruleset, word: &[Letter]) -> f64 {
    let bag = rules.full_set();
    let n = word.len();
    if n == 0 || n > bag.len() {
        return 0.0;
    }
    let mut need = [0u32; MAX_LETTERS];
    for &l in word {
        need[l as usize] += 1;
    }
    // ways[k]: the ways to draw k real tiles, each one of the word's letters, no letter more
    // often than the word has it.
    let mut ways = vec![0.0f64; n + 1];
    ways[0] = 1.0;
    for (l, &k) in need.iter().enumerate() {
        if k == 0 {
            continue;
        }
        let have = u32::from(bag.count(l as Letter));
        let mut next = vec![0.0f64; n + 1];
        for (done, &w) in ways.iter().enumerate() {
            if w == 0.0 {
                continue;
            }
            for take in 0..=k.min(have) as usize {
                if done + take <= n {
                    next[done + take] += w * choose(have, take as u32);
                }
            }
        }
        ways = next;
    }
    // The rest of the tiles are blanks.
    let blanks = u32::from(bag.blanks());
    let total: f64 = (0..=n).map(|real| ways[real] * choose(blanks, (n - real) as u32)).sum();
    total / choose(bag.len() as u32, n as u32)
}

fn choose(n: u32, k: u32) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// One word-study question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    /// The words a rack spells: all its tiles, or with `min_length` every word of at least so
    /// many of them.
    Anagram {
        rack: Rack,
        min_length: usize,
    },
    Pattern(Pattern),
    /// A word's front and back hooks, answered as the longer words they make.
    Hooks(Vec<Letter>),
}

/// How answers are sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// Longest first, then in letter order.
    #[default]
    Length,
    /// In letter order.
    Alphabet,
    /// Likeliest to be drawn first, then in letter order.
    Probability,
}

/// Which side of the asked word a hook goes on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Front,
    Back,
}

/// A word answering a query.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub word: Vec<Letter>,
    /// Per letter, whether a blank stands for it (anagrams only).
    pub blanks: Vec<bool>,
    /// The chance of drawing its tiles from the full bag ([`probability`]).
    pub probability: f64,
    /// For a hooks query: the side and the hook letter.
    pub hook: Option<(Side, Letter)>,
}

/// A query's answers: the first `limit` in `order`, and how many there are (counted up to
/// [`MAX_FOUND`]; beyond it `complete` is false).
#[derive(Clone, Debug, PartialEq)]
pub struct Answers {
    pub words: Vec<Answer>,
    pub total: usize,
    pub complete: bool,
    /// For a hooks query: the asked word is itself a word.
    pub valid: bool,
}

/// The most words a query finds before it stops counting (every English word fits a `*`).
pub const MAX_FOUND: usize = 400_000;

/// Answer `query` in `lexicon` (its words judged by `rules`' bag for the probabilities).
pub fn find(dawg: &Dawg, rules: &Ruleset, query: &Query, order: Order, limit: usize) -> Answers {
    let valid = matches!(query, Query::Hooks(word) if dawg.contains(word));
    let mut words: Vec<Answer> = match query {
        Query::Anagram { rack, min_length } => anagrams(dawg, rack, *min_length, MAX_FOUND + 1)
            .into_iter()
            .map(|f| Answer { probability: 0.0, hook: None, word: f.word, blanks: f.blanks })
            .collect(),
        Query::Pattern(p) => matching(dawg, p, MAX_FOUND + 1)
            .into_iter()
            .map(|word| Answer { blanks: vec![false; word.len()], probability: 0.0, hook: None, word })
            .collect(),
        Query::Hooks(word) => {
            let h = hooks(dawg, word, rules.alphabet);
            let front = h.front.iter().map(|&x| {
                let mut w = vec![x];
                w.extend_from_slice(word);
                (w, Side::Front, x)
            });
            let back = h.back.iter().map(|&x| {
                let mut w = word.clone();
                w.push(x);
                (w, Side::Back, x)
            });
            front
                .chain(back)
                .map(|(w, side, x)| Answer {
                    blanks: vec![false; w.len()],
                    probability: 0.0,
                    hook: Some((side, x)),
                    word: w,
                })
                .collect()
        }
    };
    let complete = words.len() <= MAX_FOUND;
    words.truncate(MAX_FOUND);
    let total = words.len();
    let by_letters = |a: &Answer, b: &Answer| a.word.cmp(&b.word).then(a.blanks.cmp(&b.blanks));
    match order {
        Order::Length => words.sort_by(|a, b| b.word.len().cmp(&a.word.len()).then_with(|| by_letters(a, b))),
        Order::Alphabet => words.sort_by(by_letters),
        Order::Probability => {
            for w in &mut words {
                w.probability = probability(rules, &w.word);
            }
            words.sort_by(|a, b| b.probability.total_cmp(&a.probability).then_with(|| by_letters(a, b)));
        }
    }
    words.truncate(limit);
    if order != Order::Probability {
        for w in &mut words {
            w.probability = probability(rules, &w.word);
        }
    }
    Answers { words, total, complete, valid }
}

/// A query as a person or a client writes it: `kind` is `anagram`, `pattern` or `hooks`, the
/// text in `alphabet` (any case; `?` a blank in a rack). The shared reading of `dawgref words`
/// and `LexiconsService.FindWords`.
pub fn read_query(
    kind: &str,
    text: &str,
    min_length: usize,
    alphabet: Alphabet,
) -> Result<Query, StudyError> {
    // Bounded before it is read: a tile is written in at most MAX_TILE_TEXT characters.
    let chars = text.chars().count();
    if chars > MAX_WORD * crate::alphabet::MAX_TILE_TEXT {
        return Err(StudyError::TooLong { len: chars });
    }
    if kind == "pattern" {
        return Ok(Query::Pattern(Pattern::parse(text, alphabet)?));
    }
    let foreign = |e: crate::alphabet::AlphabetError| match e {
        crate::alphabet::AlphabetError::Foreign { ch, .. } => StudyError::Letter(ch),
        _ => StudyError::Letter('['),
    };
    if kind == "anagram" {
        let rack = Rack::parse(text, alphabet).map_err(foreign)?;
        if rack.is_empty() {
            return Err(StudyError::Empty("rack"));
        }
        if rack.len() > MAX_WORD {
            return Err(StudyError::TooLong { len: rack.len() });
        }
        return Ok(Query::Anagram { rack, min_length });
    }
    let word = alphabet.parse_word(text).map_err(foreign)?;
    if word.is_empty() {
        return Err(StudyError::Empty("word"));
    }
    if word.len() >= MAX_WORD {
        return Err(StudyError::TooLong { len: word.len() });
    }
    Ok(Query::Hooks(word))
}

/// A word with the letters blanks stand for in lower case.
pub fn with_blanks(answer: &Answer, alphabet: Alphabet) -> String {
    answer
        .word
        .iter()
        .zip(&answer.blanks)
        .map(|(&l, &b)| alphabet.tile_text(crate::alphabet::tile(l, b)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabet::Alphabet;
    use crate::lexicon::Lexicon;

    fn lexicon(words: &[&str]) -> Lexicon {
        let text = words.join("\n");
        Lexicon::compile("t", &text, Alphabet::english()).unwrap().0
    }

    fn text(words: &[Vec<Letter>]) -> Vec<String> {
        words.iter().map(|w| Alphabet::english().word_string(w)).collect()
    }

    #[test]
    fn a_blank_stands_in_only_where_no_tile_can() {
        let lex = lexicon(&["AE", "AT", "ATE", "EAT", "TEA", "TAE", "ZA"]);
        let rack = Rack::parse("AT?", Alphabet::english()).unwrap();
        let found = anagrams(lex.dawg(), &rack, 0, 100);
        let words: Vec<Vec<Letter>> = found.iter().map(|f| f.word.clone()).collect();
        assert_eq!(text(&words), ["ATE", "EAT", "TAE", "TEA"]);
        // ATE uses the A and T tiles, the blank is the E.
        assert_eq!(found[0].blanks, [false, false, true]);
        let short = anagrams(lex.dawg(), &rack, 2, 100);
        let words: Vec<Vec<Letter>> = short.iter().map(|f| f.word.clone()).collect();
        assert_eq!(text(&words), ["AE", "AT", "ATE", "EAT", "TAE", "TEA", "ZA"]);
    }

    #[test]
    fn patterns_match_letters_sets_and_runs() {
        let lex = lexicon(&["QAT", "QI", "AQUA", "CAT", "COT", "CUT", "SCAT"]);
        let p = |s: &str| Pattern::parse(s, Alphabet::english()).unwrap();
        assert_eq!(text(&matching(lex.dawg(), &p("*Q*"), 100)), ["AQUA", "QAT", "QI"]);
        assert_eq!(text(&matching(lex.dawg(), &p("C[AO]T"), 100)), ["CAT", "COT"]);
        assert_eq!(text(&matching(lex.dawg(), &p("?AT"), 100)), ["CAT", "QAT"]);
        assert_eq!(text(&matching(lex.dawg(), &p("*AT"), 100)), ["CAT", "QAT", "SCAT"]);
        assert_eq!(text(&matching(lex.dawg(), &p("**T"), 1)), ["CAT"], "capped");
        assert_eq!(Pattern::parse("C[AO", Alphabet::english()), Err(StudyError::Unclosed));
        assert_eq!(Pattern::parse("C[]", Alphabet::english()), Err(StudyError::EmptySet));
        assert_eq!(Pattern::parse("", Alphabet::english()), Err(StudyError::Empty("pattern")));
        assert_eq!(
            Pattern::parse("ABCDEFGHIJKLMNOPQRSTUV", Alphabet::english()),
            Err(StudyError::TooLong { len: 22 })
        );
        assert_eq!(Pattern::parse("C1T", Alphabet::english()), Err(StudyError::Letter('1')));
    }

    #[test]
    fn hooks_front_and_back() {
        let lex = lexicon(&["AT", "CAT", "HAT", "ATE", "ATT"]);
        let word = Alphabet::english().parse_word("AT").unwrap();
        let h = hooks(lex.dawg(), &word, Alphabet::english());
        assert!(h.valid);
        assert_eq!(text(std::slice::from_ref(&h.front)), ["CH"]);
        assert_eq!(text(std::slice::from_ref(&h.back)), ["ET"]);
    }

    #[test]
    fn the_chance_of_drawing_a_word_counts_blanks() {
        let rules = Ruleset::english();
        // Two tiles from 100: A (9 tiles), then the blank (2) for either letter.
        let word = Alphabet::english().parse_word("QI").unwrap();
        // Q (1) and I (9), or a blank and the other, or two blanks.
        let ways = 1.0 * 9.0 + 2.0 * 9.0 + 2.0 * 1.0 + 1.0;
        assert!((probability(&rules, &word) - ways / 4950.0).abs() < 1e-12);
    }
}
