-- psebench: foreign-keys-off
-- The label audit: stored cases screened against the whole policy by one or more models. Runs may
-- now also be label audits ("label_audit"); SQLite cannot change a CHECK constraint in place, so
-- the runs table is rebuilt (foreign keys off meanwhile; the runner checks every reference before
-- committing). Each (audit, case, model) result is one row of label_audit_results.

CREATE TABLE runs_rebuilt (
    run_id       TEXT PRIMARY KEY,
    kind         TEXT NOT NULL CHECK (kind IN ('eval', 'generation', 'authoring', 'label_audit')),
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

CREATE TABLE label_audit_results (
    run_id            TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    case_id           TEXT NOT NULL,      -- not a foreign key: the audit outlives a removed case
    model             TEXT NOT NULL,      -- registered model name
    label             TEXT NOT NULL,      -- the case's by-construction verdict when it was screened
    clause_id         TEXT NOT NULL,
    readable          INTEGER NOT NULL,   -- 0: no reply could be read after several tries
    verdict           TEXT,               -- Reportable | Non-reportable | Uncertain
    clauses_met_json  TEXT NOT NULL,      -- JSON list of {clause_id, why}
    open_question_json TEXT,              -- JSON {present, section_id, why}
    agrees            INTEGER NOT NULL,
    conflicts_json    TEXT NOT NULL,      -- JSON list: how the reply disagrees with the label
    response_text     TEXT,               -- the last reply as received
    parse_notes_json  TEXT NOT NULL,      -- JSON list: repairs made, or why replies were unreadable
    prompt_version    TEXT NOT NULL,
    input_tokens      INTEGER NOT NULL DEFAULT 0,
    output_tokens     INTEGER NOT NULL DEFAULT 0,
    cost_usd          REAL NOT NULL DEFAULT 0,
    created_at        TEXT NOT NULL,
    PRIMARY KEY (run_id, case_id, model)
);
