-- A review session can be closed by its owner: its personal links and local reviewer tokens stop
-- working until it is reopened; its answers stay in the store. NULL while the session is open.
ALTER TABLE review_sessions ADD COLUMN closed_at TEXT;
