-- Change counters (issue 29, item 2): one row per kind of data the pages show, bumped by the
-- triggers below on every insert, update and delete of that kind's tables, whichever process
-- writes. The engine's change feed compares the counters (after `PRAGMA data_version` says another
-- connection committed) and tells open pages which kinds changed. A run's heartbeat (only
-- `heartbeat_at` changes) is not a change; the LLM cache, call ledger and settings are not followed.

CREATE TABLE change_counters (
    kind    TEXT PRIMARY KEY,
    counter INTEGER NOT NULL DEFAULT 0
);

INSERT INTO change_counters (kind) VALUES ('reviews'), ('runs'), ('results'), ('cases'), ('cards'), ('anchors'), ('models'), ('policies'), ('batches'), ('authoring'), ('label_audit');

CREATE TRIGGER review_sessions_insert_changes AFTER INSERT ON review_sessions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_sessions_update_changes AFTER UPDATE ON review_sessions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_sessions_delete_changes AFTER DELETE ON review_sessions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_reviewers_insert_changes AFTER INSERT ON review_reviewers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_reviewers_update_changes AFTER UPDATE ON review_reviewers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_reviewers_delete_changes AFTER DELETE ON review_reviewers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_items_insert_changes AFTER INSERT ON review_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_items_update_changes AFTER UPDATE ON review_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_items_delete_changes AFTER DELETE ON review_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_assignments_insert_changes AFTER INSERT ON review_assignments BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_assignments_update_changes AFTER UPDATE ON review_assignments BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_assignments_delete_changes AFTER DELETE ON review_assignments BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_answers_insert_changes AFTER INSERT ON review_answers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_answers_update_changes AFTER UPDATE ON review_answers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_answers_delete_changes AFTER DELETE ON review_answers BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_tokens_insert_changes AFTER INSERT ON review_tokens BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_tokens_update_changes AFTER UPDATE ON review_tokens BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_tokens_delete_changes AFTER DELETE ON review_tokens BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_adjudications_insert_changes AFTER INSERT ON review_adjudications BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_adjudications_update_changes AFTER UPDATE ON review_adjudications BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;
CREATE TRIGGER review_adjudications_delete_changes AFTER DELETE ON review_adjudications BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'reviews'; END;

CREATE TRIGGER runs_insert_changes AFTER INSERT ON runs BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER runs_update_changes AFTER UPDATE OF kind, status, label, config_json, started_at, finished_at, error, owner_id ON runs BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER runs_delete_changes AFTER DELETE ON runs BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_cards_insert_changes AFTER INSERT ON generation_run_cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_cards_update_changes AFTER UPDATE ON generation_run_cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_cards_delete_changes AFTER DELETE ON generation_run_cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_anchors_insert_changes AFTER INSERT ON generation_run_anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_anchors_update_changes AFTER UPDATE ON generation_run_anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;
CREATE TRIGGER generation_run_anchors_delete_changes AFTER DELETE ON generation_run_anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'runs'; END;

CREATE TRIGGER evaluation_items_insert_changes AFTER INSERT ON evaluation_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'results'; END;
CREATE TRIGGER evaluation_items_update_changes AFTER UPDATE ON evaluation_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'results'; END;
CREATE TRIGGER evaluation_items_delete_changes AFTER DELETE ON evaluation_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'results'; END;

CREATE TRIGGER cases_insert_changes AFTER INSERT ON cases BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cases'; END;
CREATE TRIGGER cases_update_changes AFTER UPDATE ON cases BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cases'; END;
CREATE TRIGGER cases_delete_changes AFTER DELETE ON cases BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cases'; END;

CREATE TRIGGER cards_insert_changes AFTER INSERT ON cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER cards_update_changes AFTER UPDATE ON cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER cards_delete_changes AFTER DELETE ON cards BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_versions_insert_changes AFTER INSERT ON card_versions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_versions_update_changes AFTER UPDATE ON card_versions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_versions_delete_changes AFTER DELETE ON card_versions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_audit_log_insert_changes AFTER INSERT ON card_audit_log BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_audit_log_update_changes AFTER UPDATE ON card_audit_log BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;
CREATE TRIGGER card_audit_log_delete_changes AFTER DELETE ON card_audit_log BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'cards'; END;

CREATE TRIGGER anchors_insert_changes AFTER INSERT ON anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;
CREATE TRIGGER anchors_update_changes AFTER UPDATE ON anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;
CREATE TRIGGER anchors_delete_changes AFTER DELETE ON anchors BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;
CREATE TRIGGER anchor_job_items_insert_changes AFTER INSERT ON anchor_job_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;
CREATE TRIGGER anchor_job_items_update_changes AFTER UPDATE ON anchor_job_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;
CREATE TRIGGER anchor_job_items_delete_changes AFTER DELETE ON anchor_job_items BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'anchors'; END;

CREATE TRIGGER models_insert_changes AFTER INSERT ON models BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'models'; END;
CREATE TRIGGER models_update_changes AFTER UPDATE ON models BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'models'; END;
CREATE TRIGGER models_delete_changes AFTER DELETE ON models BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'models'; END;

CREATE TRIGGER policies_insert_changes AFTER INSERT ON policies BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;
CREATE TRIGGER policies_update_changes AFTER UPDATE ON policies BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;
CREATE TRIGGER policies_delete_changes AFTER DELETE ON policies BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;
CREATE TRIGGER policy_official_sections_insert_changes AFTER INSERT ON policy_official_sections BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;
CREATE TRIGGER policy_official_sections_update_changes AFTER UPDATE ON policy_official_sections BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;
CREATE TRIGGER policy_official_sections_delete_changes AFTER DELETE ON policy_official_sections BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'policies'; END;

CREATE TRIGGER llm_batches_insert_changes AFTER INSERT ON llm_batches BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'batches'; END;
CREATE TRIGGER llm_batches_update_changes AFTER UPDATE ON llm_batches BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'batches'; END;
CREATE TRIGGER llm_batches_delete_changes AFTER DELETE ON llm_batches BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'batches'; END;

CREATE TRIGGER authoring_extractions_insert_changes AFTER INSERT ON authoring_extractions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_extractions_update_changes AFTER UPDATE ON authoring_extractions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_extractions_delete_changes AFTER DELETE ON authoring_extractions BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_drafts_insert_changes AFTER INSERT ON authoring_drafts BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_drafts_update_changes AFTER UPDATE ON authoring_drafts BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;
CREATE TRIGGER authoring_drafts_delete_changes AFTER DELETE ON authoring_drafts BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'authoring'; END;

CREATE TRIGGER label_audit_results_insert_changes AFTER INSERT ON label_audit_results BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'label_audit'; END;
CREATE TRIGGER label_audit_results_update_changes AFTER UPDATE ON label_audit_results BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'label_audit'; END;
CREATE TRIGGER label_audit_results_delete_changes AFTER DELETE ON label_audit_results BEGIN UPDATE change_counters SET counter = counter + 1 WHERE kind = 'label_audit'; END;
