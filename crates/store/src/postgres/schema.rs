//! The schema: its migrations, applied at start inside one transaction under an advisory lock,
//! so that replicas starting together apply each once.

use super::{PgStore, timed};
use crate::StoreError;

/// The schema, one migration per entry; `schema_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    "
CREATE TABLE games (
    id          uuid PRIMARY KEY,
    created_ms  bigint NOT NULL,
    record      bytea NOT NULL,
    finished    boolean NOT NULL DEFAULT false,
    quarantined text
);
CREATE INDEX games_open ON games (created_ms) WHERE NOT finished AND quarantined IS NULL;
CREATE TABLE log (
    game uuid NOT NULL,
    seq  bigint NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE replicas (
    id      uuid PRIMARY KEY,
    addr    text NOT NULL,
    started timestamptz NOT NULL DEFAULT clock_timestamp(),
    expires timestamptz NOT NULL
);
CREATE TABLE leases (
    game  uuid PRIMARY KEY,
    owner uuid NOT NULL,
    epoch bigint NOT NULL
);
CREATE INDEX leases_owner ON leases (owner);
",
    "
CREATE TABLE labels (
    game  uuid NOT NULL,
    key   text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (game, key)
);
CREATE INDEX labels_by_value ON labels (key, value, game);
",
    "
CREATE TABLE reviews (
    game uuid NOT NULL,
    key  text NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (game, key)
);
",
    "
ALTER TABLE leases ALTER COLUMN owner DROP NOT NULL;
ALTER TABLE leases ADD COLUMN slept_ms bigint, ADD COLUMN slept_at timestamptz, ADD COLUMN wake_at timestamptz;
CREATE INDEX leases_wake ON leases (wake_at) WHERE owner IS NULL;
",
    // The replicas' shared secret: a forwarded call proves with it that a replica sent it.
    // gen_random_uuid (PostgreSQL 13+) draws from the server's strong random source.
    "
CREATE TABLE cluster_secret (one boolean PRIMARY KEY DEFAULT true CHECK (one), secret text NOT NULL);
INSERT INTO cluster_secret (secret) VALUES (replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));
",
    // Director keys: a token's hash, never the token; labels as `key=value` lines.
    "
CREATE TABLE director_keys (
    name       text PRIMARY KEY,
    token_hash bytea NOT NULL,
    labels     text NOT NULL,
    created_ms bigint NOT NULL,
    revoked_ms bigint
);
",
    // Tournaments: each state's body, its version checked (one writer at a time).
    "
CREATE TABLE tournaments (
    slug    text PRIMARY KEY,
    version bigint NOT NULL,
    body    bytea NOT NULL
);
",
    // A tournament's events and kept answers: rows of their own, each written once.
    "
CREATE TABLE tournament_events (
    slug   text NOT NULL,
    number bigint NOT NULL,
    body   bytea NOT NULL,
    PRIMARY KEY (slug, number)
);
CREATE TABLE tournament_answers (
    slug    text NOT NULL,
    key     text NOT NULL,
    version bigint NOT NULL,
    body    bytea NOT NULL,
    PRIMARY KEY (slug, key)
);
CREATE INDEX tournament_answers_by_version ON tournament_answers (slug, version);
",
    // Broadcasts: each written whole, its version checked.
    "
CREATE TABLE broadcasts (
    slug    text PRIMARY KEY,
    version bigint NOT NULL,
    body    bytea NOT NULL
);
",
    // A tournament's state in parts beside its body: a change writes the parts it changed.
    "
CREATE TABLE tournament_parts (
    slug text NOT NULL,
    key  text NOT NULL,
    body bytea NOT NULL,
    PRIMARY KEY (slug, key)
);
",
    // The bots' lobby: one version, its parts, and each bot's events.
    "
CREATE TABLE lobby (
    id      int PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL,
    tag     bigint NOT NULL
);
CREATE TABLE lobby_parts (
    key  text PRIMARY KEY,
    body bytea NOT NULL
);
CREATE TABLE bot_events (
    bot    text NOT NULL,
    number bigint NOT NULL,
    body   bytea NOT NULL,
    PRIMARY KEY (bot, number)
);
",
    // The review jobs: each game's review at a time a turn, claimed by one replica at a time.
    "
CREATE TABLE review_jobs (
    game        uuid NOT NULL,
    ms          bigint NOT NULL,
    slug        text NOT NULL,
    division    text NOT NULL,
    round       bigint NOT NULL,
    state       text NOT NULL,
    generation  bigint NOT NULL,
    attempts    bigint NOT NULL,
    owner       uuid,
    fingerprint bigint,
    error       text,
    queued_at   timestamptz NOT NULL,
    PRIMARY KEY (game, ms)
);
CREATE INDEX review_jobs_by_slug ON review_jobs (slug);
CREATE INDEX review_jobs_open ON review_jobs (queued_at) WHERE state IN ('queued', 'running');
",
];

impl PgStore {
    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = timed(client.transaction()).await?;
        timed(tx.execute("SELECT pg_advisory_xact_lock(7210388)", &[])).await?;
        timed(tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version int NOT NULL)")).await?;
        let version: i32 = match timed(tx.query_opt("SELECT version FROM schema_version", &[])).await? {
            Some(row) => row.get(0),
            None => {
                timed(tx.execute("INSERT INTO schema_version VALUES (0)", &[])).await?;
                0
            }
        };
        if version as usize > MIGRATIONS.len() {
            return Err(StoreError::Io(format!(
                "the database has schema version {version}; this build knows {}",
                MIGRATIONS.len()
            )));
        }
        for m in &MIGRATIONS[version as usize..] {
            timed(tx.batch_execute(m)).await?;
        }
        timed(tx.execute("UPDATE schema_version SET version = $1", &[&(MIGRATIONS.len() as i32)])).await?;
        timed(tx.commit()).await
    }
}
