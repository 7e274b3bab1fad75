-- Long-running jobs (evaluation and generation runs) and evaluation trajectories.

CREATE TABLE runs (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('eval', 'generation')),
    status       TEXT NOT NULL,          -- pending | running | cancelled | failed | completed
    label        TEXT,
    config_json  TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    started_at   TEXT,
    finished_at  TEXT,
    heartbeat_at TEXT,                   -- refreshed while a process works on the run
    error        TEXT,
    app_version  TEXT NOT NULL
);
CREATE INDEX runs_by_kind ON runs(kind, created_at);

CREATE TABLE eval_items (
    run_id            TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    case_id           TEXT NOT NULL,
    repeat            INTEGER NOT NULL,
    status            TEXT NOT NULL,     -- pending | done
    trajectory_json   TEXT,
    verdict           TEXT,
    correct           INTEGER,
    asks              INTEGER,
    parse_failure     INTEGER,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    cost_usd          REAL,
    last_error        TEXT,
    finished_at       TEXT,
    PRIMARY KEY (run_id, case_id, repeat)
);
