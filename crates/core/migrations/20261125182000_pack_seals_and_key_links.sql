-- Signed review packs: where a pack was opened, what its owner issued with it (pack id, the
-- reviewer's items with their expected verdicts, the owner's signature) and the key that signs
-- the answers written back. NULL for owner sessions and for packs opened before packs were signed.
ALTER TABLE review_reviewers ADD COLUMN pack_seal_json TEXT;

-- A model whose base URL moved to another scheme, host or port loses its key link (keyring or
-- environment variable) until it is confirmed again; this says which link was dropped and why.
ALTER TABLE models ADD COLUMN key_link_dropped TEXT;
