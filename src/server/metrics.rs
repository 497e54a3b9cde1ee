//! Prometheus metrics: live games, turns, RPC latency by method, move-generation and bot-turn
//! time. Exposed as text on `GET /metrics` of the metrics address, when one is configured.

use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntGauge, Registry, TextEncoder,
};
use std::time::Instant;

pub struct Metrics {
    pub registry: Registry,
    pub games_live: IntGauge,
    pub turns: IntCounter,
    pub rpc: HistogramVec,
    pub generation: Histogram,
    pub bot_turn: Histogram,
    /// Time for a log row to become durable (group commit included).
    pub commit: Histogram,
    /// Games set aside because their log could not be replayed (since this process started).
    pub quarantined: IntGauge,
}

const BUCKETS: &[f64] =
    &[0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

impl Metrics {
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let games_live =
            IntGauge::new("dawgref_games_live", "Games held by the server").expect("valid metric");
        let turns =
            IntCounter::new("dawgref_turns_total", "Turns taken (people and bots)").expect("valid metric");
        let rpc = HistogramVec::new(
            HistogramOpts::new("dawgref_rpc_seconds", "RPC latency").buckets(BUCKETS.to_vec()),
            &["method", "code"],
        )
        .expect("valid metric");
        let generation = Histogram::with_opts(
            HistogramOpts::new("dawgref_generation_seconds", "Full move generation")
                .buckets(BUCKETS.to_vec()),
        )
        .expect("valid metric");
        let bot_turn = Histogram::with_opts(
            HistogramOpts::new("dawgref_bot_turn_seconds", "A bot's decision").buckets(BUCKETS.to_vec()),
        )
        .expect("valid metric");
        let commit = Histogram::with_opts(
            HistogramOpts::new("dawgref_store_commit_seconds", "A log row's wait until durable")
                .buckets(BUCKETS.to_vec()),
        )
        .expect("valid metric");
        let quarantined = IntGauge::new(
            "dawgref_games_quarantined",
            "Games quarantined at start-up because their log could not be replayed",
        )
        .expect("valid metric");
        for m in [
            Box::new(games_live.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(turns.clone()),
            Box::new(rpc.clone()),
            Box::new(generation.clone()),
            Box::new(bot_turn.clone()),
            Box::new(commit.clone()),
            Box::new(quarantined.clone()),
        ] {
            registry.register(m).expect("metric names are unique");
        }
        Metrics { registry, games_live, turns, rpc, generation, bot_turn, commit, quarantined }
    }

    /// Record one RPC's latency and outcome.
    pub fn observe<T>(&self, method: &str, started: Instant, result: &Result<T, tonic::Status>) {
        let code = match result {
            Ok(_) => "OK".to_string(),
            Err(s) => format!("{:?}", s.code()),
        };
        self.rpc.with_label_values(&[method, &code]).observe(started.elapsed().as_secs_f64());
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}
