-- The rationale task of expert review (checking the M4 judge against reviewers). Per item: what the
-- reviewer is shown (the model's rationale and the case's conditions) and, in the store that
-- created the session, where the rationale came from with the judge's hits. Per answer: the
-- conditions the reviewer ticked (a JSON list; NULL while not answered) and when.
ALTER TABLE review_items ADD COLUMN rationale_json TEXT;
ALTER TABLE review_items ADD COLUMN rationale_source_json TEXT;
ALTER TABLE review_answers ADD COLUMN rationale_established_json TEXT;
ALTER TABLE review_answers ADD COLUMN rationale_at TEXT;
