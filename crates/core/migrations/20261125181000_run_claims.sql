-- Who is executing a run: a process claims the run before working on it and renews the claim
-- through heartbeat_at; another process may take the run over only once that heartbeat is stale.
ALTER TABLE runs ADD COLUMN owner_id TEXT;
ALTER TABLE runs ADD COLUMN owner_label TEXT;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN claimed_at TEXT;
