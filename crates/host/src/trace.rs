//! Which work joins a trace. A call is traced or not from its start (the server decides, or the
//! client's `traceparent` does); the host's spans (a game's command, its store commit, the bot
//! decision and move it prompts) and the server's forward are made only inside a traced call,
//! as children of its trace context. An untraced call makes none of them, so that tracing
//! costs a call nothing unless it is exported.

use opentelemetry::Context;
use opentelemetry::trace::TraceContextExt;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The trace of the current span, when it is exported.
pub fn current() -> Option<Context> {
    traced(&tracing::Span::current())
}

/// The trace of `span`, when it is exported.
pub fn traced(span: &tracing::Span) -> Option<Context> {
    if span.is_disabled() {
        return None;
    }
    let cx = span.context();
    cx.span().span_context().is_sampled().then_some(cx)
}

/// The span `make` makes, as a child of `parent`'s trace; a disabled span when there is no
/// trace to join (and then `make` is not called).
pub fn within(parent: Option<Context>, make: impl FnOnce() -> tracing::Span) -> tracing::Span {
    match parent {
        Some(cx) => {
            let span = make();
            let _ = span.set_parent(cx);
            span
        }
        None => tracing::Span::none(),
    }
}
