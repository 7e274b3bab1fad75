-- Loyal extractions: per clause, which sections of the policy text bear on it (chosen by a model,
-- checked by a second call, approved by a named person), and every model call behind them.

CREATE TABLE author_extractions (
    id                TEXT PRIMARY KEY,
    policy_id         TEXT NOT NULL,
    clause_id         TEXT NOT NULL,
    version           INTEGER NOT NULL,
    edition           TEXT NOT NULL,            -- official or summary: which text was split
    source_hash       TEXT NOT NULL,            -- SHA-256 of the sections the model was shown
    sections_json     TEXT NOT NULL,            -- JSON list: the chosen sections (id, criteria, why, added_by)
    proposed_json     TEXT NOT NULL,            -- JSON list: what the model chose, before any person's change
    rejected_ids_json TEXT NOT NULL,            -- JSON list: ids still wrong after the last attempt
    problems_json     TEXT NOT NULL,            -- JSON list: problems still open after the last attempt
    self_check_json   TEXT NOT NULL,            -- JSON: {add: [...], remove: [...], notes: [...]}
    document          TEXT NOT NULL,            -- the assembled extraction (chosen sections copied whole)
    attempts          INTEGER NOT NULL,
    model             TEXT NOT NULL,
    prompt_versions   TEXT NOT NULL,            -- JSON: template name -> version
    status            TEXT NOT NULL CHECK (status IN ('proposed', 'approved')),
    approved_by       TEXT,
    approved_at       TEXT,
    notes             TEXT,
    created_at        TEXT NOT NULL,
    UNIQUE (policy_id, clause_id, version)
);
CREATE INDEX author_extractions_by_clause ON author_extractions(policy_id, clause_id, version);

CREATE TABLE author_calls (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    extraction_id       TEXT NOT NULL REFERENCES author_extractions(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    role                TEXT NOT NULL,          -- extractor or self_check
    attempt             INTEGER NOT NULL,
    prompt_name         TEXT NOT NULL,
    prompt_versions     TEXT NOT NULL,
    model               TEXT NOT NULL,
    request_json        TEXT NOT NULL,
    response_text       TEXT,
    parsed_json         TEXT,
    parse_notes         TEXT,                   -- JSON list: repairs and problems found in the reply
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0,
    latency_ms          INTEGER NOT NULL DEFAULT 0,
    cache_hit           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX author_calls_by_extraction ON author_calls(extraction_id, seq);
