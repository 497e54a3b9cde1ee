//! Logs and traces. [`init`] installs the one subscriber: log lines (text or JSON) filtered by
//! `RUST_LOG`, and, given an OTLP endpoint, the spans of traced calls exported over OTLP/gRPC in
//! batches. Off (no endpoint), the call's span is what it always was, and what is below costs a
//! check or two a call.
//!
//! A call is traced or not from its start ([`rpc_span`]): a client's valid W3C `traceparent`
//! decides (its sampled flag; a malformed one is ignored), else one call in 1/`sample_ratio`
//! is. A traced call's span continues the client's trace and names its `trace_id` in the log
//! lines within; the game's command, its store commit and the bot decision it prompts join it
//! in the host ([`crate::host::trace`]), and [`inject`] carries it on a call forwarded to another
//! replica, whose own `rpc_span` continues it. An untraced call's span is one the exporter never
//! sees, and the spans below it are never made, so it costs what it costs with tracing off.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Set by [`init`] when spans are exported: one call in this many without a client's trace is
/// traced (0: none of them).
static SAMPLE_EVERY: OnceLock<u64> = OnceLock::new();
/// The calls without a client's trace so far.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// The target of an untraced call's span: the one `dawgref…` target the exporter never sees
/// (`RUST_LOG=dawgref=info` still shows it in the log lines).
const UNTRACED: &str = "dawgref::untraced";

/// The installed subscriber's exporter: [`Telemetry::shutdown`] sends what is still batched.
#[must_use = "shut it down at exit, or the last batch of spans is lost"]
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Telemetry {
    /// Send the spans still batched, then stop exporting.
    pub fn shutdown(self) {
        if let Some(provider) = self.provider
            && let Err(e) = provider.shutdown()
        {
            eprintln!("traces: the last batch was not sent: {e}");
        }
    }
}

/// Install the process's subscriber: log lines (`json` or text) at `RUST_LOG` (default `info`),
/// and with `otlp_endpoint` (`http://collector:4317`) the traced calls' spans exported over
/// OTLP/gRPC as service `dawgref`, a `sample_ratio` (0 to 1) of the calls that bring no trace of
/// their own traced. Call it once, inside the tokio runtime when exporting (the exporter's client
/// lives there). The batch's pace and size follow the SDK's `OTEL_BSP_*` environment, the
/// resource's attributes `OTEL_RESOURCE_ATTRIBUTES`.
pub fn init(json: bool, otlp_endpoint: Option<&str>, sample_ratio: f64) -> Result<Telemetry, String> {
    if !(0.0..=1.0).contains(&sample_ratio) {
        return Err(format!("--otlp-sample-ratio {sample_ratio}: from 0 to 1"));
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let lines = if json {
        tracing_subscriber::fmt::layer().json().with_filter(filter).boxed()
    } else {
        // Colours only for a person's terminal: a log written to a file or a pipe is plain text.
        use std::io::IsTerminal;
        let ansi = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        tracing_subscriber::fmt::layer().with_ansi(ansi).with_filter(filter).boxed()
    };
    let Some(endpoint) = otlp_endpoint else {
        tracing_subscriber::registry().with(lines).try_init().map_err(|e| e.to_string())?;
        return Ok(Telemetry { provider: None });
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint)
        .build()
        .map_err(|e| format!("--otlp-endpoint {endpoint:?}: {e}"))?;
    let resource = opentelemetry_sdk::Resource::builder().with_service_name("dawgref").build();
    // Which calls are traced is decided at the call (`rpc_span`): whatever reaches the SDK is.
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource)
        .with_sampler(opentelemetry_sdk::trace::Sampler::AlwaysOn)
        .build();
    let spans = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("dawgref"))
        .with_tracked_inactivity(false)
        .with_threads(false)
        // Our spans only (not the log events, not the libraries' spans), an untraced call's
        // not among them. Decided once per callsite.
        .with_filter(tracing_subscriber::filter::filter_fn(|m| {
            m.is_span() && m.target().starts_with("dawgref") && m.target() != UNTRACED
        }));
    tracing_subscriber::registry().with(lines).with(spans).try_init().map_err(|e| e.to_string())?;
    let every = if sample_ratio > 0.0 { (1.0 / sample_ratio).round() as u64 } else { 0 };
    let _ = SAMPLE_EVERY.set(every);
    Ok(Telemetry { provider: Some(provider) })
}

/// Whether spans are exported.
pub fn exporting() -> bool {
    SAMPLE_EVERY.get().is_some()
}

/// The span of one call, `rpc` with its path. When exporting and the call is traced: the child
/// of the caller's `traceparent` when it sent a valid one, naming its `trace_id` for the log
/// lines within.
pub fn rpc_span<B>(request: &http::Request<B>) -> tracing::Span {
    let path = request.uri().path();
    let Some(&every) = SAMPLE_EVERY.get() else {
        return tracing::info_span!("rpc", path);
    };
    let parent = TraceContextPropagator::new().extract(&Headers(request.headers()));
    let from_client = parent.span().span_context().clone();
    let traced = if from_client.is_valid() {
        from_client.is_sampled()
    } else {
        every > 0 && CALLS.fetch_add(1, Ordering::Relaxed).is_multiple_of(every)
    };
    if !traced {
        return tracing::info_span!(target: UNTRACED, "rpc", path);
    }
    let span = tracing::info_span!(
        "rpc",
        path,
        trace_id = tracing::field::Empty,
        otel.name = path.trim_start_matches('/'),
        otel.kind = "server"
    );
    if from_client.is_valid() {
        let _ = span.set_parent(parent);
    }
    let trace_id = span.context().span().span_context().trace_id();
    span.record("trace_id", tracing::field::display(trace_id));
    span
}

/// Carry `span`'s trace to the call about to be made (a forward to another replica), as W3C
/// `traceparent`. Nothing when not exporting.
pub fn inject(span: &tracing::Span, metadata: &mut tonic::metadata::MetadataMap) {
    if exporting() {
        TraceContextPropagator::new().inject_context(&span.context(), &mut Metadata(metadata));
    }
}

struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

struct Metadata<'a>(&'a mut tonic::metadata::MetadataMap);

impl Injector for Metadata<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(key), Ok(value)) = (
            tonic::metadata::MetadataKey::from_bytes(key.as_bytes()),
            tonic::metadata::MetadataValue::try_from(value),
        ) {
            self.0.insert(key, value);
        }
    }
}
