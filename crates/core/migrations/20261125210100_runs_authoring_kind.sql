-- psebench: foreign-keys-off
-- Runs may now also be drafting jobs ("authoring"). SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt (with foreign keys off, so rows that point at runs are kept as
-- they are; the runner checks every reference before committing).

CREATE TABLE runs_rebuilt (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('eval', 'generation', 'authoring')),
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
