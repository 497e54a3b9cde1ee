//! The events layer by itself, through its public API, against fakes of its seams (`fakes`): a
//! real host over the in-memory store, a game owner on another replica, the services' half of
//! StartRound. Each test one behaviour, named as a sentence.

mod broadcasts;
mod cache;
mod commands;
mod fakes;
mod games;
mod lobby;
mod reports;
mod results;
mod room;
mod spectators;
mod start_round;
mod tokens;
mod watch;
