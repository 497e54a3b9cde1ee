//! What a request does inside a game's task: [`Actor::handle`] takes a command off the channel,
//! and every request that may be a retry (a turn, a challenge, a director's action) goes through
//! the one path [`Actor::once`]: answered as the first time when it was made before, else the
//! engine call, the log row with the answer written down, then the answer. A join is logged and
//! answered the same way, without a request id.

use super::{Actor, Broken, Failure, answer};
use crate::command::*;
use crate::context::Answers;
use crate::error::HostError;
use crate::input;
use crate::state::{Asker, Snapshot, TokenHash};
use dawgref_engine::game::{Action, EventKind};
use std::sync::Arc;

impl Actor {
    pub(super) async fn handle(&mut self, command: Command) -> Result<(), Broken> {
        match command {
            Command::Turn { seat, turn, reply } => answer(reply, self.turn(seat, turn).await),
            Command::Challenge { seat, request_id, reply } => {
                answer(reply, self.challenge(seat, request_id).await)
            }
            Command::Join { name, token, reply } => answer(reply, self.join(name, token).await),
            Command::NewToken { seat, token, reply } => answer(reply, self.new_token(seat, token).await),
            Command::Direct { op, by, request_id, reply } => {
                answer(reply, self.direct(op, by, request_id).await)
            }
            Command::Settled(tx) => {
                self.waiting.push(tx);
                Ok(())
            }
        }
    }

    /// The one path of a request that may be a retry (a turn, a challenge, a director's action):
    /// answered as the first time when `asker` sent `key` before; else `change` changes the game
    /// at the clock's reading now (a refusal still commits a time loss noticed on the way),
    /// `made` makes the answer from what it returned and the game after it, the services write
    /// the answer down when the request has a key (`write`), and the change is durable, the
    /// answer remembered in its log row, before the caller hears of it.
    async fn once<X, T>(
        &mut self,
        asker: Asker,
        key: Option<String>,
        change: impl FnOnce(&mut Self, u64) -> Result<X, HostError>,
        made: impl FnOnce(X, Arc<Snapshot>, u64) -> T,
        write: fn(&dyn Answers, &T) -> Vec<u8>,
    ) -> Result<Answer<T>, Failure> {
        if let Some(first) = self.core.remembered(asker, key.as_deref()) {
            return Ok(Answer::Remembered(first));
        }
        let now = self.clock.now_ms();
        let changed = match change(self, now) {
            Ok(changed) => changed,
            Err(e) => {
                self.commit(None, None).await?;
                return Err(e.into());
            }
        };
        let snapshot = Arc::new(self.core.snapshot());
        let done = made(changed, snapshot.clone(), now);
        let bytes = key.as_ref().map(|_| write(&*self.ctx.answers, &done));
        let row = self.core.remember(asker, key, bytes.clone());
        self.commit(row, Some(snapshot)).await?;
        // With a request id, the answer is the bytes written down: a retry gets the same.
        Ok(bytes.map_or(Answer::Done(done), Answer::Remembered))
    }

    async fn turn(&mut self, seat: usize, turn: Turn) -> Result<Answer<TurnDone>, Failure> {
        let id = self.id;
        let change = |actor: &mut Self, now: u64| {
            let game = actor.core.game();
            if let Some(expected) = turn.expected_turn
                && expected != game.turn()
            {
                return Err(HostError::StaleTurn { expected, actual: game.turn() });
            }
            let action = match turn.action {
                TurnAction::Play(p) => Action::Play(p.to_play(game.board())?),
                TurnAction::Exchange(tiles) => {
                    Action::Exchange(input::exchange(&tiles, &game.config().rules)?)
                }
                TurnAction::Pass => Action::Pass,
                TurnAction::Resign => Action::Resign,
            };
            let is_play = matches!(action, Action::Play(_));
            let before = game.history().len();
            actor.core.act(seat, action, now).map_err(HostError::Game)?;
            actor.ctx.metrics.turns.inc();
            Ok((before, is_play))
        };
        let made = |(before, is_play): (usize, bool), snapshot: Arc<Snapshot>, now_ms| {
            let new = &snapshot.game().history()[before..];
            let points = new.iter().find(|e| e.seat == seat).map_or(0, |e| e.points);
            let play = new.iter().find_map(|e| match &e.kind {
                EventKind::Play { play, .. } if is_play => Some(*play),
                _ => None,
            });
            TurnDone { id, seat, points, play, snapshot, now_ms }
        };
        self.once(Asker::Seat(seat), turn.request_id, change, made, |a, d| a.turn(d)).await
    }

    async fn challenge(
        &mut self,
        seat: usize,
        request_id: Option<String>,
    ) -> Result<Answer<ChallengeDone>, Failure> {
        let id = self.id;
        let key = request_id.as_deref().map(challenge_key);
        let change = |actor: &mut Self, now| actor.core.challenge(seat, now).map_err(HostError::Game);
        let made = |verdict, snapshot, now_ms| ChallengeDone { id, seat, verdict, snapshot, now_ms };
        self.once(Asker::Seat(seat), key, change, made, |a, d| a.challenge(d)).await
    }

    async fn direct(
        &mut self,
        op: DirectorOp,
        by: Option<String>,
        request_id: Option<String>,
    ) -> Result<Answer<DirectorDone>, Failure> {
        let id = self.id;
        let key = request_id.as_deref().map(director_key);
        let change = |actor: &mut Self, now| {
            match op {
                DirectorOp::Act(action) => actor.core.direct(action, by, now),
                DirectorOp::Undo => actor.core.undo(by, now),
            }
            .map_err(HostError::Game)?;
            // A taken-back turn changes what the bots were thinking about: they look again.
            actor.bots.look_again();
            Ok(())
        };
        let made = |(), snapshot, now_ms| DirectorDone { id, snapshot, now_ms };
        self.once(Asker::Director, key, change, made, |a, d| a.director(d)).await
    }

    async fn new_token(&mut self, seat: usize, token: TokenHash) -> Result<(), Failure> {
        let now = self.clock.now_ms();
        self.core.new_token(seat, token, now)?;
        self.commit(None, None).await?;
        Ok(())
    }

    async fn join(&mut self, name: String, token: TokenHash) -> Result<usize, Failure> {
        let now = self.clock.now_ms();
        let seat = self.core.join(&name, token, now).ok_or(HostError::NoOpenSeat)?;
        self.commit(None, None).await?;
        Ok(seat)
    }
}
