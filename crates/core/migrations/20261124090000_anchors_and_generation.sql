-- Anchor materials (the scene and style seeds of generation) and generation runs: the inputs a
-- run was planned with, one candidate per (card, anchor, variant), every attempt of every stage
-- and every model call of every attempt, so a case's whole story is one query.

CREATE TABLE anchors (
    anchor_id         TEXT PRIMARY KEY,
    text              TEXT NOT NULL,      -- the text generation uses (the English translation once translated)
    source            TEXT NOT NULL,      -- where it came from, in the importer's words
    language          TEXT NOT NULL,      -- language of `text`
    clause_id         TEXT,               -- topical bucket (a clause id); NULL while unsorted
    bucket_origin     TEXT,               -- file | manual | presort | builtin
    bucket_note       TEXT,               -- e.g. the pre-sort model's one-line reason
    original_text     TEXT,               -- the text as imported, kept when it was translated
    original_language TEXT,
    translated_by     TEXT,               -- registered model name that translated it
    content_sha       TEXT NOT NULL,      -- sha256 of the imported text with whitespace collapsed
    origin            TEXT NOT NULL,      -- builtin | imported
    file_name         TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
CREATE UNIQUE INDEX anchors_by_sha ON anchors(content_sha);
CREATE INDEX anchors_by_bucket ON anchors(clause_id);

-- The exact card version and clause/guidance context a run uses (so a resumed run sends the
-- same requests even if the library or the policy text changed in between).
CREATE TABLE gen_run_cards (
    run_id       TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    card_id      TEXT NOT NULL,
    card_version INTEGER NOT NULL,
    card_json    TEXT NOT NULL,
    context_md   TEXT NOT NULL,
    PRIMARY KEY (run_id, card_id)
);

CREATE TABLE gen_run_anchors (
    run_id    TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    anchor_id TEXT NOT NULL,
    text      TEXT NOT NULL,
    PRIMARY KEY (run_id, anchor_id)
);

CREATE TABLE gen_candidates (
    candidate_id        TEXT PRIMARY KEY,  -- also the case id when accepted
    run_id              TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
    ord                 INTEGER NOT NULL,  -- plan order
    unit                INTEGER NOT NULL,  -- the (card, anchor) pair it belongs to
    clause_card_id      TEXT NOT NULL,
    clause_id           TEXT NOT NULL,
    event_type          TEXT NOT NULL,
    case_type           TEXT NOT NULL CHECK (case_type IN ('complete', 'missing', 'uncertain')),
    anchor_id           TEXT NOT NULL,
    missing_variant_id  TEXT,
    parent_candidate_id TEXT,
    status              TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'dropped', 'skipped')),
    drop_stage          TEXT,
    drop_reason         TEXT,
    case_id             TEXT,
    slot_values_json    TEXT,              -- the accepted instantiation
    narrative           TEXT,              -- the accepted narrative
    finished_at         TEXT
);
CREATE INDEX gen_candidates_by_run ON gen_candidates(run_id, status);

CREATE TABLE gen_attempts (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    candidate_id        TEXT NOT NULL REFERENCES gen_candidates(candidate_id) ON DELETE CASCADE,
    run_id              TEXT NOT NULL,
    stage               TEXT NOT NULL CHECK (stage IN ('instantiation', 'narration', 'missing_narration')),
    attempt             INTEGER NOT NULL,
    passed              INTEGER NOT NULL,
    issues_json         TEXT NOT NULL,     -- what goes back to the producer as feedback
    guard_findings_json TEXT NOT NULL,     -- the deterministic checks' findings (a subset of issues)
    output_json         TEXT NOT NULL,     -- the producer's candidate: slot values or the narrative
    extracted_json      TEXT,              -- the Extractor's reading of the narrative
    verifier_json       TEXT,              -- the verifier's parsed verdict
    created_at          TEXT NOT NULL,
    UNIQUE (candidate_id, stage, attempt)
);

CREATE TABLE gen_calls (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    attempt_id          INTEGER NOT NULL REFERENCES gen_attempts(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    role                TEXT NOT NULL,
    prompt_name         TEXT NOT NULL,
    prompt_versions     TEXT NOT NULL,     -- JSON: template name -> version
    model               TEXT NOT NULL,
    request_json        TEXT NOT NULL,     -- messages and output format as sent
    response_text       TEXT,
    parsed_json         TEXT,
    parse_notes         TEXT,              -- JSON list: repairs made or why the reply was unreadable
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0,
    latency_ms          INTEGER NOT NULL DEFAULT 0,
    cache_hit           INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX gen_calls_by_attempt ON gen_calls(attempt_id, seq);
