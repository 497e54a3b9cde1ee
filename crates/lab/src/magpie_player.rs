//! MAGPIE's timed player as a seat of ours (`vs-magpie h2h`): one process for the whole match,
//! `vs-magpie/h2h_player.c` built against MAGPIE's objects by `vs-magpie/run.sh`, shown each
//! position as the side to move sees it and answering with its move and the time it took.
//!
//! What it is shown: the board, the scores, the scoreless turns in a row and its own rack, as
//! CGP. CGP has no field for the bag, which MAGPIE counts as the unseen tiles less the
//! opponent's rack, and its player chooses by that count (the pre-endgame solver at 1 to 4
//! tiles, the endgame solver at none): so the opponent's rack is written too. With the bag
//! empty it is the unseen tiles, which the side to move can work out; otherwise seven of them
//! drawn at random, which MAGPIE's simulation puts back in the bag before drawing its own, and
//! its pre-endgame solver does not read (it enumerates the unseen tiles itself). So MAGPIE
//! knows no tile our referee does not show it.

use dawgref::bag::SplitMix64;
use dawgref::bot::{BotLevel, ChampionOptions, play_while};
use dawgref::game::{Action, Game, GameConfig};
use dawgref::lexicon::Lexicon;
use dawgref::notation::{Move, cgp, parse_move_on};
use dawgref::rack::Rack;
use dawgref::rules::Ruleset;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

/// The running player.
pub struct MagpiePlayer {
    child: Child,
    input: Option<ChildStdin>,
    /// Its answers (`h2h-…` lines), read on a thread of their own so that a wait can time out.
    answers: Receiver<String>,
    /// Longest wait for one answer: the budget, then a margin for a solver that overruns.
    patience: Duration,
    /// Why it no longer answers (it ended, or an answer came too late to be told from the next).
    broken: Option<String>,
}

/// What MAGPIE answered for a position.
pub struct Answer {
    /// The move as MAGPIE wrote it (GCG: `8H WO.D +23`, `-ABC +0`, `- +0`).
    pub text: String,
    /// The move as an action of ours.
    pub action: Action,
    /// The score MAGPIE gave it.
    pub score: i32,
    /// Its own time on the move, in milliseconds (the position's loading left out).
    pub ms: f64,
}

impl MagpiePlayer {
    /// Start `bin/h2h-player` in MAGPIE's directory `dir` (its data in `dir/data`) on core
    /// `core`, playing `lexicon` with `seconds` a move; waits until its data is loaded.
    pub fn start(
        dir: &Path,
        core: usize,
        lexicon: &str,
        seconds: f64,
        seed: u64,
    ) -> Result<MagpiePlayer, String> {
        // The player's path is taskset's argument, read after the move into `dir`.
        let dir = dir.canonicalize().map_err(|e| format!("MAGPIE's directory {}: {e}", dir.display()))?;
        let player = dir.join("bin/h2h-player");
        if !player.is_file() {
            return Err(format!("{} is missing: vs-magpie/run.sh h2h builds it", player.display()));
        }
        let mut child = Command::new("taskset")
            .args(["-c", &core.to_string()])
            .arg(&player)
            .args([lexicon, &seconds.to_string(), &seed.to_string()])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} under taskset: {e}", player.display()))?;
        let output = child.stdout.take().ok_or("MAGPIE's player has no standard output")?;
        let (send, answers) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if line.starts_with("h2h-") {
                    if send.send(line).is_err() {
                        break;
                    }
                } else {
                    // MAGPIE's own logging, passed on.
                    eprintln!("magpie: {line}");
                }
            }
        });
        let input = child.stdin.take();
        let mut player = MagpiePlayer {
            child,
            input,
            answers,
            patience: Duration::from_secs_f64(60.0 + 10.0 * seconds),
            broken: None,
        };
        match player.answer("loading its data")?.as_str() {
            "h2h-ready" => Ok(player),
            other => Err(format!("MAGPIE's player did not start: {other}")),
        }
    }

    /// Whether it no longer answers (every later question fails at once).
    pub fn broken(&self) -> bool {
        self.broken.is_some()
    }

    /// The next answer line, waiting at most [`MagpiePlayer::patience`] for it.
    fn answer(&mut self, doing: &str) -> Result<String, String> {
        if let Some(why) = &self.broken {
            return Err(why.clone());
        }
        let why = match self.answers.recv_timeout(self.patience) {
            Ok(line) => return Ok(line),
            Err(RecvTimeoutError::Timeout) => {
                format!(
                    "MAGPIE's player gave no answer in {:.0} s while {doing}",
                    self.patience.as_secs_f64()
                )
            }
            Err(RecvTimeoutError::Disconnected) => format!("MAGPIE's player ended while {doing}"),
        };
        self.broken = Some(why.clone());
        Err(why)
    }

    /// MAGPIE's move in `game` for the side to move, shown `position` (see [`position`]).
    pub fn choose(&mut self, game: &Game, position: &str) -> Result<Answer, String> {
        let input = self.input.as_mut().ok_or("MAGPIE's player has no standard input")?;
        writeln!(input, "cgp {position}")
            .and_then(|()| input.flush())
            .map_err(|e| format!("cannot write to MAGPIE's player: {e}"))?;
        let line = self.answer("choosing a move")?;
        read_answer(&line, game)
    }
}

/// MAGPIE's answer line for the side to move in `game`: its move as an action of ours, or the
/// error it gave; a move we cannot read is an error naming it (whether it is legal is the
/// caller's to ask).
fn read_answer(line: &str, game: &Game) -> Result<Answer, String> {
    if let Some(error) = line.strip_prefix("h2h-error ") {
        return Err(format!("MAGPIE refused the position: {error}"));
    }
    let unreadable = || format!("MAGPIE's answer {line:?} is not `h2h-move MILLISECONDS MOVE +SCORE`");
    let rest = line.strip_prefix("h2h-move ").ok_or_else(unreadable)?;
    let (ms, text) = rest.split_once(' ').ok_or_else(unreadable)?;
    let ms: f64 = ms.parse().map_err(|_| unreadable())?;
    let (notation, score) = text.rsplit_once(' ').ok_or_else(unreadable)?;
    let score: i32 = score.strip_prefix('+').unwrap_or(score).parse().map_err(|_| unreadable())?;
    let action = match parse_move_on(notation, game.config().rules.alphabet, game.board().size()) {
        Ok(Move::Play(play)) => Action::Play(play),
        Ok(Move::Exchange(tiles)) => Action::Exchange(tiles),
        Ok(Move::Pass) => Action::Pass,
        Err(e) => return Err(format!("MAGPIE's move {notation:?} does not read as a move of ours: {e}")),
    };
    Ok(Answer { text: text.to_string(), action, score, ms })
}

impl Drop for MagpiePlayer {
    fn drop(&mut self) {
        // The end of its input ends its loop; one that does not end soon is killed.
        self.input = None;
        for _ in 0..250 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The position MAGPIE is shown for the side to move in `game`, as CGP without operations (the
/// side to move first): see the module's top for the opponent's rack; `seed` draws it.
pub fn position(game: &Game, seed: u64) -> Result<String, String> {
    let me = game.to_move();
    let mine = game.rack(me).copied().ok_or("the side to move has no rack")?;
    let unseen = dawgref::endgame::Position::unseen(game.board(), &mine)
        .ok_or("the board and the rack hold more tiles than the set")?;
    let theirs =
        if game.bag_len() == 0 { unseen } else { drawn(&unseen, game.config().rules.rack_size, seed) };
    let scores = game.scores();
    Ok(cgp::write(&cgp::from_board(
        game.board(),
        &[mine, theirs],
        &[scores[me], scores[1 - me]],
        game.scoreless_turns(),
        cgp::Ops::default(),
    )))
}

/// `n` of `tiles` drawn at random (all of them when there are no more).
fn drawn(tiles: &Rack, n: usize, seed: u64) -> Rack {
    let mut pool: Vec<_> = tiles.tiles().collect();
    let mut rng = SplitMix64::new(seed);
    let mut rack = Rack::new();
    for _ in 0..n.min(pool.len()) {
        match pool.swap_remove(rng.below(pool.len() as u64) as usize) {
            Some(letter) => rack.add(letter),
            None => rack.add_blank(),
        }
    }
    rack
}

/// The two sides of a game against MAGPIE, as `h2h` and `disagree` both name them.
#[derive(clap::Args, Debug)]
pub(crate) struct Sides {
    /// MAGPIE's directory, with its player `bin/h2h-player` built and its data in `data/`
    /// (`vs-magpie/run.sh` makes both).
    #[arg(long)]
    pub(crate) magpie: std::path::PathBuf,
    /// The core MAGPIE's player is pinned to (`taskset -c`); ours is the caller's to pin.
    #[arg(long, default_value_t = 1)]
    pub(crate) magpie_core: usize,
    /// MAGPIE's name for our lexicon (run.sh converts it as NWL99: MAGPIE takes the letter
    /// distribution from the start of the name).
    #[arg(long, default_value = "NWL99")]
    pub(crate) magpie_lexicon: String,
    /// The champion with these changes, named as `match` names them after `champion+`
    /// (`sw2`, `egplay+sw1.5`): a lever on trial. The shipped champion when not given.
    #[arg(long)]
    pub(crate) champion: Option<String>,
}

impl Sides {
    /// MAGPIE's player started with `seconds` a move and warmed up ([`warm_up`]), and the
    /// warm-up's time in milliseconds.
    pub(crate) fn start_magpie(
        &self,
        seconds: f64,
        seed: u64,
        rules: &Arc<Ruleset>,
        lexicon: &Arc<Lexicon>,
    ) -> Result<(MagpiePlayer, f64), String> {
        let mut magpie =
            MagpiePlayer::start(&self.magpie, self.magpie_core, &self.magpie_lexicon, seconds, seed)?;
        let warm = warm_up(&mut magpie, rules, lexicon, seed)?;
        Ok((magpie, warm))
    }
}

/// MAGPIE's first endgame makes its transposition table (a fifth of the memory, cleared
/// byte by byte): one endgame of a strong-bot game solved before the match, so that no move
/// of the match pays for it. Returns its time in milliseconds.
fn warm_up(
    magpie: &mut MagpiePlayer,
    rules: &Arc<Ruleset>,
    lexicon: &Arc<Lexicon>,
    seed: u64,
) -> Result<f64, String> {
    for g in 0..20 {
        let Ok(mut game) =
            Game::new(GameConfig::new(rules.clone(), lexicon.clone(), seed.wrapping_add(1_000_000 + g)))
        else {
            continue;
        };
        if play_while(&mut game, &[BotLevel::Strong], 1000, |g| g.bag_len() > 0).is_err()
            || game.is_over()
            || game.bag_len() > 0
        {
            continue;
        }
        let position = position(&game, seed)?;
        return magpie.choose(&game, &position).map(|answer| answer.ms);
    }
    Err("no strong-bot game reached an endgame to warm MAGPIE up on".into())
}

/// The champion's options: the shipped ones, or `variant`'s changes to them (`--champion`).
pub(crate) fn champion_options(variant: Option<&str>, rules: &Ruleset) -> Result<ChampionOptions, String> {
    match variant {
        None => Ok(ChampionOptions::for_rules(rules)),
        Some(v) => crate::matches::champion_options(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dawgref::bot::{BotLevel, play_while};
    use dawgref::game::GameConfig;
    use dawgref::notation::parse_play;
    use dawgref::rules::RulesetKind;

    fn game(seed: u64) -> Game {
        let (rules, lexicon) = crate::setup::ruleset(RulesetKind::english()).unwrap();
        Game::new(GameConfig::new(rules, lexicon, seed)).unwrap()
    }

    /// MAGPIE writes its move as GCG (`string_builder_add_gcg_move`): a play with `.` for tiles
    /// played through and lower case for blanks, `-TILES` an exchange, `-` a pass, each with
    /// its score.
    #[test]
    fn magpie_answers_read_as_our_actions() {
        let g = game(1);
        let alphabet = g.config().rules.alphabet;
        let play = read_answer("h2h-move 250.3 8G cAMORRA +68", &g).unwrap();
        assert_eq!(play.action, Action::Play(parse_play("8G cAMORRA", alphabet).unwrap()));
        assert_eq!((play.text.as_str(), play.score, play.ms), ("8G cAMORRA +68", 68, 250.3));
        let through = read_answer("h2h-move 12.0 O4 WON.I +39", &g).unwrap();
        assert_eq!(through.action, Action::Play(parse_play("O4 WON.I", alphabet).unwrap()));
        let exchange = read_answer("h2h-move 1.5 -AQ? +0", &g).unwrap();
        assert_eq!(exchange.action, Action::Exchange(Rack::parse("AQ?", alphabet).unwrap()));
        assert_eq!(read_answer("h2h-move 0.2 - +0", &g).unwrap().action, Action::Pass);
    }

    #[test]
    fn what_cannot_be_read_is_an_error_naming_it() {
        let g = game(1);
        let error = |line: &str| read_answer(line, &g).err().unwrap();
        assert_eq!(error("h2h-error cgp: bad rack"), "MAGPIE refused the position: cgp: bad rack");
        assert_eq!(
            error("h2h-move soon 8G CAB +7"),
            "MAGPIE's answer \"h2h-move soon 8G CAB +7\" is not `h2h-move MILLISECONDS MOVE +SCORE`"
        );
        assert_eq!(
            error("h2h-ready"),
            "MAGPIE's answer \"h2h-ready\" is not `h2h-move MILLISECONDS MOVE +SCORE`"
        );
        assert_eq!(
            error("h2h-move 3.0 8Z CAB +7"),
            "MAGPIE's move \"8Z CAB\" does not read as a move of ours: bad coordinate \"8Z\": expected \
             row-first (8H) for across or column-first (H8) for down, rows 1-15, columns A-O"
        );
    }

    /// MAGPIE is shown its own rack, the scores and scoreless turns from its side, and, for the
    /// opponent, seven of the tiles it cannot see while the bag holds some, and the opponent's
    /// rack (all it cannot see) once the bag is empty.
    #[test]
    fn magpie_sees_what_the_side_to_move_sees() {
        let mut g = game(3);
        play_while(&mut g, &[BotLevel::Greedy], 1000, |g| g.turn() < 3).unwrap();
        let me = g.to_move();
        let shown = cgp::parse(&position(&g, 5).unwrap(), None).unwrap();
        assert_eq!(shown.racks[0], *g.rack(me).unwrap());
        assert_eq!(shown.scores, vec![g.scores()[me], g.scores()[1 - me]]);
        assert_eq!(shown.zeros, g.scoreless_turns());
        let unseen = dawgref::endgame::Position::unseen(g.board(), g.rack(me).unwrap()).unwrap();
        assert_eq!(shown.racks[1].len(), 7);
        assert!(unseen.contains(&shown.racks[1]));
        // Another seed draws other tiles: they are not the opponent's rack read off the game.
        let other = cgp::parse(&position(&g, 6).unwrap(), None).unwrap();
        assert_ne!(other.racks[1], shown.racks[1]);

        play_while(&mut g, &[BotLevel::Greedy], 1000, |g| g.bag_len() > 0).unwrap();
        assert!(!g.is_over() && g.bag_len() == 0);
        let me = g.to_move();
        let shown = cgp::parse(&position(&g, 5).unwrap(), None).unwrap();
        assert_eq!(shown.racks, vec![*g.rack(me).unwrap(), *g.rack(1 - me).unwrap()]);
    }
}
