//! Who is calling, for the per-client limits, and how long the caller waits: what an admitted
//! search ([`crate::host::SearchTicket`]) is given besides its work, and the bucket that paces
//! each client's new games ([`CreateBuckets`]).

use super::{auth, errors};
use crate::host::{CreateRate, Host, SearchTicket};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tonic::{Request, Status};

/// Who a request comes from, for limits per client: the hash of its bearer token when it shows
/// one (a seat, a director, a bot: however many connections it opens), else its peer's address
/// without the port (a client's connections are one client), else "unknown" (an in-process
/// transport), which all such callers share.
pub fn client_key<T>(request: &Request<T>) -> String {
    if let Ok(Some(token)) = auth::bearer(request.metadata()) {
        let hash = auth::hash(&token);
        return auth::hex(&hash[..8]) + "@token";
    }
    match request.remote_addr() {
        Some(addr) => addr.ip().to_string(),
        None => "unknown".to_string(),
    }
}

/// When the caller stops waiting, from its `grpc-timeout` header (counted from now); None
/// without one, or with one that does not parse (ignored, as gRPC servers do).
pub fn deadline<T>(request: &Request<T>) -> Option<Instant> {
    Some(Instant::now() + timeout(request.metadata())?)
}

/// How long the caller waits, from its `grpc-timeout` header.
pub fn timeout(metadata: &tonic::metadata::MetadataMap) -> Option<Duration> {
    grpc_timeout(metadata.get("grpc-timeout")?.to_str().ok()?)
}

/// A `grpc-timeout` value: at most 8 digits and a unit (H, M, S, m, u, n).
fn grpc_timeout(text: &str) -> Option<Duration> {
    if !text.is_ascii() {
        return None;
    }
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n * 3600),
        "M" => Duration::from_secs(n * 60),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Who asks and until when, taken from a request before its body is consumed.
pub struct Caller {
    key: String,
    deadline: Option<Instant>,
}

impl Caller {
    pub fn of<T>(request: &Request<T>) -> Caller {
        Caller { key: client_key(request), deadline: deadline(request) }
    }

    /// Admit an analysis search for this caller, to end by its deadline.
    pub fn admit(&self, host: &Host) -> Result<SearchTicket, Status> {
        host.admit_search(&self.key, self.deadline).map_err(errors::host)
    }
}

/// Admit an analysis search for the request's client, to end by its deadline.
pub fn admit<T>(host: &Host, request: &Request<T>) -> Result<SearchTicket, Status> {
    Caller::of(request).admit(host)
}

/// One token bucket per client for the games it creates: a client starts with `burst` tokens,
/// each game takes one, and they come back at `per_minute` a minute up to `burst`.
pub struct CreateBuckets {
    rate: Option<CreateRate>,
    /// By client: tokens left (fractions count) and when they were counted.
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

/// Clients tracked before the full buckets are forgotten (a full bucket is a new client's).
const TRACKED_CLIENTS: usize = 10_000;

impl CreateBuckets {
    pub fn new(rate: Option<CreateRate>) -> CreateBuckets {
        CreateBuckets { rate, buckets: Mutex::new(HashMap::new()) }
    }

    /// Take a token for `client`'s new game, or say how long until one is there.
    fn take(&self, client: &str, now: Instant) -> Result<(), Duration> {
        let Some(rate) = self.rate else { return Ok(()) };
        let (burst, per_second) = (f64::from(rate.burst.max(1)), f64::from(rate.per_minute) / 60.0);
        let refilled = |(tokens, at): (f64, Instant)| {
            (tokens + now.saturating_duration_since(at).as_secs_f64() * per_second).min(burst)
        };
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() >= TRACKED_CLIENTS && !buckets.contains_key(client) {
            buckets.retain(|_, b| refilled(*b) < burst);
        }
        let tokens = buckets.get(client).map_or(burst, |b| refilled(*b));
        if tokens >= 1.0 {
            buckets.insert(client.to_string(), (tokens - 1.0, now));
            return Ok(());
        }
        buckets.insert(client.to_string(), (tokens, now));
        if per_second <= 0.0 {
            return Err(Duration::from_secs(3600));
        }
        Err(Duration::from_secs_f64((1.0 - tokens) / per_second))
    }

    /// Admit the request's new game, or refuse it: RESOURCE_EXHAUSTED with when to retry.
    pub fn admit<T>(&self, request: &Request<T>) -> Result<(), Status> {
        self.take(&client_key(request), Instant::now()).map_err(|wait| {
            let rate = self.rate.unwrap_or_default();
            errors::retry_later(
                format!(
                    "games created too fast: one client may create {} at once, then {} a minute",
                    rate.burst, rate.per_minute
                ),
                wait,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_creates_its_burst_then_one_game_per_refill_and_others_are_apart() {
        let buckets = CreateBuckets::new(Some(CreateRate { burst: 3, per_minute: 60 }));
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(buckets.take("a", t0), Ok(()));
        }
        assert_eq!(buckets.take("a", t0), Err(Duration::from_secs(1)));
        assert_eq!(buckets.take("b", t0), Ok(()), "another client has its own bucket");
        let later = t0 + Duration::from_millis(1500);
        assert_eq!(buckets.take("a", later), Ok(()));
        assert_eq!(buckets.take("a", later), Err(Duration::from_millis(500)));
        // Never more than the burst, however long it waited.
        let much_later = t0 + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(buckets.take("a", much_later), Ok(()));
        }
        assert!(buckets.take("a", much_later).is_err());
        assert_eq!(CreateBuckets::new(None).take("a", t0), Ok(()));
    }

    #[test]
    fn grpc_timeouts_parse_by_their_unit_and_nothing_else_does() {
        assert_eq!(grpc_timeout("5S"), Some(Duration::from_secs(5)));
        assert_eq!(grpc_timeout("250m"), Some(Duration::from_millis(250)));
        assert_eq!(grpc_timeout("2H"), Some(Duration::from_secs(7200)));
        assert_eq!(grpc_timeout("99999999n"), Some(Duration::from_nanos(99_999_999)));
        for bad in ["", "S", "5", "5s", "123456789S", "-1S", "1.5S", "5 S", "5é", "é"] {
            assert_eq!(grpc_timeout(bad), None, "{bad:?}");
        }
    }
}
