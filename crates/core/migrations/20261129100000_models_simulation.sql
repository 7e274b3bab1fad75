-- A registered model whose endpoint said, when it was registered, that it is a simulation (the
-- built-in demo model lists its model with `"simulation": true` at GET /v1/models). Its results
-- are labelled a simulation wherever they appear. Existing models are real ones.
ALTER TABLE models ADD COLUMN simulation INTEGER NOT NULL DEFAULT 0;
