//! Changes that arrive together, written as one version (group commit): what a room of players
//! sends at the same moment (their reports as a round ends, their check-ins before it starts)
//! would otherwise wait for one store write each, one after another, each its own fsync. A
//! change is queued by its tournament; whichever call holds the tournament next takes every
//! change queued, makes each in turn on the tournament as read (each as if alone: a refused one
//! leaves the others as they were), writes them as one version, and answers each. A change's
//! answer reaches its caller only once that version is written, so no one hears of a change the
//! store could still lose.
//!
//! A batched change comes in two halves: `check`, which reads the tournament and refuses
//! (it cannot change anything: it is handed `&Record`), and `apply`, which makes the change
//! checked. An `apply` that fails anyway (a rule the check did not foresee) may have changed the
//! tournament part way: the batch reads it again and makes the changes before it once more.
//! The batches are taken and written by one task a tournament (its drainer, started by the
//! change that finds none running, ending when the queue is empty), so a caller that goes away
//! mid-batch loses no one else's answer, and a thousand changes at once start one task, not a
//! thousand all waiting to hold the tournament.

use super::change::{Answer, Held, Retry, decode_answer, written};
use super::record::Record;
use crate::Events;
use crate::error::EventsError;
use crate::records::Put;
use std::any::Any;
use std::collections::HashMap;

/// The most changes one version takes: beyond it, the next version takes the rest (so the
/// first callers of a flood are answered without waiting for the last). A report is made in
/// about 10 µs: a room of a thousand is one version of about 10 ms.
const MOST_A_VERSION: usize = 1024;

/// A change's answer as the batch hands it over: made now, or kept for its request id before.
enum Done {
    Made(Box<dyn Any + Send>),
    Kept(Vec<u8>),
}

/// What making a change on the tournament came to.
enum Made {
    /// Refused by its check: the tournament is as it was.
    Refused(EventsError),
    /// Refused by its apply: the tournament may hold part of it.
    Failed(EventsError),
    /// Made: its answer, and the answer's bytes to keep when it has a request id.
    Answered(Box<dyn Any + Send>, Option<Vec<u8>>),
}

type Make = Box<dyn FnMut(&mut Record) -> Made + Send>;

/// A change waiting for the tournament.
pub(crate) struct Queued {
    /// The key its answer is kept by (None: no request id).
    key: Option<String>,
    make: Make,
    answer: tokio::sync::oneshot::Sender<Result<Done, EventsError>>,
}

/// The changes queued on this replica, by tournament: a tournament is here while its drainer
/// runs (its queue empty or not), and only then.
#[derive(Default)]
pub(crate) struct Queues(std::sync::Mutex<HashMap<String, Vec<Queued>>>);

impl Queues {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<Queued>>> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queue `queued` on `slug`: true when no drainer runs there, for the caller to start one.
    fn push(&self, slug: &str, queued: Queued) -> bool {
        let mut queues = self.lock();
        let start = !queues.contains_key(slug);
        queues.entry(slug.to_string()).or_default().push(queued);
        start
    }

    /// The oldest changes queued on `slug`, as many as a version takes; none (and the drainer
    /// stops, in the same step, so a change queued after it starts another) when none wait.
    fn take(&self, slug: &str) -> Option<Vec<Queued>> {
        let mut queues = self.lock();
        let queue = queues.get_mut(slug)?;
        if queue.is_empty() {
            queues.remove(slug);
            return None;
        }
        let most = queue.len().min(MOST_A_VERSION);
        Some(queue.drain(..most).collect())
    }
}

/// A tournament's drainer, made before its task is spawned: should the task stop before it has
/// found the queue empty (a panic, or a runtime shutting down that drops it, even unpolled), the
/// changes still queued are dropped (their callers told so) and the next change starts a drainer
/// afresh.
struct Draining {
    events: Events,
    slug: String,
    /// The queue was found empty and let go ([`Queues::take`]).
    finished: bool,
}

impl Draining {
    /// The queue was found empty: nothing is left to drop.
    fn finish(&mut self) {
        self.finished = true;
    }
}

impl Drop for Draining {
    fn drop(&mut self) {
        if !self.finished {
            self.events.0.queues.lock().remove(&self.slug);
        }
    }
}

impl Events {
    /// A change made once per request id, with the others that arrive while the tournament is
    /// held, written as one version with them: `check` refuses without changing anything,
    /// `apply` makes what `check` found. Answered once the version holding it is written.
    pub(crate) async fn batched<P, R>(
        &self,
        slug: &str,
        retry: Retry<'_>,
        check: impl Fn(&Record) -> Result<P, EventsError> + Send + 'static,
        mut apply: impl FnMut(&mut Record, P) -> Result<R, EventsError> + Send + 'static,
    ) -> Result<R, EventsError>
    where
        R: Answer + Send + 'static,
    {
        let key = retry.key();
        let keyed = key.is_some();
        let make: Make = Box::new(move |rec| match check(rec) {
            Err(e) => Made::Refused(e),
            Ok(plan) => match apply(rec, plan) {
                Ok(answer) => {
                    let kept = keyed.then(|| answer.write());
                    Made::Answered(Box::new(answer), kept)
                }
                Err(e) => Made::Failed(e),
            },
        });
        let (answer, answered) = tokio::sync::oneshot::channel();
        if self.0.queues.push(slug, Queued { key, make, answer }) {
            let mut draining = Draining { events: self.clone(), slug: slug.to_string(), finished: false };
            tokio::spawn(async move {
                loop {
                    let events = draining.events.clone();
                    let held = events.hold(&draining.slug).await;
                    let Some(batch) = events.0.queues.take(&draining.slug) else {
                        draining.finish();
                        break;
                    };
                    events.write_batch(&held, batch).await;
                }
            });
        }
        match answered.await {
            Ok(Ok(Done::Made(answer))) => answer
                .downcast::<R>()
                .map(|answer| *answer)
                .map_err(|_| EventsError::Internal("a batched change answered with another's type".into())),
            Ok(Ok(Done::Kept(bytes))) => decode_answer(&bytes),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(EventsError::Internal("a batched change was dropped unanswered".into())),
        }
    }

    /// Make every change of `batch` on the tournament `held`, in order, write them as its next
    /// version, and answer each; a race lost to another replica is read again and made again,
    /// as [`Events::change`] does.
    async fn write_batch(&self, held: &Held<'_>, mut batch: Vec<Queued>) {
        let slug = held.slug();
        let mut tries = 0;
        let mut answers = loop {
            let (mut record, version, mut answers) = match self.make_batch(slug, &mut batch).await {
                Ok(made) => made,
                Err(e) => return answer_all(batch, |_| Err(copy(&e))),
            };
            // The changes made, by place in the batch: their answers wait for the write.
            let changed: Vec<usize> =
                (0..batch.len()).filter(|&j| matches!(answers[j], Some(Ok(Done::Made(_))))).collect();
            if changed.is_empty() {
                break answers;
            }
            let failed = match self.0.tournament_records.put(written(&mut record, version + 1)).await {
                Ok(Put::Written) => {
                    self.0.cache.put(slug, version + 1, record);
                    let _ = self.0.changes.send(slug.to_string());
                    break answers;
                }
                Ok(Put::Stale) if tries + 1 < super::change::TRIES => {
                    tries += 1;
                    continue;
                }
                Ok(Put::Stale) => EventsError::Aborted(format!(
                    "tournament {slug:?} changed at the same moment; call again"
                )),
                Err(e) => e,
            };
            for &j in &changed {
                answers[j] = Some(Err(copy(&failed)));
            }
            break answers;
        };
        answer_all(batch, |j| answers[j].take().unwrap_or_else(unanswered));
    }

    /// Every change of `batch` made on tournament `slug` as read: the tournament as they left
    /// it, the version read, and each one's answer (a request id answered before: its kept
    /// answer; refused: why).
    #[allow(clippy::type_complexity)]
    async fn make_batch(
        &self,
        slug: &str,
        batch: &mut [Queued],
    ) -> Result<(Record, u64, Vec<Option<Result<Done, EventsError>>>), EventsError> {
        let (mut record, version) = self.load(slug).await?;
        let mut answers: Vec<Option<Result<Done, EventsError>>> = (0..batch.len()).map(|_| None).collect();
        // The answers kept before for the batch's request ids, read together; a failed read
        // answers each keyed change with the failure (as reading them one by one would).
        let keys: Vec<String> = batch.iter().filter_map(|q| q.key.clone()).collect();
        let before = match keys.is_empty() {
            true => Ok(HashMap::new()),
            false => self.kept_answers(slug, &record, keys).await,
        };
        // Answers kept in this batch, by key: a retry queued beside its first call gets the first's.
        let mut kept: HashMap<String, Vec<u8>> = HashMap::new();
        for j in 0..batch.len() {
            if let Some(key) = &batch[j].key {
                let found = match &before {
                    Ok(before) => kept.get(key).or_else(|| before.get(key)).cloned(),
                    Err(e) => {
                        answers[j] = Some(Err(copy(e)));
                        continue;
                    }
                };
                if let Some(body) = found {
                    answers[j] = Some(Ok(Done::Kept(body)));
                    continue;
                }
            }
            match make_one(&mut batch[j], &mut record, &mut kept) {
                Ok(done) => answers[j] = Some(Ok(done)),
                Err((e, false)) => answers[j] = Some(Err(e)),
                Err((e, true)) => {
                    answers[j] = Some(Err(e));
                    // Part of it may be in the record: read it again and make those before it again
                    // (each made on the very state it was made on before, so it comes out the same).
                    (record, _) = self.load(slug).await?;
                    kept.clear();
                    for before in 0..j {
                        if matches!(answers[before], Some(Ok(Done::Made(_)))) {
                            let made = make_one(&mut batch[before], &mut record, &mut kept);
                            answers[before] = Some(made.map_err(|(e, _)| e));
                        }
                    }
                }
            }
        }
        Ok((record, version, answers))
    }
}

/// Make `queued` on `record`, its answer kept for its request id (in the record, and in `kept`
/// for a retry queued beside it): its answer, or why not and whether the record may hold part of
/// it.
fn make_one(
    queued: &mut Queued,
    record: &mut Record,
    kept: &mut HashMap<String, Vec<u8>>,
) -> Result<Done, (EventsError, bool)> {
    match (queued.make)(record) {
        Made::Answered(answer, body) => {
            if let (Some(key), Some(body)) = (&queued.key, body) {
                record.remember(key.clone(), body.clone());
                kept.insert(key.clone(), body);
            }
            Ok(Done::Made(answer))
        }
        Made::Refused(e) => Err((e, false)),
        Made::Failed(e) => Err((e, true)),
    }
}

/// Answer every change of `batch` with `answer` of its place.
fn answer_all(batch: Vec<Queued>, mut answer: impl FnMut(usize) -> Result<Done, EventsError>) {
    for (j, queued) in batch.into_iter().enumerate() {
        // A caller gone away has no one to answer.
        let _ = queued.answer.send(answer(j));
    }
}

fn unanswered() -> Result<Done, EventsError> {
    Err(EventsError::Internal("a batched change was left unanswered".into()))
}

/// The store's refusal of a whole batch, for each of its changes: the first's own words, its kind
/// kept where the kind is the caller's to act on.
fn copy(e: &EventsError) -> EventsError {
    match e {
        EventsError::Aborted(m) => EventsError::Aborted(m.clone()),
        EventsError::NotFound(m) => EventsError::NotFound(m.clone()),
        EventsError::DeadlinePassed(m) => EventsError::DeadlinePassed(m.clone()),
        EventsError::Host(e) => EventsError::Host(e.clone()),
        other => EventsError::Internal(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    //! The path no command of the layer's takes today: an `apply` that fails after its `check`
    //! passed, part of it already in the record. The batch must read the tournament again and
    //! make the changes before it once more, so that nothing of the failed one is written.

    use super::*;
    use crate::settings::GameSettings;
    use crate::tournaments::record::{DivisionId, DivisionRecord};
    use dawgref_host::{Answers, Callbacks, ChallengeDone, DirectorDone, Host, Limits, TurnDone};
    use dawgref_store::{MemoryStore, TournamentStore};
    use dawgref_tournament::{Controls, Division, Method, Player, PlayerId};
    use std::sync::Arc;

    struct NoAnswers;

    impl Answers for NoAnswers {
        fn turn(&self, _: &TurnDone) -> Vec<u8> {
            Vec::new()
        }
        fn challenge(&self, _: &ChallengeDone) -> Vec<u8> {
            Vec::new()
        }
        fn director(&self, _: &DirectorDone) -> Vec<u8> {
            Vec::new()
        }
    }

    /// The layer over a host and the in-memory store (the sender kept: dropped, the host would
    /// hear shutdown).
    fn layer() -> (Events, Arc<MemoryStore>, tokio::sync::watch::Sender<bool>) {
        let store = Arc::new(MemoryStore::new());
        let (shutdown, rx) = tokio::sync::watch::channel(false);
        let host = Host::new(
            vec![],
            Limits::default(),
            store.clone(),
            Callbacks::default(),
            Arc::new(NoAnswers),
            rx,
        );
        (
            Events::new(host, store.clone(), store.clone(), store.clone(), store.clone(), Default::default()),
            store,
            shutdown,
        )
    }

    /// A change's answer: which player it checked in.
    #[derive(Debug, PartialEq)]
    struct In(u32);

    impl Answer for In {
        fn write(&self) -> Vec<u8> {
            self.0.to_le_bytes().to_vec()
        }
        fn read(bytes: &[u8]) -> Result<In, String> {
            Ok(In(u32::from_le_bytes(bytes.try_into().map_err(|_| "four bytes".to_string())?)))
        }
    }

    #[tokio::test]
    async fn a_change_whose_apply_fails_part_way_leaves_nothing_and_the_others_are_written() {
        let (events, store, _shutdown) = layer();
        let players = (0..4).map(|i| Player::new(format!("P{i}"), Some(1500))).collect();
        let division = Division::new("A", players, &[Method::Manual], Controls::default());
        let mut record = Record::new("t", "T", GameSettings::default(), 7);
        record.divisions.push(DivisionRecord::new(division, vec![None; 4]));
        events.create(record).await.unwrap();
        // Player n checked in, by a change that fails after it when `fails`.
        let change = |n: u32, fails: bool| {
            let events = events.clone();
            tokio::spawn(async move {
                let retry = Retry { method: "CheckIn", request_id: "" };
                let check = |_: &Record| Ok(());
                let apply = move |rec: &mut Record, ()| {
                    rec.divisions[0].checked_in.insert(PlayerId(n));
                    match fails {
                        true => Err(EventsError::Internal(format!("player {n}'s change fails part way"))),
                        false => Ok(In(n)),
                    }
                };
                events.batched("t", retry, check, apply).await
            })
        };
        // Queued together while the tournament is held: one batch.
        let held = events.hold("t").await;
        let calls = [change(0, false), change(1, true), change(2, false)];
        while events.0.queues.lock().get("t").map_or(0, Vec::len) < 3 {
            tokio::task::yield_now().await;
        }
        drop(held);
        let mut answers = Vec::new();
        for call in calls {
            answers.push(call.await.unwrap().map_err(|e| e.to_string()));
        }
        assert_eq!(answers, [Ok(In(0)), Err("player 1's change fails part way".into()), Ok(In(2))]);
        // One version written, with the two changes made and nothing of the failed one.
        let (record, version) = events.load("t").await.unwrap();
        assert_eq!(version, 2);
        let checked: Vec<PlayerId> = record.entry(DivisionId(0)).checked_in.iter().copied().collect();
        assert_eq!(checked, [PlayerId(0), PlayerId(2)]);
        let stored =
            super::super::stored::decode(&store.tournament("t".into()).await.unwrap().unwrap()).unwrap();
        assert_eq!(stored.entry(DivisionId(0)).checked_in, record.entry(DivisionId(0)).checked_in);
    }

    #[tokio::test]
    async fn a_drainer_dropped_before_the_queue_is_empty_lets_the_next_change_start_another() {
        let (events, _, _shutdown) = layer();
        let queued = || {
            let (answer, answered) = tokio::sync::oneshot::channel();
            let make: Make =
                Box::new(|_: &mut Record| Made::Refused(EventsError::Internal("never made".into())));
            (Queued { key: None, make, answer }, answered)
        };
        let (first, first_answered) = queued();
        assert!(events.0.queues.push("t", first), "no drainer yet: start one");
        let (second, _) = queued();
        assert!(!events.0.queues.push("t", second), "a drainer runs");
        // The drainer's task dropped before it found the queue empty (a runtime shutting down).
        drop(Draining { events: events.clone(), slug: "t".into(), finished: false });
        assert!(first_answered.await.is_err(), "its caller is told: dropped unanswered");
        let (third, _) = queued();
        assert!(events.0.queues.push("t", third), "the next change starts a drainer afresh");
        // One that finished lets nothing go.
        let mut finished = Draining { events: events.clone(), slug: "t".into(), finished: false };
        finished.finish();
        drop(finished);
        assert_eq!(events.0.queues.lock().get("t").map(Vec::len), Some(1));
    }
}
