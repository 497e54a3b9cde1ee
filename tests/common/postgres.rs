//! A throwaway PostgreSQL cluster for a test: `initdb` into a temporary directory, `pg_ctl start`
//! on a free loopback port, stopped and deleted on drop. The binaries are the system's (Debian's
//! `postgresql` package, which `scripts/test` installs when missing). PostgreSQL refuses to run
//! as root, so as root the cluster belongs to the `postgres` user and every command runs as it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    pub port: u16,
    as_root: bool,
    durable: bool,
}

/// Where `initdb` and `pg_ctl` are: on PATH, else Debian's versioned directory.
fn bin_dir() -> PathBuf {
    if let Ok(out) = Command::new("sh").args(["-c", "command -v pg_ctl"]).output()
        && out.status.success()
    {
        let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if let Ok(real) = std::fs::canonicalize(&p) {
            return real.parent().unwrap().to_path_buf();
        }
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed (scripts/test installs Debian's postgresql)")
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("pg_ctl").exists())
        .collect();
    versions.sort();
    versions.pop().expect("a PostgreSQL server under /usr/lib/postgresql/*/bin")
}

impl Postgres {
    /// A new cluster, started. `fsync` off unless `durable`: tests kill replicas, not the
    /// machine, and a synced commit costs them seconds.
    pub fn start(tag: &str, durable: bool) -> Postgres {
        let as_root = unsafe { libc::geteuid() } == 0;
        let dir = std::env::temp_dir().join(format!(
            "dawgref-pg-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        if as_root {
            let ok = Command::new("chown").arg("postgres:postgres").arg(&dir).status().unwrap().success();
            assert!(ok, "chown {} to postgres", dir.display());
        }
        let mut pg = Postgres { dir, bin: bin_dir(), port: super::binary::free_port(), as_root, durable };
        pg.run(
            "initdb",
            &["-D", pg.data().to_str().unwrap(), "-U", "dawgref", "--auth=trust", "-E", "UTF8", "--no-sync"],
        );
        // A port free when picked may be taken before the server binds it (another test's
        // server, or a client's connection, whose source ports come from the same range): then
        // the server starts again on another.
        for _ in 0..5 {
            match pg.try_start() {
                Ok(()) => return pg,
                Err(log) if log.contains("Address already in use") => pg.port = super::binary::free_port(),
                Err(log) => panic!("PostgreSQL did not start on port {}: {log}", pg.port),
            }
        }
        panic!("PostgreSQL found no free port in five tries")
    }

    /// `pg_ctl start` on this cluster's port; its log when the server did not start.
    fn try_start(&self) -> Result<(), String> {
        let fsync = if self.durable { "on" } else { "off" };
        let options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -k {} -c fsync={fsync} -c max_connections=200 -c shared_buffers=64MB",
            self.port,
            self.dir.display()
        );
        let data = self.data();
        let log = self.dir.join("log");
        // Each start's log alone, so that what it says is about this start.
        let _ = std::fs::remove_file(&log);
        let out = self
            .command("pg_ctl")
            .args(["-D", data.to_str().unwrap(), "start", "-w", "-t", "60", "-o", &options, "-l"])
            .arg(&log)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("pg_ctl: {e}"));
        if out.status.success() {
            return Ok(());
        }
        Err(format!(
            "{}{}\n--- server log:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        ))
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, program: &str) -> Command {
        let exe = self.bin.join(program);
        if self.as_root {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        }
    }

    fn run(&self, program: &str, args: &[&str]) {
        let out = self
            .command(program)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{program}: {e}"));
        assert!(
            out.status.success(),
            "{program} {args:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn pg_ctl(&self, args: &[&str]) {
        let data = self.data();
        let mut full: Vec<&str> = vec!["-D", data.to_str().unwrap()];
        full.extend_from_slice(args);
        self.run("pg_ctl", &full);
    }

    /// A connection URL to a new, empty database of this cluster.
    pub fn database(&self, name: &str) -> String {
        self.run("createdb", &["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "dawgref", name]);
        self.url(name)
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgres://dawgref@127.0.0.1:{}/{db}", self.port)
    }

    /// Stop the server fast (open transactions abort), as an operator's restart would.
    pub fn stop(&self) {
        self.pg_ctl(&["stop", "-m", "fast", "-w"]);
    }

    /// Start it again on the same port, with the same settings.
    pub fn restart(&self) {
        if let Err(log) = self.try_start() {
            panic!("PostgreSQL did not start again on port {}: {log}", self.port);
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self
            .command("pg_ctl")
            .args(["-D", data.to_str().unwrap(), "stop", "-m", "immediate", "-w"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
