-- psebench: foreign-keys-off
-- Generation attempts may now also be policy-wide clause screens ("clause_screen"). SQLite cannot
-- change a CHECK constraint in place, so the table is rebuilt with the same ids (foreign keys are
-- off meanwhile, so the calls that point at attempts are kept; the runner checks every reference
-- before committing).

CREATE TABLE gen_attempts_rebuilt (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    candidate_id        TEXT NOT NULL REFERENCES gen_candidates(candidate_id) ON DELETE CASCADE,
    run_id              TEXT NOT NULL,
    stage               TEXT NOT NULL CHECK (stage IN ('instantiation', 'narration', 'missing_narration', 'clause_screen')),
    attempt             INTEGER NOT NULL,
    passed              INTEGER NOT NULL,
    issues_json         TEXT NOT NULL,     -- what goes back to the producer as feedback
    guard_findings_json TEXT NOT NULL,     -- the deterministic checks' findings (a subset of issues)
    output_json         TEXT NOT NULL,     -- the producer's candidate: slot values or the narrative
    extracted_json      TEXT,              -- the Extractor's reading of the narrative
    verifier_json       TEXT,              -- the verifier's (or the screen's) parsed verdict
    created_at          TEXT NOT NULL,
    UNIQUE (candidate_id, stage, attempt)
);
INSERT INTO gen_attempts_rebuilt (id, candidate_id, run_id, stage, attempt, passed, issues_json, guard_findings_json,
                                  output_json, extracted_json, verifier_json, created_at)
SELECT id, candidate_id, run_id, stage, attempt, passed, issues_json, guard_findings_json,
       output_json, extracted_json, verifier_json, created_at
FROM gen_attempts;
DROP TABLE gen_attempts;
ALTER TABLE gen_attempts_rebuilt RENAME TO gen_attempts;
