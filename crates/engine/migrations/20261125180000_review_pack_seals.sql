-- Signed review packs: where a pack was opened, what its owner issued with it (pack id, the
-- reviewer's items with their expected verdicts, the owner's signature) and the key that signs
-- the answers written back. NULL for owner sessions and for packs opened before packs were signed.
ALTER TABLE review_reviewers ADD COLUMN pack_seal_json TEXT;
