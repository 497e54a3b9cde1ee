//! Compiles `proto/` with protox (a pure-Rust protobuf compiler: no system `protoc`) and generates
//! the prost messages and tonic services. The encoded descriptor set is kept in OUT_DIR for server
//! reflection.

use prost::Message;
use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "proto/dawgref/v1/common.proto",
    "proto/dawgref/v1/games.proto",
    "proto/dawgref/v1/analysis.proto",
    "proto/dawgref/v1/lexicons.proto",
    "proto/dawgref/v1/directors.proto",
    "proto/dawgref/v1/tournaments.proto",
    "proto/dawgref/v1/broadcasts.proto",
    "proto/dawgref/v1/bots.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(PROTOS, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("dawgref_descriptor.bin"), fds.encode_to_vec())?;
    // Our codec (src/server/codec.rs): tonic-prost's with buffers sized for small answers.
    tonic_prost_build::configure().codec_path("crate::server::codec::ProstCodec").compile_fds(fds)?;
    Ok(())
}
