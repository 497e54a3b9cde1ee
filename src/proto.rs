//! Generated protobuf messages and gRPC services (package `dawgref.v1`), compiled by `build.rs`.

#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("dawgref.v1");
}

/// The encoded `FileDescriptorSet` of every proto, for server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("dawgref_descriptor");
