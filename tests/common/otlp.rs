//! An OTLP/gRPC trace collector in the test process: servers export to it, a test reads back
//! the spans they sent.

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::trace::v1::Span;
use std::sync::{Arc, Mutex};

/// A span as received, with the `service.instance.id` of the process that sent it.
#[derive(Clone, Debug)]
pub struct Received {
    pub instance: String,
    pub span: Span,
}

impl Received {
    /// A string attribute of the span's.
    pub fn attribute(&self, key: &str) -> Option<String> {
        self.span.attributes.iter().find(|kv| kv.key == key).and_then(|kv| {
            use opentelemetry_proto::tonic::common::v1::any_value::Value;
            match kv.value.as_ref()?.value.as_ref()? {
                Value::StringValue(s) => Some(s.clone()),
                other => Some(format!("{other:?}")),
            }
        })
    }
}

#[derive(Clone, Default)]
pub struct Collector {
    spans: Arc<Mutex<Vec<Received>>>,
}

impl Collector {
    /// Serve on a free loopback port; the endpoint to give `--otlp-endpoint`.
    pub async fn start() -> (Collector, String) {
        let collector = Collector::default();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let service = TraceServiceServer::new(collector.clone());
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
        );
        (collector, format!("http://{addr}"))
    }

    /// Every span received so far.
    pub fn spans(&self) -> Vec<Received> {
        self.spans.lock().unwrap().clone()
    }
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut spans = self.spans.lock().unwrap();
        for resource in request.into_inner().resource_spans {
            let instance = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|kv| kv.key == "service.instance.id")
                .and_then(|kv| kv.value.as_ref()?.value.as_ref())
                .map(|v| format!("{v:?}"))
                .unwrap_or_default();
            for scope in resource.scope_spans {
                spans.extend(
                    scope.spans.into_iter().map(|span| Received { instance: instance.clone(), span }),
                );
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}
