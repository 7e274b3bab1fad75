-- Policy packs and the clause-card library with full version history and audit trail.

CREATE TABLE settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
);

CREATE TABLE policies (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    edition     TEXT NOT NULL,
    pack_json   TEXT NOT NULL,           -- the pack as shipped (clauses, guidance, notices)
    builtin     INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE cards (
    card_id         TEXT PRIMARY KEY,
    policy_id       TEXT NOT NULL REFERENCES policies(id),
    clause_id       TEXT NOT NULL,
    event_type      TEXT NOT NULL CHECK (event_type IN ('Reportable', 'Non_Reportable', 'Uncertain')),
    current_version INTEGER NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('draft', 'audited', 'approved')),
    auditor         TEXT,
    audit_notes     TEXT,
    audited_at      TEXT,
    origin          TEXT NOT NULL,       -- builtin | imported | authored | edited
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX cards_by_clause ON cards(policy_id, clause_id);

CREATE TABLE card_versions (
    card_id     TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    card_json   TEXT NOT NULL,           -- the card document, key order as written
    content_sha TEXT NOT NULL,
    author      TEXT NOT NULL,
    note        TEXT,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (card_id, version)
);

CREATE TABLE card_audit_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    card_id     TEXT NOT NULL REFERENCES cards(card_id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    status      TEXT NOT NULL,
    auditor     TEXT NOT NULL,
    notes       TEXT,
    at          TEXT NOT NULL
);
