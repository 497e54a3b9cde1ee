//! Every broadcast this replica knows, as last read or written, and the one question every door
//! of a game asks of them: how long a spectator's view of a game is held back
//! ([`Registry::delay_ms`]). Exact on one server (every change is made here); among replicas
//! read again from the store every [`REFRESH`], so a broadcast made on another replica holds
//! here within a second. WatchBroadcast's [`feed`] follows a broadcast's games for its
//! spectators.

mod feed;

pub(crate) use feed::Feeds;
pub use feed::{Encoded, EncodedStream, Fact, FeedWire, Judged, RelayStream, Relayed};

use crate::error::{ANALYSIS_MS, Invalid, MAX_ANALYSIS_MS, MAX_DELAY_SECONDS, MIN_ANALYSIS_MS};
use crate::records::{BroadcastRecords, Put};
use dawgref_host::{HostError, Snapshot, Viewer};
use dawgref_store::StoredBroadcast;
use prost::Message;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

/// A broadcast's settings: a labelled set of games shown to everyone outside the hall through a
/// delay. Kept in the store encoded with `prost`, in the bytes earlier builds wrote.
#[derive(Clone, PartialEq, Eq, prost::Message)]
pub struct Broadcast {
    #[prost(string, tag = "1")]
    pub slug: String,
    #[prost(string, tag = "2")]
    pub name: String,
    /// The games covered: those whose labels include every one of these.
    #[prost(map = "string, string", tag = "3")]
    pub labels: std::collections::HashMap<String, String>,
    #[prost(uint32, tag = "4")]
    pub delay_seconds: u32,
    /// Spectators see every seat's rack (through the delay, never a player of the game).
    #[prost(bool, tag = "5")]
    pub reveal_racks: bool,
    #[prost(uint64, tag = "6")]
    pub created_unix_ms: u64,
    /// 0 while it is on.
    #[prost(uint64, tag = "7")]
    pub ended_unix_ms: u64,
    /// The engine judges each move for the spectators.
    #[prost(bool, tag = "8")]
    pub analysis: bool,
    /// The engine's time per move.
    #[prost(uint32, tag = "9")]
    pub analysis_ms: u32,
}

/// How often a replica reads the broadcasts again.
pub const REFRESH: Duration = Duration::from_secs(1);

/// A broadcast as kept: its settings and the version they were written as.
/// UpdateBroadcast's change: each setting given is set, the others left as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BroadcastChange {
    pub name: Option<String>,
    pub delay_seconds: Option<u32>,
    pub reveal_racks: Option<bool>,
    pub analysis: Option<bool>,
    pub analysis_ms: Option<u32>,
}

impl Broadcast {
    /// A new broadcast's settings within their bounds: a label at least (a broadcast of no
    /// label would cover every game), a delay of an hour at most, the engine's time per move
    /// (0: the default).
    pub fn checked(self) -> Result<Broadcast, Invalid> {
        if self.labels.is_empty() {
            return Err(Invalid::NoLabels);
        }
        check_delay(self.delay_seconds)?;
        let analysis_ms = match self.analysis_ms {
            0 => ANALYSIS_MS,
            ms => check_analysis_ms(ms)?,
        };
        Ok(Broadcast { analysis_ms, ..self })
    }
}

fn check_delay(seconds: u32) -> Result<(), Invalid> {
    if seconds > MAX_DELAY_SECONDS {
        return Err(Invalid::Delay { seconds });
    }
    Ok(())
}

fn check_analysis_ms(ms: u32) -> Result<u32, Invalid> {
    match ms {
        MIN_ANALYSIS_MS..=MAX_ANALYSIS_MS => Ok(ms),
        _ => Err(Invalid::AnalysisMs { ms }),
    }
}

impl BroadcastChange {
    /// A change within the bounds a new broadcast's settings have (a time per move given is
    /// one: 0 is not "the default" here, where unset leaves it as it is).
    pub fn check(&self) -> Result<(), Invalid> {
        if let Some(seconds) = self.delay_seconds {
            check_delay(seconds)?;
        }
        match self.analysis_ms {
            Some(0) => Err(Invalid::NoAnalysisMs),
            Some(ms) => check_analysis_ms(ms).map(|_| ()),
            None => Ok(()),
        }
    }

    fn apply(&self, b: &mut Broadcast) {
        if let Some(name) = &self.name {
            b.name = name.clone();
        }
        if let Some(delay) = self.delay_seconds {
            b.delay_seconds = delay;
        }
        if let Some(reveal) = self.reveal_racks {
            b.reveal_racks = reveal;
        }
        if let Some(analysis) = self.analysis {
            b.analysis = analysis;
        }
        if let Some(ms) = self.analysis_ms {
            b.analysis_ms = ms;
        }
    }
}

#[derive(Clone, Debug)]
pub struct Kept {
    pub version: u64,
    pub broadcast: Broadcast,
    /// Its labels, sorted: the games covered carry every one.
    pub labels: Vec<(String, String)>,
}

impl Kept {
    fn of(stored: &StoredBroadcast) -> Result<Kept, HostError> {
        let broadcast = Broadcast::decode(stored.body.as_slice())
            .map_err(|e| HostError::Internal(format!("broadcast {:?} cannot be read: {e}", stored.slug)))?;
        Ok(Kept::new(stored.version, broadcast))
    }

    pub fn new(version: u64, broadcast: Broadcast) -> Kept {
        let mut labels: Vec<(String, String)> =
            broadcast.labels.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        labels.sort();
        Kept { version, broadcast, labels }
    }

    pub fn is_on(&self) -> bool {
        self.broadcast.ended_unix_ms == 0
    }

    /// Whether a game with these labels is one of this broadcast's.
    pub fn covers(&self, labels: &[(String, String)]) -> bool {
        self.labels.iter().all(|l| labels.contains(l))
    }

    pub fn stored(&self) -> StoredBroadcast {
        StoredBroadcast {
            slug: self.broadcast.slug.clone(),
            version: self.version,
            body: self.broadcast.encode_to_vec(),
        }
    }
}

#[derive(Default)]
pub struct Registry {
    all: RwLock<Arc<BTreeMap<String, Kept>>>,
}

impl Registry {
    fn read(&self) -> Arc<BTreeMap<String, Kept>> {
        self.all.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn get(&self, slug: &str) -> Option<Kept> {
        self.read().get(slug).cloned()
    }

    /// Whether the broadcast shows every rack now (read without a copy: every stream asks it of
    /// every message it sends).
    pub fn reveals(&self, slug: &str) -> bool {
        self.all.read().unwrap_or_else(|e| e.into_inner()).get(slug).is_some_and(|k| k.broadcast.reveal_racks)
    }

    pub fn all(&self) -> Vec<Kept> {
        self.read().values().cloned().collect()
    }

    /// How long a spectator's view of a game with these labels is held back: the longest delay
    /// of the broadcasts on that cover it (0: none).
    pub fn delay_ms(&self, labels: &[(String, String)]) -> u64 {
        let all = self.read();
        all.values()
            .filter(|k| k.is_on() && k.covers(labels))
            .map(|k| u64::from(k.broadcast.delay_seconds) * 1000)
            .max()
            .unwrap_or(0)
    }

    /// When a tournament's fact of time `at_unix_ms` about a game with these labels is out for
    /// spectators: at once for a fact that was out before every broadcast covering it began
    /// (what was public stays public), else its time plus the longest delay of the broadcasts on
    /// that cover it and began by then.
    pub fn released_at(&self, labels: &[(String, String)], at_unix_ms: u64) -> u64 {
        let all = self.read();
        (all.values().filter(|k| k.is_on() && k.covers(labels) && k.broadcast.created_unix_ms <= at_unix_ms))
            .map(|k| at_unix_ms.saturating_add(u64::from(k.broadcast.delay_seconds) * 1000))
            .fold(at_unix_ms, u64::max)
    }

    /// Note a broadcast as written (a later version than the one held only).
    pub fn note(&self, kept: Kept) {
        let mut all = self.all.write().unwrap_or_else(|e| e.into_inner());
        if all.get(&kept.broadcast.slug).is_some_and(|k| k.version >= kept.version) {
            return;
        }
        Arc::make_mut(&mut all).insert(kept.broadcast.slug.clone(), kept);
    }

    /// Read every broadcast from the store again.
    pub(crate) async fn load(&self, records: &BroadcastRecords) -> Result<(), crate::EventsError> {
        for stored in records.all().await? {
            match Kept::of(&stored) {
                Ok(kept) => self.note(kept),
                Err(e) => tracing::error!(slug = %stored.slug, error = %e, "a broadcast could not be read"),
            }
        }
        Ok(())
    }
}

impl crate::Events {
    /// The game as `viewer` may see it at game time `now_ms`: as it stood a broadcast's delay
    /// ago for a spectator ([`Viewer::delayed`]), else as it is; with the game time it shows. The
    /// one place the delay holds a game back, whichever door it is asked through. None: a game a
    /// spectator may not see yet, made less than the delay ago (who plays it may come from
    /// results still held back: a King of the Hill's next round).
    pub fn seen(&self, snapshot: Arc<Snapshot>, viewer: Viewer, now_ms: u64) -> Option<(Arc<Snapshot>, u64)> {
        if !viewer.delayed() {
            return Some((snapshot, now_ms));
        }
        match self.broadcasts().delay_ms(snapshot.labels()) {
            0 => Some((snapshot, now_ms)),
            delay => {
                let at = now_ms.checked_sub(delay)?;
                Some((snapshot.as_of(Some(at)), at))
            }
        }
    }

    /// Whether a game with these labels is out for `viewer` at game time `now_ms` (see
    /// [`Events::seen`]), without rebuilding it.
    pub fn is_out(&self, labels: &[(String, String)], viewer: Viewer, now_ms: u64) -> bool {
        !viewer.delayed() || now_ms >= self.broadcasts().delay_ms(labels)
    }
}

/// How many times a change lost to another replica is read and made again before ABORTED.
const ATTEMPTS: usize = 4;

impl crate::Events {
    /// A broadcast as this replica knows it, read again from the store when it knows none of
    /// that slug (made on another replica a moment ago): NOT_FOUND for none.
    pub async fn broadcast(&self, slug: &str) -> Result<Kept, crate::EventsError> {
        if let Some(kept) = self.broadcasts().get(slug) {
            return Ok(kept);
        }
        self.broadcasts().load(&self.0.broadcast_records).await?;
        self.broadcasts().get(slug).ok_or_else(|| {
            crate::EventsError::NotFound(format!("no broadcast {:?}", dawgref_engine::text::clip(slug)))
        })
    }

    /// Read every broadcast from the store again (before the first call a server answers: no
    /// game is shown early).
    pub async fn load_broadcasts(&self) -> Result<(), crate::EventsError> {
        self.broadcasts().load(&self.0.broadcast_records).await
    }

    /// Make a broadcast, its first version: ALREADY_EXISTS when there is one by its slug (here,
    /// or written by another replica).
    pub async fn create_broadcast(&self, broadcast: Broadcast) -> Result<Kept, crate::EventsError> {
        let exists =
            || crate::EventsError::AlreadyExists(format!("a broadcast {:?} exists already", broadcast.slug));
        if self.broadcasts().get(&broadcast.slug).is_some() {
            return Err(exists());
        }
        let kept = Kept::new(1, broadcast.clone());
        match self.0.broadcast_records.put(kept.stored()).await? {
            Put::Written => {}
            // Version 1 written by another: the slug was taken on another replica.
            Put::Stale => return Err(exists()),
        }
        self.broadcasts().note(kept.clone());
        Ok(kept)
    }

    /// UpdateBroadcast: the settings `change` gives changed, on a broadcast not ended (each
    /// version it is made on first passed by `check`: the caller's key), as
    /// [`Events::change_broadcast`] makes a change.
    pub async fn update_broadcast(
        &self,
        slug: &str,
        check: impl Fn(&Kept) -> Result<(), crate::EventsError>,
        change: &BroadcastChange,
    ) -> Result<Kept, crate::EventsError> {
        self.change_broadcast(slug, check, |b| {
            if b.ended_unix_ms != 0 {
                return Err(crate::EventsError::BroadcastEnded { slug: b.slug.clone() });
            }
            change.apply(b);
            Ok(())
        })
        .await
    }

    /// EndBroadcast: the broadcast ended at `now_ms` (one ended already stays as it ended), its
    /// held games shown at once; `check` as for [`Events::update_broadcast`].
    pub async fn end_broadcast(
        &self,
        slug: &str,
        check: impl Fn(&Kept) -> Result<(), crate::EventsError>,
        now_ms: u64,
    ) -> Result<Kept, crate::EventsError> {
        let kept = self.broadcast(slug).await?;
        if !kept.is_on() {
            // Ended before (a retry, say): answered as it is, after the same check.
            check(&kept)?;
            return Ok(kept);
        }
        self.change_broadcast(slug, check, |b| {
            if b.ended_unix_ms == 0 {
                b.ended_unix_ms = now_ms.max(1);
            }
            Ok(())
        })
        .await
    }

    /// Change a broadcast by `f` (each version it is made on first passed by `check`: the
    /// caller's key), durable before it is answered; a change lost to another replica's is made
    /// again on what it wrote, up to [`ATTEMPTS`] times (then ABORTED).
    async fn change_broadcast(
        &self,
        slug: &str,
        check: impl Fn(&Kept) -> Result<(), crate::EventsError>,
        f: impl Fn(&mut Broadcast) -> Result<(), crate::EventsError>,
    ) -> Result<Kept, crate::EventsError> {
        let records = &self.0.broadcast_records;
        for _ in 0..ATTEMPTS {
            let kept = self.broadcast(slug).await?;
            check(&kept)?;
            let mut broadcast = kept.broadcast.clone();
            f(&mut broadcast)?;
            let next = Kept::new(kept.version + 1, broadcast);
            match records.put(next.stored()).await? {
                Put::Written => {
                    self.broadcasts().note(next.clone());
                    // Its feed here looks at once (ended, say).
                    self.0.feeds.changed(slug);
                    return Ok(next);
                }
                Put::Stale => self.broadcasts().load(records).await?,
            }
        }
        Err(crate::EventsError::Aborted(format!("broadcast {slug:?} changed at the same moment; call again")))
    }

    /// Among replicas: the broadcasts read again every [`REFRESH`], so that one made or changed
    /// on another replica holds here within that, until the server stops.
    pub async fn refresh_broadcasts(self) {
        let mut shutdown = self.0.host.shutdown();
        let records = self.0.broadcast_records.clone();
        loop {
            tokio::select! {
                () = tokio::time::sleep(REFRESH) => {}
                () = dawgref_host::stopped(&mut shutdown) => return,
            }
            if let Err(e) = self.broadcasts().load(&records).await {
                tracing::warn!(error = %e, "the broadcasts could not be read again; tried again in a second");
            }
        }
    }
}
