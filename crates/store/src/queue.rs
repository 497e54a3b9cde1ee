//! The writer queue both durable stores share: callers submit writes from any thread and get a
//! [`Pending`]; one writer (SQLite's thread, PostgreSQL's task) takes every write waiting as a
//! [`Group`], commits the group in one transaction and answers each write with its own result.
//! Group commit lives here once; what a write is and how a group commits is each store's.

use super::{Pending, StoreError};
use std::sync::Mutex;
use tokio::sync::{mpsc, oneshot};

/// A write and where its answer goes.
struct Request<J> {
    job: J,
    reply: oneshot::Sender<Result<(), StoreError>>,
}

/// The submitting end: shared by every caller of a store.
pub(crate) struct Queue<J> {
    /// `None` once closed: later writes fail with [`StoreError::WriterGone`].
    tx: Mutex<Option<mpsc::UnboundedSender<Request<J>>>>,
}

/// The writer's end: groups of waiting writes, at most `max` in one.
pub(crate) struct Groups<J> {
    rx: mpsc::UnboundedReceiver<Request<J>>,
    max: usize,
}

/// Writes committed together.
pub(crate) struct Group<J>(Vec<Request<J>>);

/// A queue and its writer's end; a group holds at most `max` writes.
pub(crate) fn queue<J>(max: usize) -> (Queue<J>, Groups<J>) {
    let (tx, rx) = mpsc::unbounded_channel();
    (Queue { tx: Mutex::new(Some(tx)) }, Groups { rx, max: max.max(1) })
}

impl<J> Queue<J> {
    /// Queue a write; the answer resolves once its group has committed (or failed).
    pub(crate) fn submit(&self, job: J) -> Pending {
        let (reply, answer) = oneshot::channel();
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        match tx.as_ref() {
            Some(tx) if tx.send(Request { job, reply }).is_ok() => Pending::waiting(answer),
            _ => Pending::ready(Err(StoreError::WriterGone)),
        }
    }

    /// Take no more writes. Those already queued are still taken, committed and answered: the
    /// writer's [`Groups`] end once they are.
    pub(crate) fn close(&self) {
        self.tx.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl<J> Groups<J> {
    /// The next group, waiting for its first write; `None` once the queue is closed and empty.
    pub(crate) async fn next(&mut self) -> Option<Group<J>> {
        let first = self.rx.recv().await?;
        Some(self.fill(first))
    }

    /// [`Groups::next`] for a writer on a thread of its own (never inside the async runtime).
    pub(crate) fn blocking_next(&mut self) -> Option<Group<J>> {
        let first = self.rx.blocking_recv()?;
        Some(self.fill(first))
    }

    /// The first write and every other already waiting, up to the limit.
    fn fill(&mut self, first: Request<J>) -> Group<J> {
        let mut group = vec![first];
        while group.len() < self.max {
            match self.rx.try_recv() {
                Ok(r) => group.push(r),
                Err(_) => break,
            }
        }
        Group(group)
    }
}

impl<J> Group<J> {
    pub(crate) fn jobs(&self) -> impl Iterator<Item = &J> {
        self.0.iter().map(|r| &r.job)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Answer each write with its own result, in the order of [`Group::jobs`].
    pub(crate) fn answer(self, results: Vec<Result<(), StoreError>>) {
        debug_assert_eq!(results.len(), self.0.len());
        for (request, result) in self.0.into_iter().zip(results) {
            // A caller that stopped waiting has nobody to tell.
            let _ = request.reply.send(result);
        }
    }

    /// Answer every write with the same failure: the group did not commit.
    pub(crate) fn fail(self, error: StoreError) {
        let n = self.0.len();
        self.answer(vec![Err(error); n]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writes_waiting_together_form_one_group_in_order_up_to_the_limit() {
        let (queue, mut groups) = queue::<u32>(3);
        let pending: Vec<Pending> = (0..5).map(|i| queue.submit(i)).collect();
        let first = groups.next().await.unwrap();
        assert_eq!(first.jobs().copied().collect::<Vec<_>>(), vec![0, 1, 2]);
        first.answer(vec![Ok(()), Err(StoreError::NoGame(uuid::Uuid::nil())), Ok(())]);
        let second = groups.next().await.unwrap();
        assert_eq!(second.len(), 2);
        second.fail(StoreError::Unavailable("down".into()));
        let results: Vec<String> = futures_util::future::join_all(pending.into_iter().map(Pending::wait))
            .await
            .into_iter()
            .map(|r| match r {
                Ok(()) => "ok".to_string(),
                Err(e) => e.to_string(),
            })
            .collect();
        assert_eq!(
            results,
            vec![
                "ok",
                "storage: no game 00000000-0000-0000-0000-000000000000",
                "ok",
                "storage: down",
                "storage: down"
            ]
        );
    }

    #[tokio::test]
    async fn a_closed_queue_refuses_new_writes_and_drains_the_queued_ones() {
        let (queue, mut groups) = queue::<u32>(8);
        let queued = queue.submit(1);
        queue.close();
        let refused = queue.submit(2);
        assert!(matches!(refused.wait().await, Err(StoreError::WriterGone)));
        let group = groups.next().await.unwrap();
        assert_eq!(group.jobs().copied().collect::<Vec<_>>(), vec![1]);
        group.answer(vec![Ok(())]);
        assert!(queued.wait().await.is_ok());
        assert!(groups.next().await.is_none());
    }

    #[test]
    fn a_writer_thread_takes_groups_without_a_runtime() {
        let (queue, mut groups) = queue::<u32>(8);
        let writer = std::thread::spawn(move || {
            let mut seen = Vec::new();
            while let Some(group) = groups.blocking_next() {
                seen.extend(group.jobs().copied());
                let n = group.len();
                group.answer(vec![Ok(()); n]);
            }
            seen
        });
        let pending: Vec<Pending> = (0..4).map(|i| queue.submit(i)).collect();
        queue.close();
        assert_eq!(writer.join().unwrap(), vec![0, 1, 2, 3]);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        for p in pending {
            assert!(rt.block_on(p.wait()).is_ok());
        }
    }
}
