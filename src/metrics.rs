//! The RPC half of the metrics: [`RpcMetricsLayer`], the tower layer around every service that
//! records each RPC's latency by method and status code into the host's registry
//! ([`Metrics`]).

pub use crate::host::metrics::Metrics;
use prost::Message;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

/// Every method the server serves, by name, from the descriptor sets it serves (its own protos,
/// health, reflection): the RPCs timed under their own names, so that a new RPC is timed with
/// no list to keep. Read once.
pub fn served_methods() -> &'static [String] {
    static METHODS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    METHODS.get_or_init(|| {
        let sets = [
            crate::proto::FILE_DESCRIPTOR_SET,
            tonic_health::pb::FILE_DESCRIPTOR_SET,
            tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET,
        ];
        let mut names: Vec<String> = Vec::new();
        for set in sets {
            let Ok(set) = prost_types::FileDescriptorSet::decode(set) else { continue };
            let methods = set.file.into_iter().flat_map(|f| f.service).flat_map(|s| s.method);
            for name in methods.filter_map(|m| m.name) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    })
}

/// A status code's label, as `{:?}` spells it (but `OK`), without formatting one per request.
fn code_name(code: tonic::Code) -> &'static str {
    use tonic::Code::*;
    match code {
        // As the timed methods' OK series are labelled (`Metrics::new`): one spelling per code.
        Ok => "OK",
        Cancelled => "Cancelled",
        Unknown => "Unknown",
        InvalidArgument => "InvalidArgument",
        DeadlineExceeded => "DeadlineExceeded",
        NotFound => "NotFound",
        AlreadyExists => "AlreadyExists",
        PermissionDenied => "PermissionDenied",
        ResourceExhausted => "ResourceExhausted",
        FailedPrecondition => "FailedPrecondition",
        Aborted => "Aborted",
        OutOfRange => "OutOfRange",
        Unimplemented => "Unimplemented",
        Internal => "Internal",
        Unavailable => "Unavailable",
        DataLoss => "DataLoss",
        Unauthenticated => "Unauthenticated",
    }
}

/// A tower layer that records every RPC's latency, method and status code. The code is the
/// response's `grpc-status` header: a refusal is answered trailers-only, so its code is there;
/// a success carries its status in the trailers and counts as OK (a stream, when it starts).
#[derive(Clone)]
pub struct RpcMetricsLayer(pub Arc<Metrics>);

impl<S> tower::Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;
    fn layer(&self, inner: S) -> RpcMetrics<S> {
        RpcMetrics { inner, metrics: self.0.clone() }
    }
}

#[derive(Clone)]
pub struct RpcMetrics<S> {
    inner: S,
    metrics: Arc<Metrics>,
}

impl<S, B, R> tower::Service<http::Request<B>> for RpcMetrics<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let started = Instant::now();
        let metrics = self.metrics.clone();
        let method =
            request.uri().path().rsplit('/').next().and_then(|m| metrics.timed(m)).unwrap_or("other");
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await;
            if let Ok(r) = &response {
                let code = r
                    .headers()
                    .get("grpc-status")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<i32>().ok())
                    .map_or(tonic::Code::Ok, tonic::Code::from_i32);
                let ok = code == tonic::Code::Ok;
                metrics.observe_rpc(method, ok, code_name(code), started.elapsed().as_secs_f64());
            }
            response
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_served_methods_come_from_the_descriptors() {
        let methods = super::served_methods();
        for m in ["CreateGame", "SubmitTurn", "InferRack", "AnalyzeGame", "PauseGame", "FindWords", "Check"] {
            assert!(methods.iter().any(|n| n == m), "{m} in {methods:?}");
        }
        assert!(methods.iter().any(|n| n == "ServerReflectionInfo"));
    }

    #[test]
    fn code_labels_are_the_codes_debug_names() {
        for i in 1..=16 {
            let code = tonic::Code::from_i32(i);
            assert_eq!(super::code_name(code), format!("{code:?}"));
        }
    }
}
