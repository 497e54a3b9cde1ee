//! TLS on the server's one port (gRPC, grpc-web and the browser's pages), by rustls: a
//! certificate chain and key read from PEM files and read again on [`Tls::reload`] (on SIGHUP,
//! and when the files change: cert-manager and certbot rotate them in place, and a Kubernetes
//! Secret's volume sends no signal) without dropping a connection or a game; optionally mutual TLS (a client certificate signed by a CA file);
//! HTTP/2 by ALPN, HTTP/1.1 for a browser's grpc-web. A plaintext client on a TLS port fails
//! its handshake and is served nothing. Among replicas the same files make the client side of
//! forwarding: the peers' certificates checked against a CA, this replica's own pair shown when
//! the peers ask for one.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;
use tonic::transport::{Certificate, ClientTlsConfig, Identity};

/// The files TLS is made from.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    /// The server's certificate chain (PEM), its own first.
    pub cert: PathBuf,
    /// Its private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// Mutual TLS: only clients with a certificate signed by one of these CAs (PEM) connect.
    pub client_ca: Option<PathBuf>,
    /// The CAs (PEM) other replicas' certificates are checked against when forwarding to them;
    /// default: `client_ca`.
    pub peer_ca: Option<PathBuf>,
    /// The name every replica's certificate carries, checked when forwarding (default: the
    /// host of the address a replica advertises).
    pub peer_name: Option<String>,
}

impl TlsFiles {
    /// The files' modification times and sizes: what tells that they were rotated.
    fn stamp(&self) -> Vec<Option<(std::time::SystemTime, u64)>> {
        [Some(&self.cert), Some(&self.key), self.client_ca.as_ref(), self.peer_ca.as_ref()]
            .into_iter()
            .flatten()
            .map(|p| std::fs::metadata(p).ok().and_then(|m| Some((m.modified().ok()?, m.len()))))
            .collect()
    }
}

/// Why TLS could not be set up from the files.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{}: {why}", path.display())]
    File { path: PathBuf, why: String },
    #[error("TLS: {0}")]
    Config(String),
}

/// The server's TLS, as last loaded: each new connection is accepted with the current
/// configuration; connections already open keep theirs.
pub struct Tls {
    files: TlsFiles,
    current: RwLock<Loaded>,
}

struct Loaded {
    /// The files as they were when read.
    stamp: Vec<Option<(std::time::SystemTime, u64)>>,
    server: Arc<rustls::ServerConfig>,
    /// For forwarding to other replicas (None: no CA to check them by).
    client: Option<ClientTlsConfig>,
}

/// How long a connection may take to finish its handshake.
const HANDSHAKE: Duration = Duration::from_secs(10);

impl Tls {
    pub fn load(files: TlsFiles) -> Result<Tls, TlsError> {
        let loaded = load(&files)?;
        Ok(Tls { files, current: RwLock::new(loaded) })
    }

    /// Read the files again; on any error the configuration in force stays, and the error says
    /// which file was wrong.
    pub fn reload(&self) -> Result<(), TlsError> {
        let loaded = load(&self.files)?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = loaded;
        Ok(())
    }

    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// Whether a file changed (or appeared, or went) since it was last read.
    pub fn files_changed(&self) -> bool {
        self.current.read().unwrap_or_else(|e| e.into_inner()).stamp != self.files.stamp()
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(self.current.read().unwrap_or_else(|e| e.into_inner()).server.clone())
    }

    /// The client side for forwarding to other replicas, as last loaded.
    pub fn client(&self) -> Option<ClientTlsConfig> {
        self.current.read().unwrap_or_else(|e| e.into_inner()).client.clone()
    }
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| TlsError::File { path: path.to_path_buf(), why: e.to_string() })
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bad = |why: String| TlsError::File { path: path.to_path_buf(), why };
    let certs = CertificateDer::pem_slice_iter(&read(path)?)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not PEM certificates ({e})")))?;
    if certs.is_empty() {
        return Err(bad("no certificate in the file".into()));
    }
    Ok(certs)
}

fn load(files: &TlsFiles) -> Result<Loaded, TlsError> {
    let stamp = files.stamp();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certs = certificates(&files.cert)?;
    let key_pem = read(&files.key)?;
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| TlsError::File { path: files.key.clone(), why: format!("no PEM private key ({e})") })?;
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Config(e.to_string()))?;
    let builder = match &files.client_ca {
        Some(path) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in certificates(path)? {
                roots.add(cert).map_err(|e| TlsError::File {
                    path: path.clone(),
                    why: format!("not a CA certificate ({e})"),
                })?;
            }
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                    .build()
                    .map_err(|e| TlsError::Config(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut server = builder.with_single_cert(certs, key).map_err(|e| {
        TlsError::Config(format!(
            "{} and {} do not make a pair ({e})",
            files.cert.display(),
            files.key.display()
        ))
    })?;
    server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let client = match files.peer_ca.as_ref().or(files.client_ca.as_ref()) {
        Some(ca) => {
            let mut config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(read(ca)?));
            if let Some(name) = &files.peer_name {
                config = config.domain_name(name.clone());
            }
            if files.client_ca.is_some() {
                // The peers ask for a client certificate: this replica shows its own.
                config = config.identity(Identity::from_pem(read(&files.cert)?, key_pem));
            }
            Some(config)
        }
        None => None,
    };
    Ok(Loaded { stamp, server: Arc::new(server), client })
}

/// Connections on `listener` once their TLS handshake is done, each handshake in a task of
/// its own (a slow or silent client holds up nobody, and gives up after [`HANDSHAKE`]). The
/// listener is closed when the stream is dropped.
pub(crate) fn incoming(
    listener: TcpListener,
    tls: Arc<Tls>,
) -> impl tokio_stream::Stream<Item = Result<TlsStream<TcpStream>, std::io::Error>> {
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                _ = tx.closed() => break,
            };
            let tcp = match accepted {
                Ok((tcp, _)) => tcp,
                Err(e) => {
                    // Out of descriptors, say: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            // Small unary messages must not wait for Nagle's algorithm.
            let _ = tcp.set_nodelay(true);
            let (acceptor, tx) = (tls.acceptor(), tx.clone());
            tokio::spawn(async move {
                match tokio::time::timeout(HANDSHAKE, acceptor.accept(tcp)).await {
                    Ok(Ok(stream)) => {
                        let _ = tx.send(Ok(stream)).await;
                    }
                    Ok(Err(e)) => tracing::debug!(error = %e, "a TLS handshake failed"),
                    Err(_) => tracing::debug!("a TLS handshake timed out"),
                }
            });
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}
