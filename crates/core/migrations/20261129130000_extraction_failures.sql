-- Failed extractions (issue 29, item 4): when every attempt of an extraction came back with a reply
-- that could not be used, nothing is proposed for approval, but the failure itself is kept, one row
-- per clause (the latest), so that it still shows with its reason after a reload and in other
-- windows. A later extraction of the clause, failed or not, replaces or clears it.

CREATE TABLE authoring_extraction_failures (
    policy_id  TEXT NOT NULL,
    clause_id  TEXT NOT NULL,
    model      TEXT NOT NULL,
    attempts   INTEGER NOT NULL,
    reason     TEXT NOT NULL,               -- why the replies could not be used, in plain words
    message    TEXT NOT NULL,               -- the whole failure as shown (reason and what to do)
    failed_at  TEXT NOT NULL,
    PRIMARY KEY (policy_id, clause_id)
);

CREATE TRIGGER authoring_extraction_failures_insert_changes AFTER INSERT ON authoring_extraction_failures BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_extraction_failures_update_changes AFTER UPDATE ON authoring_extraction_failures BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_extraction_failures_delete_changes AFTER DELETE ON authoring_extraction_failures BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
