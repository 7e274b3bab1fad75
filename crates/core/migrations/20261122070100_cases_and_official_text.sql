-- Benchmark cases (FORMATS.md) and official policy text imported by users.

CREATE TABLE cases (
    case_id            TEXT PRIMARY KEY,
    case_type          TEXT NOT NULL CHECK (case_type IN ('complete', 'missing', 'uncertain')),
    policy             TEXT NOT NULL,
    clause_id          TEXT NOT NULL,
    clause_card_id     TEXT NOT NULL,
    missing_variant_id TEXT,
    gold_verdict       TEXT NOT NULL CHECK (gold_verdict IN ('Reportable', 'Non-reportable', 'Uncertain')),
    gold_clause        TEXT,
    narrative          TEXT NOT NULL,
    case_json          TEXT NOT NULL,    -- the full case object as imported or generated
    origin             TEXT NOT NULL,    -- imported | generated | demo
    excluded           INTEGER NOT NULL DEFAULT 0,
    excluded_reason    TEXT,
    created_at         TEXT NOT NULL
);
CREATE INDEX cases_by_clause ON cases(clause_id, case_type);
CREATE INDEX cases_by_card ON cases(clause_card_id);

CREATE TABLE policy_official_sections (
    policy_id    TEXT NOT NULL REFERENCES policies(id) ON DELETE CASCADE,
    source       TEXT NOT NULL CHECK (source IN ('clauses', 'guidance')),
    ord          INTEGER NOT NULL,
    level        INTEGER NOT NULL,
    heading      TEXT NOT NULL,
    evidence_id  TEXT NOT NULL,
    matched      INTEGER NOT NULL,       -- 1 when the heading matched a known evidence id
    body         TEXT NOT NULL,
    file_name    TEXT NOT NULL,
    imported_at  TEXT NOT NULL,
    PRIMARY KEY (policy_id, source, ord)
);
