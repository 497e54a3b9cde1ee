//! Logs and traces. [`init`] installs the one subscriber: log lines (text or JSON) filtered by
//! `RUST_LOG`, and, given an OTLP endpoint, the spans of our crates exported over OTLP/gRPC in
//! batches. Off (no endpoint), nothing below costs more than a disabled callsite's check: the
//! inner spans are at DEBUG, which the log filter leaves out, and no trace context is read.
//!
//! One trace follows a call through the server: [`rpc_span`] continues the client's W3C
//! `traceparent` (a malformed one is ignored: the call starts a trace of its own), the span
//! travels with the command into the game's task (the actor's span, the store commit, and the
//! bot decision it prompts are its children), and [`inject`] carries it on a call forwarded to
//! another replica, whose own `rpc_span` continues it. Log lines inside a call name its
//! `trace_id`.

use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{TraceContextExt, TracerProvider};
use opentelemetry_otlp::WithExportConfig;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use std::sync::atomic::{AtomicBool, Ordering};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Whether spans are exported (set once, by [`init`]).
static EXPORTING: AtomicBool = AtomicBool::new(false);

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
/// and with `otlp_endpoint` (`http://collector:4317`) spans exported over OTLP/gRPC as service
/// `dawgref`. Call it once, inside the tokio runtime when exporting (the exporter's client
/// lives there). The batch's pace and size follow the SDK's `OTEL_BSP_*` environment.
pub fn init(json: bool, otlp_endpoint: Option<&str>) -> Result<Telemetry, String> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let lines = if json {
        tracing_subscriber::fmt::layer().json().with_filter(filter).boxed()
    } else {
        tracing_subscriber::fmt::layer().with_filter(filter).boxed()
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
    let provider =
        SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build();
    let spans = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("dawgref"))
        .with_tracked_inactivity(false)
        .with_threads(false)
        // Our spans only: not the log events, not the libraries' spans.
        .with_filter(tracing_subscriber::filter::filter_fn(|m| {
            m.is_span() && m.target().starts_with("dawgref")
        }));
    tracing_subscriber::registry().with(lines).with(spans).try_init().map_err(|e| e.to_string())?;
    EXPORTING.store(true, Ordering::Release);
    Ok(Telemetry { provider: Some(provider) })
}

/// Whether spans are exported.
pub fn exporting() -> bool {
    EXPORTING.load(Ordering::Acquire)
}

/// The span of one call, `rpc` with its path: the child of the caller's `traceparent` when
/// it sent a valid one, and, when exporting, naming its `trace_id` for the log lines within.
pub fn rpc_span<B>(request: &http::Request<B>) -> tracing::Span {
    let path = request.uri().path();
    let span = tracing::info_span!(
        "rpc",
        path,
        trace_id = tracing::field::Empty,
        otel.name = path.trim_start_matches('/'),
        otel.kind = "server"
    );
    if exporting() {
        let parent = TraceContextPropagator::new().extract(&Headers(request.headers()));
        if parent.span().span_context().is_valid() {
            let _ = span.set_parent(parent);
        }
        let trace_id = span.context().span().span_context().trace_id();
        span.record("trace_id", tracing::field::display(trace_id));
    }
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
