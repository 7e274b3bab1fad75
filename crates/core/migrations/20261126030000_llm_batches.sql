-- Provider batch jobs (OpenAI/Azure Batch, Anthropic Message Batches, Gemini batch mode). A run in
-- batch mode sends the requests that are ready as one batch per model; the batch and each of its
-- requests are kept here so a closed app or CLI picks up polling where it stopped, and a result
-- that arrived while nobody waited is kept until the run that asked for it collects it.

CREATE TABLE llm_batches (
    batch_id          TEXT PRIMARY KEY,      -- ours
    provider_batch_id TEXT,                  -- the provider's (null until it accepted the batch)
    model_name        TEXT NOT NULL,         -- registered model name
    provider          TEXT NOT NULL,         -- openai | azure | anthropic | gemini
    endpoint          TEXT NOT NULL,
    run_id            TEXT,                  -- the run that sent it (not a foreign key: kept for accounting)
    state             TEXT NOT NULL,         -- submitting | in_progress | ended | failed
    provider_status   TEXT,                  -- the provider's own word (validating, finalizing, expired, …)
    requests          INTEGER NOT NULL,
    succeeded         INTEGER NOT NULL DEFAULT 0,
    failed            INTEGER NOT NULL DEFAULT 0,
    input_file_id     TEXT,
    error             TEXT,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL,
    ended_at          TEXT
);
CREATE INDEX llm_batches_by_run ON llm_batches(run_id, created_at);

CREATE TABLE llm_batch_requests (
    batch_id      TEXT NOT NULL REFERENCES llm_batches(batch_id) ON DELETE CASCADE,
    custom_id     TEXT NOT NULL,             -- the response-cache key of the request
    position      INTEGER NOT NULL,          -- order in the batch (Gemini answers in order)
    run_id        TEXT,
    stage         TEXT NOT NULL,
    state         TEXT NOT NULL,             -- pending | succeeded | failed | collected
    response_json TEXT,                      -- the provider's reply body until the run collects it
    error         TEXT,
    PRIMARY KEY (batch_id, custom_id)
);
CREATE INDEX llm_batch_requests_by_key ON llm_batch_requests(custom_id);

-- Calls answered through a batch name it (accounting shows batch and direct calls apart).
ALTER TABLE llm_calls ADD COLUMN batch_id TEXT;
