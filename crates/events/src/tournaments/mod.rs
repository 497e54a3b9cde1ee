//! Tournaments as kept and changed: the record (`dawgref-tournament`'s divisions and what the
//! server keeps beside them), its store format and the reader of earlier builds' records, the
//! change-and-retry loop with its hold and cache, the results that enter by themselves, the
//! director's calls that act on games (StartRound's among them), the plan changed after the
//! start (`plan`), players' own reports of their results (`reports`), a tournament as a spectator
//! sees it through a broadcast's delay, and the event's log and statistics.

mod batch;
mod cache;
mod change;
mod command;
mod direct;
mod event;
mod held;
mod legacy;
mod log;
mod marks;
mod plan;
mod record;
mod reports;
mod results;
mod reviews;
mod room;
mod start;
mod stored;
mod tokens;

pub(crate) use batch::Queues;
pub(crate) use cache::Cache;
pub use change::{Answer, derived_request_id};
pub use command::{Command, Import, Line, NewDivision, NewTournament, Outcome};
/// A review job as the store keeps it, and how one ends: the reviewer's and WatchReviews' words.
pub use dawgref_store::{ReviewJob, ReviewJobEnd, ReviewJobState};
pub use direct::{Hand, HandResult, Owners};
pub use event::{Actor, EventKind, GAME, LogFilter, ROOT, TournamentEvent};
pub use held::{GameLink, game_labels};
pub use log::{DivisionStatistics, log_csv, log_json_lines};
pub(crate) use marks::Marks;
pub use record::{DivisionId, DivisionRecord, LineReports, Record, ReportsMode, Source, game_result};
pub use reports::{Claimed, PlayerReport, ReportState};
pub use results::Watched;
pub use reviews::{MAX_REVIEW_MS, MIN_REVIEW_MS, REVIEW_MS, ReviewScope, review_ms};
pub use start::RoundGames;
