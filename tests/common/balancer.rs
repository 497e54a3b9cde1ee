//! HAProxy (Debian's package, which `scripts/test` installs when missing) in front of local
//! replicas, configured by the deploy's own file (`deploy/haproxy/haproxy.cfg`): its `server`
//! lines and DNS resolvers give way to the replicas' loopback ports and its TLS options to
//! plaintext (the replicas here serve plaintext), the rest (hashing on `x-dawgref-game`, HTTP/2
//! to the replicas) is what a deployment runs. Shared by the replica
//! tests and `dawgref-lab bench balancer` (which includes this file).

use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The deployment's configuration.
const DEPLOYED: &str = include_str!("../../deploy/haproxy/haproxy.cfg");

/// The deployment's configuration, listening on `127.0.0.1:port` in front of the replicas
/// listening on `backends` (loopback ports).
pub fn config(port: u16, backends: &[u16]) -> String {
    let mut out = String::new();
    let mut in_resolvers = false;
    for line in DEPLOYED.lines() {
        if line.starts_with("resolvers ") {
            in_resolvers = true;
            continue;
        }
        if in_resolvers && (line.starts_with(' ') || line.is_empty()) {
            in_resolvers = !line.is_empty();
            continue;
        }
        in_resolvers = false;
        let trimmed = line.trim_start();
        if trimmed.starts_with("server ") {
            continue;
        }
        let line = line
            .replace(" ssl crt /etc/haproxy/tls/balancer.pem alpn h2,http/1.1", "")
            .replace(" ssl verify required ca-file /etc/haproxy/tls/ca.pem alpn h2", "")
            .replace("bind :50051", &format!("bind 127.0.0.1:{port}"))
            .replace(" resolvers docker init-addr last,libc,none", "");
        out.push_str(&line);
        out.push('\n');
    }
    for (k, backend) in backends.iter().enumerate() {
        out.push_str(&format!("    server replica-{k} 127.0.0.1:{backend}\n"));
    }
    out
}

/// The `haproxy` binary, if installed.
pub fn binary() -> Option<&'static str> {
    ["/usr/sbin/haproxy", "/usr/local/sbin/haproxy", "/usr/bin/haproxy"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

/// A running HAProxy; killed on drop.
pub struct Balancer {
    child: Child,
    pub port: u16,
}

impl Balancer {
    /// Start HAProxy on `port` in front of `backends`, its configuration written into `dir`.
    pub fn start(dir: &Path, port: u16, backends: &[u16]) -> Result<Balancer, String> {
        let binary = binary().ok_or("HAProxy is not installed (Debian: apt-get install haproxy)")?;
        let path = dir.join("haproxy.cfg");
        std::fs::write(&path, config(port, backends)).map_err(|e| format!("{}: {e}", path.display()))?;
        // `DAWGREF_BALANCER_CPUS` (a `taskset` CPU list) gives HAProxy cores of its own, as a
        // deployment does, when the caller pins itself to the others.
        let mut command = match std::env::var("DAWGREF_BALANCER_CPUS") {
            Ok(cpus) if !cpus.is_empty() => {
                let mut c = Command::new("taskset");
                c.args(["-c", &cpus, binary]);
                c
            }
            _ => Command::new(binary),
        };
        let child = command
            .arg("-f")
            .arg(&path)
            .arg("-db")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("{binary}: {e}"))?;
        Ok(Balancer { child, port })
    }

    /// The HAProxy process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
