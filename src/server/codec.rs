//! The protobuf codec of every service and client generated from `proto/`: prost's messages,
//! encoded the way small unary answers are cheapest.
//!
//! tonic-prost's codec starts each call with an 8 KiB buffer each way and has prost check the
//! buffer's room before it writes (one more walk over every nested message). Our answers are
//! a few hundred bytes, so this codec starts from 1 KiB (the buffer still grows for a large
//! message, such as a long GenerateMoves stream) and reserves the exact length once.
//!
//! prost writes a message a varint or a string at a time. Through tonic's `EncodeBuf` every one
//! of those writes is an out-of-line `BytesMut::put_slice` with its own capacity check (2.6% of
//! the server's time under ValidatePlay load, by `perf`). Into a plain byte slice each write is
//! an inlined copy, so a message is written into a per-thread scratch slice of its exact length
//! and handed to tonic with one copy.
//!
//! One call sends what it encoded before: WatchBroadcast ([`EncodedCodec`]), whose every message
//! goes to every spectator of a broadcast.

use prost::Message;
use prost::bytes::BufMut;
use std::marker::PhantomData;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// The first size of each call's encode and decode buffers.
const BUFFER_BYTES: usize = 1024;
/// The largest message encoded through the per-thread scratch slice.
const SCRATCH_BYTES: usize = 4096;

thread_local! {
    static SCRATCH: std::cell::RefCell<[u8; SCRATCH_BYTES]> =
        const { std::cell::RefCell::new([0; SCRATCH_BYTES]) };
}

/// Encoded bytes after which a stream yields to the transport (tonic's default).
const YIELD_BYTES: usize = 32 * 1024;

fn buffer_settings() -> BufferSettings {
    BufferSettings::new(BUFFER_BYTES, YIELD_BYTES)
}

/// `application/grpc+proto` with prost messages.
#[derive(Debug, Clone)]
pub struct ProstCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ProstCodec<T, U> {
    fn default() -> Self {
        ProstCodec(PhantomData)
    }
}

impl<T, U> Codec for ProstCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstDecoder(PhantomData)
    }
}

/// Decodes a `U`. Bytes that are not a `U` (a string that is not UTF-8, a truncated field) are
/// the sender's mistake: INVALID_ARGUMENT, naming the field prost stopped at
/// (`GetGameRequest.game_id: invalid string value: data is not UTF-8 encoded`), where
/// tonic-prost answers INTERNAL.
#[derive(Debug, Clone)]
pub struct ProstDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for ProstDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| {
            let why = e.to_string();
            let why = why.strip_prefix("failed to decode Protobuf message: ").unwrap_or(&why);
            Status::invalid_argument(format!("the message is not valid protobuf: {why}"))
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        buffer_settings()
    }
}

/// Encodes a `T`, reserving its exact length first.
#[derive(Debug, Clone)]
pub struct ProstEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for ProstEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        let len = item.encoded_len();
        if len > SCRATCH_BYTES {
            // A large message (a long move list): the copy would cost more than it saves.
            buf.reserve(len);
            item.encode_raw(buf);
            return Ok(());
        }
        SCRATCH.with_borrow_mut(|scratch| {
            let out = &mut scratch[..len];
            // `encoded_len` is exact, so the slice is filled to its end; prost's own check (a
            // second walk over the message) is not needed.
            item.encode_raw(&mut &mut out[..]);
            buf.reserve(len);
            buf.put_slice(out);
        });
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        buffer_settings()
    }
}

/// Messages encoded once, before the call: each is sent as the bytes it already is. The codec of
/// WatchBroadcast, whose every message goes to every spectator of a broadcast: the feed encodes
/// it once for all of them (`dawgref_events::FeedWire`), where a message per stream was cloned and
/// encoded for each (a third of a stream's CPU by `perf`).
#[derive(Debug, Clone)]
pub struct EncodedCodec<U>(PhantomData<U>);

impl<U> Default for EncodedCodec<U> {
    fn default() -> Self {
        EncodedCodec(PhantomData)
    }
}

impl<U: Message + Default + Send + 'static> Codec for EncodedCodec<U> {
    type Encode = prost::bytes::Bytes;
    type Decode = U;
    type Encoder = EncodedEncoder;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        EncodedEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstDecoder(PhantomData)
    }
}

/// Writes a message encoded before.
#[derive(Debug, Clone)]
pub struct EncodedEncoder;

impl Encoder for EncodedEncoder {
    type Item = prost::bytes::Bytes;
    type Error = Status;

    fn encode(&mut self, item: prost::bytes::Bytes, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.reserve(item.len());
        buf.put_slice(&item);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        buffer_settings()
    }
}

/// A server-streaming call's messages as they were encoded before, once for every stream.
pub type EncodedStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<prost::bytes::Bytes, Status>> + Send + 'static>>;

type Answered = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<tonic::Response<EncodedStream>, Status>> + Send>,
>;

/// The handler of a call served as bytes encoded before.
type EncodedCall<R> = std::sync::Arc<dyn Fn(tonic::Request<R>) -> Answered + Send + Sync>;

/// A generated server `G` with one server-streaming call, the one at `path`, served through
/// [`EncodedCodec`] by `call` (each message goes out as the bytes it was encoded into); every
/// other call goes to the generated server.
pub struct EncodedRoute<G, R> {
    generated: G,
    path: &'static str,
    call: EncodedCall<R>,
    max_decoding: usize,
}

impl<G: Clone, R> Clone for EncodedRoute<G, R> {
    fn clone(&self) -> Self {
        let (path, call, max_decoding) = (self.path, self.call.clone(), self.max_decoding);
        EncodedRoute { generated: self.generated.clone(), path, call, max_decoding }
    }
}

impl<G, R> EncodedRoute<G, R> {
    pub fn new(generated: G, path: &'static str, max_decoding: usize, call: EncodedCall<R>) -> Self {
        EncodedRoute { generated, path, call, max_decoding }
    }
}

impl<G: tonic::server::NamedService, R> tonic::server::NamedService for EncodedRoute<G, R> {
    const NAME: &'static str = G::NAME;
}

/// [`EncodedRoute`]'s call as tonic's server-streaming handler.
struct Streaming<R>(EncodedCall<R>);

impl<R> tonic::server::ServerStreamingService<R> for Streaming<R> {
    type Response = prost::bytes::Bytes;
    type ResponseStream = EncodedStream;
    type Future = Answered;

    fn call(&mut self, request: tonic::Request<R>) -> Self::Future {
        (self.0)(request)
    }
}

impl<G, R> tower::Service<http::Request<tonic::body::Body>> for EncodedRoute<G, R>
where
    G: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
            Error = std::convert::Infallible,
            Future: Send + 'static,
        >,
    R: Message + Default + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        if request.uri().path() != self.path {
            return Box::pin(self.generated.call(request));
        }
        let (call, max_decoding) = (self.call.clone(), self.max_decoding);
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(EncodedCodec::<R>::default())
                .apply_max_message_size_config(Some(max_decoding), None);
            Ok(grpc.server_streaming(Streaming(call), request).await)
        })
    }
}
