-- Model registry, the LLM response cache, and the per-call accounting log.

CREATE TABLE models (
    name            TEXT PRIMARY KEY,
    kind            TEXT NOT NULL,             -- openai-compatible | openai | azure | anthropic | gemini
    model           TEXT NOT NULL,             -- provider model id (Azure: deployment name)
    base_url        TEXT NOT NULL,
    api_key_env     TEXT,                      -- read the key from this environment variable
    key_in_keyring  INTEGER NOT NULL DEFAULT 0,-- a key was stored in the OS keyring
    temperature     REAL,
    top_p           REAL,
    max_tokens      INTEGER,
    seed            INTEGER,
    price_in        REAL,                      -- US$ per million input tokens
    price_out       REAL,                      -- US$ per million output tokens
    price_cached_in REAL,                      -- US$ per million cached input tokens
    local_flag      INTEGER NOT NULL DEFAULT 0,-- user marked it as local (loopback is always local)
    concurrency     INTEGER NOT NULL DEFAULT 8,
    timeout_secs    INTEGER NOT NULL DEFAULT 120,
    api_version     TEXT,                      -- Azure api-version, Anthropic-Version
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);

CREATE TABLE llm_cache (
    key            TEXT PRIMARY KEY,           -- sha256 of endpoint, model, full request and repeat index
    endpoint       TEXT NOT NULL,
    model          TEXT NOT NULL,
    response_json  TEXT NOT NULL,
    created_at     TEXT NOT NULL,
    hits           INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE llm_calls (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id              TEXT,
    stage               TEXT NOT NULL,
    model_name          TEXT NOT NULL,
    endpoint            TEXT NOT NULL,
    remote              INTEGER NOT NULL,
    cache_hit           INTEGER NOT NULL,
    attempts            INTEGER NOT NULL,
    input_tokens        INTEGER NOT NULL DEFAULT 0,
    output_tokens       INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
    cost_usd            REAL NOT NULL DEFAULT 0,
    latency_ms          INTEGER NOT NULL DEFAULT 0,
    ok                  INTEGER NOT NULL,
    error               TEXT,
    at                  TEXT NOT NULL
);
CREATE INDEX llm_calls_by_run ON llm_calls(run_id, stage);
