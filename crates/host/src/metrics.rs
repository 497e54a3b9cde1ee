//! Prometheus metrics: live games, turns, RPC latency by method and status code (recorded for
//! every RPC by the services' tower layer, `dawgref::metrics::RpcMetricsLayer`), move-generation
//! and bot time, commit latency, leases. Exposed as text on `GET /metrics` of the metrics
//! address, when one is configured.

use prometheus::core::Collector;
use prometheus::{
    Encoder, Histogram, HistogramOpts, HistogramVec, IntCounter, IntGauge, Registry, TextEncoder,
};

pub struct Metrics {
    pub registry: Registry,
    pub games_live: IntGauge,
    /// Games asleep: out of memory after an idle spell, woken by their next request.
    pub games_asleep: IntGauge,
    /// Games brought back from the store after sleeping (one load each, however many asked).
    pub games_woken: IntCounter,
    /// Games loaded from the store for a request (woken, finished, or another replica's).
    pub games_loaded: IntCounter,
    pub turns: IntCounter,
    pub rpc: HistogramVec,
    /// `rpc`'s OK series of each timed method, resolved once (`time_methods`): a label lookup
    /// hashes both labels under a lock on every call, a measurable part of a small RPC's time.
    rpc_ok: std::sync::OnceLock<Vec<(&'static str, Histogram)>>,
    pub generation: Histogram,
    pub bot_turn: Histogram,
    /// Bot decisions dropped because the game moved on while the bot thought.
    pub bot_stale: IntCounter,
    /// Time for a log row to become durable (group commit included).
    pub commit: Histogram,
    /// Games set aside because their log could not be replayed (since this process started).
    pub quarantined: IntGauge,
    /// Replicas only: leases this replica holds, games it took over from a replica that was
    /// gone, games another replica took from it, and calls it forwarded to a game's owner.
    pub leases_held: IntGauge,
    pub takeovers: IntCounter,
    pub leases_lost: IntCounter,
    pub handovers: IntCounter,
    pub forwarded: IntCounter,
    /// Moves the engine judged for broadcasts' spectators (once per move, however many watch).
    pub broadcast_analyses: IntCounter,
    /// Games a review job reviewed here, the review made and kept (a job finished without one,
    /// its game unchanged, in play or gone, is not counted).
    pub reviews_made: IntCounter,
}

const BUCKETS: &[f64] =
    &[0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

/// Register a metric built from constant names. Building or registering fails only on a bad or
/// duplicate name: a programming error that the first start (and every test) meets at once.
fn register<M: Collector + Clone + 'static>(registry: &Registry, made: prometheus::Result<M>) -> M {
    made.and_then(|m| registry.register(Box::new(m.clone())).map(|()| m))
        .expect("constant metric definitions are valid and unique")
}

fn histogram(name: &str, help: &str) -> prometheus::Result<Histogram> {
    Histogram::with_opts(HistogramOpts::new(name, help).buckets(BUCKETS.to_vec()))
}

impl Metrics {
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let r = &registry;
        let rpc = register(
            r,
            HistogramVec::new(
                HistogramOpts::new("dawgref_rpc_seconds", "RPC latency").buckets(BUCKETS.to_vec()),
                &["method", "code"],
            ),
        );
        Metrics {
            rpc,
            rpc_ok: std::sync::OnceLock::new(),
            games_live: register(r, IntGauge::new("dawgref_games_live", "Games held by the server")),
            games_asleep: register(
                r,
                IntGauge::new(
                    "dawgref_games_asleep",
                    "Games out of memory after an idle spell, woken on demand",
                ),
            ),
            games_woken: register(
                r,
                IntCounter::new(
                    "dawgref_games_woken_total",
                    "Games brought back from the store after sleeping",
                ),
            ),
            games_loaded: register(
                r,
                IntCounter::new("dawgref_games_loaded_total", "Games loaded from the store for a request"),
            ),
            turns: register(r, IntCounter::new("dawgref_turns_total", "Turns taken (people and bots)")),
            generation: register(r, histogram("dawgref_generation_seconds", "Full move generation")),
            bot_turn: register(r, histogram("dawgref_bot_turn_seconds", "A bot's decision")),
            bot_stale: register(
                r,
                IntCounter::new(
                    "dawgref_bot_decisions_stale_total",
                    "Bot decisions dropped because the game moved on while the bot thought",
                ),
            ),
            commit: register(r, histogram("dawgref_store_commit_seconds", "A log row's wait until durable")),
            quarantined: register(
                r,
                IntGauge::new(
                    "dawgref_games_quarantined",
                    "Games quarantined at start-up because their log could not be replayed",
                ),
            ),
            leases_held: register(r, IntGauge::new("dawgref_leases_held", "Game leases this replica holds")),
            takeovers: register(
                r,
                IntCounter::new("dawgref_takeovers_total", "Games taken over from a replica that was gone"),
            ),
            leases_lost: register(
                r,
                IntCounter::new("dawgref_leases_lost_total", "Games another replica took over from this one"),
            ),
            handovers: register(
                r,
                IntCounter::new(
                    "dawgref_handovers_total",
                    "Games this replica gave to the replica their calls came through",
                ),
            ),
            forwarded: register(
                r,
                IntCounter::new(
                    "dawgref_forwarded_calls_total",
                    "Calls forwarded to the replica owning the game",
                ),
            ),
            broadcast_analyses: register(
                r,
                IntCounter::new(
                    "dawgref_broadcast_analyses_total",
                    "Moves the engine judged for broadcasts' spectators",
                ),
            ),
            reviews_made: register(
                r,
                IntCounter::new("dawgref_reviews_made_total", "Games a review job reviewed and kept here"),
            ),
            registry,
        }
    }

    /// Time `methods` under their own names (the services give every method they serve, once,
    /// at start); any other path is timed as `other`, so a client cannot mint labels. Each shows
    /// in the exposition from the start.
    pub fn time_methods(&self, methods: &'static [String]) {
        let _ = self.rpc_ok.set(
            methods.iter().map(|m| (m.as_str(), self.rpc.with_label_values(&[m.as_str(), "OK"]))).collect(),
        );
    }

    /// The timed method named `name`, if it is one.
    pub fn timed(&self, name: &str) -> Option<&'static str> {
        self.rpc_ok.get()?.iter().find(|(m, _)| *m == name).map(|(m, _)| *m)
    }

    /// Record one RPC's latency and outcome: `method` a timed one or `other`, `code` its status
    /// code's label (`ok`: the call succeeded).
    pub fn observe_rpc(&self, method: &'static str, ok: bool, code: &'static str, seconds: f64) {
        match (ok, self.rpc_ok.get().and_then(|ok| ok.iter().find(|(m, _)| *m == method))) {
            (true, Some((_, series))) => series.observe(seconds),
            _ => self.rpc.with_label_values(&[method, code]).observe(seconds),
        }
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
