-- One name per concept (issue 26, item 6): the tables of generation, authoring and evaluation are
-- named for their module, like `label_audit_results`. `ALTER TABLE … RENAME TO` keeps every row,
-- and SQLite rewrites the foreign keys that point at a renamed table (generation_attempts →
-- generation_candidates). The indexes follow their table; those named after the old table are
-- made again under the new name (same columns).

ALTER TABLE gen_run_cards RENAME TO generation_run_cards;
ALTER TABLE gen_run_anchors RENAME TO generation_run_anchors;
ALTER TABLE gen_candidates RENAME TO generation_candidates;
ALTER TABLE gen_attempts RENAME TO generation_attempts;
ALTER TABLE author_extractions RENAME TO authoring_extractions;
ALTER TABLE author_drafts RENAME TO authoring_drafts;
ALTER TABLE eval_items RENAME TO evaluation_items;

DROP INDEX gen_candidates_by_run;
CREATE INDEX generation_candidates_by_run ON generation_candidates(run_id, status);
DROP INDEX author_extractions_by_clause;
CREATE INDEX authoring_extractions_by_clause ON authoring_extractions(policy_id, clause_id, version);
DROP INDEX author_drafts_by_clause;
CREATE INDEX authoring_drafts_by_clause ON authoring_drafts(policy_id, clause_id, kind);
DROP INDEX author_drafts_by_run;
CREATE INDEX authoring_drafts_by_run ON authoring_drafts(run_id);
