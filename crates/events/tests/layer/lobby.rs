//! The bots' lobby as generated sequences of commands on two replicas sharing one store: every
//! command answers as a model of the challenges says it should, and afterwards every two records
//! of one fact agree: each bot's stream is numbered 1, 2, … up to its account's last event, each
//! challenge is offered once on its bot's stream and closed once on each side's when it is closed
//! (as the lobby keeps it), and either replica reads the same lobby.

use dawgref_events::{
    Accepts, BotEvent, BotEventKind, Challenge, ChallengeState, DeclineReason, Events, EventsError,
    GameSettings, LobbyActor, LobbyGames, LobbyLimits, LobbySeat, NewBot, NewChallenge,
};
use dawgref_host::{Callbacks, Host, Limits};
use dawgref_store::{LobbyStore, MemoryStore};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Games made for accepted challenges, noted and made nowhere.
#[derive(Default)]
struct NotedGames(Mutex<Vec<uuid::Uuid>>);

impl LobbyGames for NotedGames {
    async fn make(
        &self,
        id: uuid::Uuid,
        _: &GameSettings,
        _: [LobbySeat; 2],
        _: u64,
        _: Vec<(String, String)>,
    ) -> Result<(), EventsError> {
        self.0.lock().unwrap().push(id);
        Ok(())
    }
}

const BOTS: [&str; 3] = ["ann-bot", "ben-bot", "cy-bot"];

fn bot_token(i: usize) -> [u8; 32] {
    [i as u8 + 1; 32]
}

fn person_token(i: usize) -> [u8; 32] {
    [i as u8 + 100; 32]
}

/// A layer over `store` with limits no sequence reaches.
fn layer(store: &Arc<MemoryStore>) -> (Events, tokio::sync::watch::Sender<bool>) {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let host = Host::new(
        vec![crate::fakes::lexicon().clone()],
        Limits::default(),
        store.clone(),
        Callbacks::default(),
        Arc::new(crate::fakes::NoAnswers),
        rx,
    );
    let limits =
        LobbyLimits { bot_games_per_day: 100_000, challenges_per_minute: 100_000, ..Default::default() };
    (Events::new(host, store.clone(), store.clone(), store.clone(), store.clone(), limits), tx)
}

/// Two replicas' layers over one store, the bots registered, each online on its stream.
struct Lobby {
    store: Arc<MemoryStore>,
    a: Events,
    b: Events,
    streams: Vec<dawgref_events::BotEvents>,
    /// Kept: dropped, each host would hear shutdown.
    _shutdown: [tokio::sync::watch::Sender<bool>; 2],
}

impl Lobby {
    /// The bots registered through the first replica, their streams open on replica `on`.
    async fn online(on: usize) -> Lobby {
        let store = Arc::new(MemoryStore::new());
        let (a, a_down) = layer(&store);
        let (b, b_down) = layer(&store);
        let accepts = Accepts { rated: true, casual: true, bots: true, people: true, ..Accepts::default() };
        for (i, name) in BOTS.iter().enumerate() {
            let bot = NewBot { name: name.to_string(), owner: "lab".into(), accepts: accepts.clone() };
            a.register_bot(&LobbyActor::Director(None), bot, bot_token(i)).await.unwrap();
        }
        let mut streams = Vec::new();
        for i in 0..BOTS.len() {
            streams.push([&a, &b][on].bot_events(&LobbyActor::Bot(bot_token(i)), 0).await.unwrap());
        }
        Lobby { store, a, b, streams, _shutdown: [a_down, b_down] }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Who {
    Bot(usize),
    Person(usize),
}

#[derive(Clone, Debug)]
enum Op {
    Challenge { from: Who, to: usize, rated: bool, on: usize },
    Accept { k: usize, by: usize, on: usize },
    Decline { k: usize, by: usize, on: usize },
    Withdraw { k: usize, by: Who, on: usize },
}

fn who() -> impl Strategy<Value = Who> {
    prop_oneof![(0..3usize).prop_map(Who::Bot), (0..2usize).prop_map(Who::Person)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (who(), 0..3usize, any::<bool>(), 0..2usize).prop_map(|(from, to, rated, on)| Op::Challenge { from, to, rated, on }),
        2 => (0..40usize, 0..3usize, 0..2usize).prop_map(|(k, by, on)| Op::Accept { k, by, on }),
        2 => (0..40usize, 0..3usize, 0..2usize).prop_map(|(k, by, on)| Op::Decline { k, by, on }),
        1 => (0..40usize, who(), 0..2usize).prop_map(|(k, by, on)| Op::Withdraw { k, by, on }),
    ]
}

fn actor(who: Who) -> LobbyActor {
    match who {
        Who::Bot(i) => LobbyActor::Bot(bot_token(i)),
        Who::Person(p) => LobbyActor::Person(Some(person_token(p))),
    }
}

/// A challenge as the model knows it.
struct Modelled {
    id: String,
    from: Who,
    to: usize,
    open: bool,
}

async fn check(ops: Vec<Op>) -> Result<(), TestCaseError> {
    let Lobby { store, a, b, streams, _shutdown } = Lobby::online(0).await;
    let replicas = [&a, &b];
    let games = NotedGames::default();
    let mut model: Vec<Modelled> = Vec::new();
    for op in ops {
        match op {
            Op::Challenge { from, to, rated, on } => {
                let person = match from {
                    Who::Person(p) => Some((format!("person {p}"), person_token(p))),
                    Who::Bot(_) => None,
                };
                let new = NewChallenge {
                    to: BOTS[to].into(),
                    game: GameSettings::default(),
                    rated,
                    wait: Some(std::time::Duration::from_secs(3600)),
                    person,
                    person_key: match from {
                        Who::Person(p) => Some(person_token(p)),
                        Who::Bot(_) => None,
                    },
                    server_bot: None,
                };
                let by = match from {
                    Who::Bot(i) => LobbyActor::Bot(bot_token(i)),
                    Who::Person(_) => LobbyActor::Person(None),
                };
                let answer = replicas[on].challenge(&by, new).await;
                prop_assert_eq!(answer.is_ok(), from != Who::Bot(to), "{:?}", answer);
                if let Ok(c) = answer {
                    model.push(Modelled { id: c.id, from, to, open: true });
                }
            }
            Op::Accept { k, by, on } | Op::Decline { k, by, on } if !model.is_empty() => {
                let n = model.len();
                let m = &mut model[k % n];
                let actor = LobbyActor::Bot(bot_token(by));
                let answer = if matches!(op, Op::Accept { .. }) {
                    replicas[on].accept_challenge(&actor, &m.id, &games).await
                } else {
                    replicas[on].decline_challenge(&actor, &m.id, DeclineReason::Later, "busy".into()).await
                };
                prop_assert_eq!(answer.is_ok(), m.open && by == m.to, "{:?}", answer);
                m.open &= answer.is_err();
            }
            Op::Withdraw { k, by, on } if !model.is_empty() => {
                let n = model.len();
                let m = &mut model[k % n];
                let answer = replicas[on].withdraw_challenge(&actor(by), &m.id).await;
                prop_assert_eq!(answer.is_ok(), m.open && by == m.from, "{:?}", answer);
                m.open &= answer.is_err();
            }
            _ => {}
        }
    }

    let made = games.0.lock().unwrap().len();
    agree(&store, &a, &b, &model, made).await?;
    drop(streams);
    Ok(())
}

/// Every record of each challenge `model` made agrees: the lobby's, each replica's reading, the
/// streams'; and `made` games were made, one an accepted challenge.
async fn agree(
    store: &Arc<MemoryStore>,
    a: &Events,
    b: &Events,
    model: &[Modelled],
    made: usize,
) -> Result<(), TestCaseError> {
    let mut kept: BTreeMap<String, Challenge> = BTreeMap::new();
    for m in model {
        let here = a.challenge_of(&m.id).await.unwrap();
        let there = b.challenge_of(&m.id).await.unwrap();
        prop_assert_eq!(&here, &there);
        prop_assert_eq!(here.state == ChallengeState::Open, m.open);
        kept.insert(m.id.clone(), here);
    }
    let accepted = kept.values().filter(|c| matches!(c.state, ChallengeState::Accepted { .. })).count();
    prop_assert_eq!(made, accepted, "one game an accepted challenge");
    let names = |bots: Vec<dawgref_events::BotProfile>| {
        bots.into_iter().map(|b| (b.name, b.online)).collect::<Vec<_>>()
    };
    prop_assert_eq!(
        names(a.bots().await.unwrap()),
        names(b.bots().await.unwrap()),
        "online on either replica"
    );
    for (i, name) in BOTS.iter().enumerate() {
        let account = a.bot_named_by(&bot_token(i)).await.unwrap();
        let rows = store.bot_events(name.to_string(), 1).await.unwrap();
        let events: Vec<BotEvent> =
            rows.iter().map(|(_, body)| serde_json::from_slice(body).unwrap()).collect();
        let numbers: Vec<u64> = events.iter().map(|e| e.number).collect();
        prop_assert_eq!(numbers, (1..=account.last_event).collect::<Vec<_>>(), "{}'s stream", name);
        for c in kept.values() {
            let offered = events
                .iter()
                .filter(|e| matches!(&e.kind, BotEventKind::Challenged(o) if o.id == c.id))
                .count();
            prop_assert_eq!(offered, usize::from(c.to == *name), "{} offered {}", name, c.id);
            let closed: Vec<&Challenge> = events
                .iter()
                .filter_map(|e| match &e.kind {
                    BotEventKind::ChallengeClosed(o) if o.id == c.id => Some(o),
                    _ => None,
                })
                .collect();
            let party = c.to == *name || c.from.name() == *name;
            let expected: Vec<&Challenge> =
                if party && c.state != ChallengeState::Open { vec![c] } else { vec![] };
            prop_assert_eq!(closed, expected, "{} told of {}", name, c.id);
            let started = events
                .iter()
                .filter(
                    |e| matches!(&e.kind, BotEventKind::GameStarted { challenge, .. } if *challenge == c.id),
                )
                .count();
            let accepted = matches!(c.state, ChallengeState::Accepted { .. });
            prop_assert_eq!(started, usize::from(party && accepted));
        }
    }
    Ok(())
}

/// Changes made at once on two replicas, each replica's own pipelined (the next made on the
/// state handed to the store before the last is durable): every challenge is sent, answered
/// once, and every record agrees as when they come one at a time.
#[test]
fn changes_made_at_once_on_two_replicas_keep_one_numbered_history() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let Lobby { store, a, b, streams, _shutdown } = Lobby::online(1).await;
        // 60 challenges at once, half through each replica.
        let mut sent = tokio::task::JoinSet::new();
        for k in 0..60usize {
            let on = if k % 2 == 0 { a.clone() } else { b.clone() };
            let (from, to) = (k % 3, (k + 1) % 3);
            sent.spawn(async move {
                let new = NewChallenge {
                    to: BOTS[to].into(),
                    game: GameSettings::default(),
                    rated: false,
                    wait: Some(std::time::Duration::from_secs(3600)),
                    person: None,
                    person_key: None,
                    server_bot: None,
                };
                let c = on.challenge(&LobbyActor::Bot(bot_token(from)), new).await.unwrap();
                Modelled { id: c.id, from: Who::Bot(from), to, open: true }
            });
        }
        let mut model = Vec::new();
        while let Some(m) = sent.join_next().await {
            model.push(m.unwrap());
        }
        // Each answered at once, twice over (one answer wins): declined or accepted, from
        // either replica.
        let games = Arc::new(NotedGames::default());
        let mut answered = tokio::task::JoinSet::new();
        for (k, m) in model.iter().enumerate() {
            for twice in 0..2 {
                let on = if (k + twice) % 2 == 0 { a.clone() } else { b.clone() };
                let (id, to, games) = (m.id.clone(), m.to, games.clone());
                answered.spawn(async move {
                    let actor = LobbyActor::Bot(bot_token(to));
                    if k % 2 == 0 {
                        on.accept_challenge(&actor, &id, &*games).await.is_ok()
                    } else {
                        on.decline_challenge(&actor, &id, DeclineReason::Later, "busy".into()).await.is_ok()
                    }
                });
            }
        }
        let mut answers = 0;
        while let Some(ok) = answered.join_next().await {
            answers += usize::from(ok.unwrap());
        }
        assert_eq!(answers, model.len(), "each challenge answered once");
        for m in &mut model {
            m.open = false;
        }
        let made = games.0.lock().unwrap().len();
        agree(&store, &a, &b, &model, made).await.unwrap();
        drop(streams);
    });
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_record_of_a_challenge_agrees_on_either_replica(ops in proptest::collection::vec(op(), 0..30)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        runtime.block_on(check(ops))?;
    }
}
