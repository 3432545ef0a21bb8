-- Schema version 13: each completed index run keeps its whole summary (IndexSummary as
-- JSON), so `stats` reports moved, paired, unpaired and skipped special files as the
-- run's `index --json` did; the counting columns stay for older readers.

ALTER TABLE index_runs ADD COLUMN summary TEXT;
