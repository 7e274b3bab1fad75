-- psebench: foreign-keys-off
-- Anchor pre-sort and translation as resumable jobs. Runs may now also be anchor jobs ("anchors");
-- SQLite cannot change a CHECK constraint in place, so the runs table is rebuilt with every column
-- it had (foreign keys are off meanwhile; the runner checks every reference before committing).
-- anchor_job_items holds the anchors a job froze when it was created and, once each is handled,
-- its outcome; an item without an outcome (or with outcome 'failed') is still to do.

CREATE TABLE runs_rebuilt (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('eval', 'generation', 'authoring', 'label_audit', 'anchors')),
    status       TEXT NOT NULL,          -- pending | running | cancelled | failed | completed
    label        TEXT,
    config_json  TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    heartbeat_at TEXT,                   -- refreshed while a process works on the run
    error        TEXT,
    app_version  TEXT NOT NULL,
    owner_id     TEXT,
    owner_label  TEXT,
    owner_host   TEXT,
    owner_pid    INTEGER,
    claimed_at   TEXT
);
INSERT INTO runs_rebuilt (run_id, kind, status, label, config_json, created_at, started_at, finished_at,
                          heartbeat_at, error, app_version, owner_id, owner_label, owner_host, owner_pid, claimed_at)
SELECT run_id, kind, status, label, config_json, created_at, started_at, finished_at,
       heartbeat_at, error, app_version, owner_id, owner_label, owner_host, owner_pid, claimed_at
FROM runs;
DROP TABLE runs;
ALTER TABLE runs_rebuilt RENAME TO runs;
CREATE INDEX runs_by_kind ON runs(kind, created_at);

CREATE TABLE anchor_job_items (
    run_id        TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    anchor_id     TEXT NOT NULL,          -- not a foreign key: the job's record outlives a removed anchor
    position      INTEGER NOT NULL,       -- order in which the job takes its anchors
    outcome       TEXT,                   -- NULL: not handled yet; changed | unchanged | kept_manual | failed
    clause_id     TEXT,                   -- the bucket after the step (pre-sort), or the anchor's bucket
    note          TEXT,                   -- the model's reason, or the problem
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL NOT NULL DEFAULT 0,
    finished_at   TEXT,
    PRIMARY KEY (run_id, anchor_id)
);
