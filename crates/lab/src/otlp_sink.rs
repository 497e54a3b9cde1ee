//! `dawgref-lab otlp-sink`: an OTLP/gRPC trace receiver that counts the spans it is sent and
//! keeps none: the collector a server exports to while its cost of exporting is measured
//! (`OTLP=1 scripts/h2load.sh`), with nothing of a real collector's own cost on the machine.

use clap::Args;
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Args, Debug)]
pub struct SinkArgs {
    /// Where to listen for OTLP/gRPC (what a server's --otlp-endpoint names).
    #[arg(long, default_value = "127.0.0.1:4317")]
    listen: SocketAddr,
}

#[derive(Default)]
struct Sink {
    spans: Arc<AtomicU64>,
    batches: Arc<AtomicU64>,
}

#[tonic::async_trait]
impl TraceService for Sink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let spans: usize =
            request.get_ref().resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum();
        self.spans.fetch_add(spans as u64, Ordering::Relaxed);
        self.batches.fetch_add(1, Ordering::Relaxed);
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

pub fn run(args: SinkArgs) -> crate::CliResult {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let sink = Sink::default();
        let (spans, batches) = (sink.spans.clone(), sink.batches.clone());
        // The count so far, every 5 s, while spans arrive.
        tokio::spawn(async move {
            let mut last = 0;
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(5)).await;
                let now = spans.load(Ordering::Relaxed);
                if now != last {
                    eprintln!("{now} spans in {} batches", batches.load(Ordering::Relaxed));
                    last = now;
                }
            }
        });
        eprintln!("OTLP sink on {}", args.listen);
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(sink))
            .serve(args.listen)
            .await
    })?;
    Ok(std::process::ExitCode::SUCCESS)
}
