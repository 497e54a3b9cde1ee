//! The stores and replicas: the store contract against every store, recovery, failures, kill -9, and replicas sharing PostgreSQL.
//! One test binary of several modules (a cold `scripts/test` links a handful of binaries).

#[path = "../common/mod.rs"]
mod common;

mod fault_kill9;
mod ownership;
mod replicas;
mod review_jobs_kill9;
mod store_contract;
mod store_failure;
mod store_recovery;
mod tournament_kill9;
