//! A test certificate authority (rcgen): a CA, the pairs it signs, and the files and clients
//! that TLS tests need.
#![allow(dead_code)]

use dawgref::server::tls::TlsFiles;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};
use std::path::{Path, PathBuf};
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key, PEM.
pub struct Pair {
    pub cert: String,
    pub key: String,
}

impl TestCa {
    pub fn new(name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        TestCa { issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap() }
    }

    pub fn pem(&self) -> String {
        self.issuer.pem()
    }

    /// A certificate for `names` (DNS names or IP addresses) signed by this CA.
    pub fn issue(&self, names: &[&str]) -> Pair {
        let params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Pair { cert: cert.pem(), key: key.serialize_pem() }
    }

    /// A server's pair for loopback (localhost and 127.0.0.1), written to `dir` as
    /// `server.pem` and `server.key`, with this CA as `ca.pem`: the files a server is given.
    pub fn server_files(&self, dir: &Path) -> TlsFiles {
        write_pair(dir, "server", &self.issue(&["localhost", "127.0.0.1"]));
        std::fs::write(dir.join("ca.pem"), self.pem()).unwrap();
        TlsFiles {
            cert: dir.join("server.pem"),
            key: dir.join("server.key"),
            client_ca: None,
            peer_ca: None,
            peer_name: None,
        }
    }
}

pub fn write_pair(dir: &Path, name: &str, pair: &Pair) -> (PathBuf, PathBuf) {
    let (cert, key) = (dir.join(format!("{name}.pem")), dir.join(format!("{name}.key")));
    std::fs::write(&cert, &pair.cert).unwrap();
    std::fs::write(&key, &pair.key).unwrap();
    (cert, key)
}

/// A channel to `addr` over TLS trusting `ca` (PEM), showing `identity` when given; it connects
/// now, so a refused handshake is an error here.
pub async fn channel(
    addr: &str,
    ca: &str,
    identity: Option<&Pair>,
) -> Result<Channel, tonic::transport::Error> {
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca)).domain_name("localhost");
    if let Some(pair) = identity {
        tls = tls.identity(Identity::from_pem(&pair.cert, &pair.key));
    }
    Endpoint::from_shared(format!("https://{addr}")).unwrap().tls_config(tls)?.connect().await
}
