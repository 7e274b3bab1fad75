-- One call ledger: `llm_calls` (written by the LLM client, one row per logical call) now also
-- holds what each call was for (run, item, attempt, role, prompt) and what went in and came out
-- (request, reply, parsed reply, parse notes, failed attempts, provider model). The per-kind call
-- tables (gen_calls, author_calls, author_draft_calls) and the label audit's raw reply columns are
-- folded into it, keeping every row.
--
-- An old detailed row is merged into the usage row the client wrote for the same call when one
-- matches (same run, accounting stage, model, tokens and cache hit, paired in order); otherwise it
-- is added as a row of its own with `counted = 0`, so the usage totals of old runs stay exactly
-- what they were before the upgrade.

ALTER TABLE llm_calls ADD COLUMN item TEXT;              -- generation candidate, extraction, draft, case, anchor
ALTER TABLE llm_calls ADD COLUMN step TEXT;              -- the part of the item (a generation attempt's stage)
ALTER TABLE llm_calls ADD COLUMN attempt INTEGER;        -- the item's attempt (or try) number
ALTER TABLE llm_calls ADD COLUMN role TEXT;              -- instantiator, extractor, drafter, screener, ...
ALTER TABLE llm_calls ADD COLUMN prompt_name TEXT;
ALTER TABLE llm_calls ADD COLUMN prompt_versions TEXT;   -- JSON: template name -> version
ALTER TABLE llm_calls ADD COLUMN provider_model TEXT;    -- the model id the provider says answered
ALTER TABLE llm_calls ADD COLUMN request_json TEXT;      -- the request as sent
ALTER TABLE llm_calls ADD COLUMN response_text TEXT;     -- the reply as received
ALTER TABLE llm_calls ADD COLUMN parsed_json TEXT;       -- the caller's reading of the reply
ALTER TABLE llm_calls ADD COLUMN parse_notes TEXT;       -- JSON list: repairs made, or why it was unreadable
ALTER TABLE llm_calls ADD COLUMN failed_attempts TEXT;   -- JSON list: what went wrong before the answer
ALTER TABLE llm_calls ADD COLUMN counted INTEGER NOT NULL DEFAULT 1; -- counts in usage totals
ALTER TABLE llm_calls ADD COLUMN origin TEXT;            -- a row folded in from an older table: its name and id
CREATE INDEX llm_calls_by_item ON llm_calls(item, run_id);

CREATE TEMP TABLE ledger_old (
    src TEXT, src_id INTEGER, ord INTEGER, run_id TEXT, stage TEXT, item TEXT, step TEXT, attempt INTEGER,
    role TEXT, prompt_name TEXT, prompt_versions TEXT, model TEXT, request_json TEXT, response_text TEXT,
    parsed_json TEXT, parse_notes TEXT, failed_attempts TEXT, input_tokens INTEGER, output_tokens INTEGER,
    cached_input_tokens INTEGER, cost_usd REAL, latency_ms INTEGER, cache_hit INTEGER, at TEXT
);

-- The request JSON of these tables carried the failed attempts inside; the ledger keeps them in
-- their own column too.
INSERT INTO ledger_old
SELECT 'gen_calls', gc.id, gc.id, ga.run_id, gc.role, ga.candidate_id, ga.stage, ga.attempt, gc.role, gc.prompt_name,
       gc.prompt_versions, gc.model, gc.request_json, gc.response_text, gc.parsed_json, gc.parse_notes,
       CASE WHEN json_valid(gc.request_json) THEN json_extract(gc.request_json, '$.failed_attempts') END,
       gc.input_tokens, gc.output_tokens, gc.cached_input_tokens, gc.cost_usd, gc.latency_ms, gc.cache_hit, ga.created_at
FROM gen_calls gc JOIN gen_attempts ga ON ga.id = gc.attempt_id;

INSERT INTO ledger_old
SELECT 'author_calls', ac.id, ac.id, NULL,
       CASE ac.role WHEN 'extractor' THEN 'author_extract' WHEN 'self_check' THEN 'author_self_check' ELSE ac.role END,
       ac.extraction_id, NULL, ac.attempt, ac.role, ac.prompt_name, ac.prompt_versions, ac.model, ac.request_json,
       ac.response_text, ac.parsed_json, ac.parse_notes,
       CASE WHEN json_valid(ac.request_json) THEN json_extract(ac.request_json, '$.failed_attempts') END,
       ac.input_tokens, ac.output_tokens, ac.cached_input_tokens, ac.cost_usd, ac.latency_ms, ac.cache_hit, x.created_at
FROM author_calls ac JOIN author_extractions x ON x.id = ac.extraction_id;

INSERT INTO ledger_old
SELECT 'author_draft_calls', dc.id, dc.id, d.run_id, 'author_draft_' || d.kind, dc.draft_id, NULL, dc.attempt, dc.role,
       dc.prompt_name, dc.prompt_versions, dc.model, dc.request_json, dc.response_text, dc.parsed_json, dc.parse_notes,
       CASE WHEN json_valid(dc.request_json) THEN json_extract(dc.request_json, '$.failed_attempts') END,
       dc.input_tokens, dc.output_tokens, dc.cached_input_tokens, dc.cost_usd, dc.latency_ms, dc.cache_hit, d.created_at
FROM author_draft_calls dc JOIN author_drafts d ON d.id = dc.draft_id;

-- A label-audit result kept the last reply of its tries and the tokens and cost of all of them.
INSERT INTO ledger_old
SELECT 'label_audit_results', r.rowid, r.rowid, r.run_id, 'clause_screen', r.case_id, NULL, NULL, 'screener',
       'gen_clause_screen', json_object('gen_clause_screen', r.prompt_version), r.model, NULL, r.response_text, NULL,
       r.parse_notes_json, NULL, r.input_tokens, r.output_tokens, 0, r.cost_usd, 0, 0, r.created_at
FROM label_audit_results r;

-- Pair old rows with the client's usage rows of the same call, in order within equal keys.
CREATE TEMP TABLE ledger_pairs AS
WITH o AS (
    SELECT src, src_id, run_id, stage, model, input_tokens, output_tokens, cache_hit,
           row_number() OVER (PARTITION BY run_id, stage, model, input_tokens, output_tokens, cache_hit ORDER BY src, ord) AS n
    FROM ledger_old
), u AS (
    SELECT id, run_id, stage, model_name, input_tokens, output_tokens, cache_hit,
           row_number() OVER (PARTITION BY run_id, stage, model_name, input_tokens, output_tokens, cache_hit ORDER BY id) AS n
    FROM llm_calls WHERE ok = 1
)
SELECT o.src, o.src_id, u.id AS call_id
FROM o JOIN u ON u.run_id IS o.run_id AND u.stage = o.stage AND u.model_name = o.model AND u.input_tokens = o.input_tokens
             AND u.output_tokens = o.output_tokens AND u.cache_hit = o.cache_hit AND u.n = o.n;

UPDATE llm_calls SET
    item = o.item, step = o.step, attempt = o.attempt, role = o.role, prompt_name = o.prompt_name,
    prompt_versions = o.prompt_versions, request_json = o.request_json, response_text = o.response_text,
    parsed_json = o.parsed_json, parse_notes = o.parse_notes, failed_attempts = o.failed_attempts,
    origin = o.src || ':' || o.src_id
FROM ledger_pairs p JOIN ledger_old o ON o.src = p.src AND o.src_id = p.src_id
WHERE llm_calls.id = p.call_id;

INSERT INTO llm_calls (run_id, stage, model_name, endpoint, remote, cache_hit, attempts, input_tokens, output_tokens,
                       cached_input_tokens, reasoning_tokens, cost_usd, latency_ms, ok, error, at, item, step, attempt,
                       role, prompt_name, prompt_versions, request_json, response_text, parsed_json, parse_notes,
                       failed_attempts, counted, origin)
SELECT o.run_id, o.stage, o.model, coalesce((SELECT base_url FROM models m WHERE m.name = o.model), ''),
       coalesce((SELECT local_flag = 0 FROM models m WHERE m.name = o.model), 0), o.cache_hit, 1, o.input_tokens,
       o.output_tokens, o.cached_input_tokens, 0, o.cost_usd, o.latency_ms, 1, NULL, o.at, o.item, o.step, o.attempt,
       o.role, o.prompt_name, o.prompt_versions, o.request_json, o.response_text, o.parsed_json, o.parse_notes,
       o.failed_attempts, 0, o.src || ':' || o.src_id
FROM ledger_old o
WHERE NOT EXISTS (SELECT 1 FROM ledger_pairs p WHERE p.src = o.src AND p.src_id = o.src_id)
ORDER BY o.src, o.ord;

DROP TABLE ledger_pairs;
DROP TABLE ledger_old;

DROP TABLE gen_calls;
DROP TABLE author_calls;
DROP TABLE author_draft_calls;

-- The result keeps its totals (tokens and cost of all its tries); the replies are in the ledger.
ALTER TABLE label_audit_results DROP COLUMN response_text;
ALTER TABLE label_audit_results DROP COLUMN parse_notes_json;
ALTER TABLE label_audit_results DROP COLUMN prompt_version;
