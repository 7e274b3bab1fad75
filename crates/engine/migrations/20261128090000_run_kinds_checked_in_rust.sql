-- psebench: foreign-keys-off
-- Run kinds are checked in Rust (`jobs::RunKind`), where adding a kind of run is one enum entry:
-- the runs table is rebuilt one last time without a CHECK list of kinds, with every column and
-- row it had (foreign keys are off meanwhile; the runner checks every reference before committing).

CREATE TABLE runs_rebuilt (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,          -- jobs::RunKind; an unknown kind is refused when read
    status       TEXT NOT NULL,          -- jobs::RunStatus
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
