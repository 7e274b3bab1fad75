-- Counting cases by type (store.info, the Home page) reads only this index instead of every case
-- row with its narrative and JSON; the count stays quick while other work keeps the store busy.
CREATE INDEX cases_by_type ON cases(excluded, case_type);
