//! Behaviour tests of the gRPC API, its sessions and the browser client, against the server users run.
//! One test binary of several modules (a cold `scripts/test` links a handful of binaries).

/// The browser helpers of the pages' tests (`web_*`), loaded once for all of them.
#[path = "../common/browser.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;

mod docs_examples;
mod example_bot;
mod notation_cgp;
mod privacy_audit;
mod server_admission;
mod server_analysis;
mod server_bad_input;
mod server_bot_arena;
mod server_bots;
mod server_bounded_errors;
mod server_broadcasts;
mod server_challenges;
mod server_champion;
mod server_check_in;
mod server_director_keys;
mod server_directors;
mod server_endgame;
mod server_finished_games;
mod server_gcg_round_trip;
mod server_gcg_views;
mod server_human_vs_bot;
mod server_import;
mod server_list_games;
mod server_metrics;
mod server_operations;
mod server_races;
mod server_ratings;
mod server_result_reports;
mod server_review;
mod server_review_jobs;
mod server_rulesets;
mod server_simulate;
mod server_super_board;
mod server_tables_prizes;
mod server_tls;
mod server_tournament_log;
mod server_tournament_machine;
mod server_tournament_plan;
mod server_tournament_truth;
mod server_tournaments;
mod server_turn_actions;
mod server_watch_ends;
mod server_watch_privacy;
mod server_word_study;
mod session_bots_background;
mod session_clocks;
mod session_sleep;
mod web_assets;
mod web_bots;
mod web_broadcast_results;
mod web_check_in;
mod web_client;
mod web_director_desk;
mod web_hall;
mod web_player_streamer;
mod web_print;
mod web_reports;
mod web_reviews;
mod web_seat_links;
