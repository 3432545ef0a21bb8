-- The asset's day, as the timeline (`/v1/timeline`) and `period=` group and select
-- by: the local calendar day the file wrote (`creation_date` starts with it), NULL
-- when undated. This column is the one place that says what "the asset's day" is; to
-- key days another way (a resolved local offset), redefine it here in a new migration.
ALTER TABLE assets ADD COLUMN capture_day TEXT GENERATED ALWAYS AS (substr(creation_date, 1, 10)) VIRTUAL;
-- Per-day counts read this index alone (no table rows) for the default scope.
CREATE INDEX assets_by_day ON assets (capture_day, is_burst_representative, media_type);
