//! Shared fixtures: the engine's (lexicons, board builders, a small generator) and an
//! in-process server with client helpers.
#![allow(dead_code)]

pub mod balancer;
pub mod binary;
#[path = "../../crates/engine/tests/common/mod.rs"]
mod engine;
pub mod otlp;
pub mod postgres;
pub mod server;
pub mod tls;

pub use engine::*;
