//! The engine's tests, built without the server: one binary of several modules.

#[path = "../common/mod.rs"]
mod common;

mod best_first;
mod board_incremental;
mod bot_strength;
mod dawg_properties;
mod director;
mod endgame;
mod game_bots;
mod game_scenarios;
mod gcg_replay;
mod infer;
mod lexicon_file;
mod movegen_oracle;
mod movegen_positions;
mod pre_endgame;
mod review;
mod rulesets;
mod scoring;
mod shipped_lexicons;
mod sim;
mod super_board;
mod validate_play;
mod word_study;
