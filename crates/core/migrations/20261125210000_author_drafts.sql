-- Structured drafts: candidate clause cards (complete or Uncertain) or missing-information variants
-- for one parent card, drafted by a model from a clause's approved extraction, checked in code,
-- then accepted into the library or rejected (with a reason) by a named person.

CREATE TABLE author_drafts (
    id                 TEXT PRIMARY KEY,
    policy_id          TEXT NOT NULL,
    clause_id          TEXT NOT NULL,
    kind               TEXT NOT NULL CHECK (kind IN ('complete', 'missing', 'uncertain')),
    parent_card_id     TEXT,                    -- kind missing: the card the variants belong to
    extraction_id      TEXT NOT NULL,           -- the approved extraction the draft was written from
    extraction_version INTEGER NOT NULL,
    items_json         TEXT NOT NULL,           -- JSON list: the drafted cards, or variants
    problems_json      TEXT NOT NULL,           -- JSON list: problems the code checks still find
    self_check_json    TEXT NOT NULL,           -- JSON list: the model's own checks of its last reply
    coverage_json      TEXT,                    -- JSON: coverage report (cards only)
    attempts           INTEGER NOT NULL,
    model              TEXT NOT NULL,
    prompt_versions    TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('proposed', 'failed', 'accepted', 'rejected')),
    decided_by         TEXT,
    decided_at         TEXT,
    decision_notes     TEXT,                    -- notes on acceptance, or the reason for rejection
    accepted_ids_json  TEXT NOT NULL DEFAULT '[]',
    edited_by          TEXT,
    edited_at          TEXT,
    run_id             TEXT,                    -- the "draft every clause" job that made it, if any
    created_at         TEXT NOT NULL
);
CREATE INDEX author_drafts_by_clause ON author_drafts(policy_id, clause_id, kind);
CREATE INDEX author_drafts_by_run ON author_drafts(run_id);

CREATE TABLE author_draft_calls (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    draft_id            TEXT NOT NULL REFERENCES author_drafts(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    role                TEXT NOT NULL,          -- drafter
    attempt             INTEGER NOT NULL,
    prompt_name         TEXT NOT NULL,
    prompt_versions     TEXT NOT NULL,
    model               TEXT NOT NULL,
    request_json        TEXT NOT NULL,
    response_text       TEXT,
    parsed_json         TEXT,
    parse_notes         TEXT,
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0,
    latency_ms          INTEGER NOT NULL DEFAULT 0,
    cache_hit           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX author_draft_calls_by_draft ON author_draft_calls(draft_id, seq);
