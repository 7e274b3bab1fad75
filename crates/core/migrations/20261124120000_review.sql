-- Expert review: sessions, reviewers, the sampled cases (snapshotted), assignments, answers with
-- a timestamp per part, personal tokens (hashed) and adjudication decisions (never deleted).

CREATE TABLE review_sessions (
    session_id     TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    role           TEXT NOT NULL CHECK (role IN ('owner', 'visiting')),
    guidelines     TEXT NOT NULL,
    overlap        INTEGER NOT NULL,
    seed           INTEGER,               -- NULL for a session opened from a pack
    selection_json TEXT,                  -- how the cases were chosen; NULL for a visiting session
    fingerprint    TEXT NOT NULL,         -- identifies the session's cases and assignment
    created_at     TEXT NOT NULL,         -- when the session was created (in its owner's store)
    opened_at      TEXT NOT NULL,         -- when it arrived in this store
    app_version    TEXT NOT NULL
);

CREATE TABLE review_reviewers (
    session_id  TEXT NOT NULL REFERENCES review_sessions(session_id) ON DELETE CASCADE,
    reviewer    TEXT NOT NULL,
    ord         INTEGER NOT NULL,
    pack_token  TEXT,                     -- visiting sessions only: the pack's token, written back with the answers
    PRIMARY KEY (session_id, reviewer)
);

CREATE TABLE review_items (
    session_id       TEXT NOT NULL REFERENCES review_sessions(session_id) ON DELETE CASCADE,
    case_id          TEXT NOT NULL,
    ord              INTEGER NOT NULL,
    case_type        TEXT NOT NULL CHECK (case_type IN ('complete', 'missing', 'uncertain')),
    clause_id        TEXT NOT NULL,
    expected_verdict TEXT NOT NULL,
    narrative        TEXT NOT NULL,
    reveal_json      TEXT NOT NULL,
    PRIMARY KEY (session_id, case_id)
);

CREATE TABLE review_assignments (
    session_id TEXT NOT NULL,
    reviewer   TEXT NOT NULL,
    item_no    INTEGER NOT NULL,
    case_id    TEXT NOT NULL,
    PRIMARY KEY (session_id, reviewer, item_no),
    UNIQUE (session_id, reviewer, case_id),
    FOREIGN KEY (session_id, reviewer) REFERENCES review_reviewers(session_id, reviewer) ON DELETE CASCADE,
    FOREIGN KEY (session_id, case_id) REFERENCES review_items(session_id, case_id) ON DELETE CASCADE
);

CREATE TABLE review_answers (
    session_id       TEXT NOT NULL,
    reviewer         TEXT NOT NULL,
    case_id          TEXT NOT NULL,
    realism          INTEGER CHECK (realism BETWEEN 1 AND 5),
    realism_at       TEXT,
    plausibility     INTEGER CHECK (plausibility BETWEEN 1 AND 5),
    plausibility_at  TEXT,
    blind_verdict    TEXT CHECK (blind_verdict IN ('Reportable', 'Non-reportable', 'Missing information', 'Uncertain')),
    blind_verdict_at TEXT,
    revealed_at      TEXT,
    agree            INTEGER CHECK (agree IN (0, 1)),
    agree_at         TEXT,
    comment          TEXT,
    comment_at       TEXT,
    time_spent_secs  REAL NOT NULL DEFAULT 0,
    time_spent_at    TEXT,
    PRIMARY KEY (session_id, reviewer, case_id),
    FOREIGN KEY (session_id, reviewer, case_id) REFERENCES review_assignments(session_id, reviewer, case_id) ON DELETE CASCADE
);

CREATE TABLE review_tokens (
    token_hash  TEXT PRIMARY KEY,         -- SHA-256 of the token; the token itself is never stored here
    session_id  TEXT NOT NULL,
    reviewer    TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('link', 'pack')),
    created_at  TEXT NOT NULL,
    revoked_at  TEXT,
    FOREIGN KEY (session_id, reviewer) REFERENCES review_reviewers(session_id, reviewer) ON DELETE CASCADE
);
CREATE INDEX review_tokens_by_reviewer ON review_tokens(session_id, reviewer, kind);

CREATE TABLE review_adjudications (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id    TEXT NOT NULL,
    case_id       TEXT NOT NULL,
    decision      TEXT NOT NULL CHECK (decision IN ('accept', 'relabel', 'reject')),
    verdict       TEXT,                   -- the corrected label of a relabel
    adjudicator   TEXT NOT NULL,
    note          TEXT,
    decided_at    TEXT NOT NULL,
    excluded_case INTEGER NOT NULL DEFAULT 0,
    restored_case INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (session_id, case_id) REFERENCES review_items(session_id, case_id) ON DELETE CASCADE
);
CREATE INDEX review_adjudications_by_case ON review_adjudications(session_id, case_id, id);
