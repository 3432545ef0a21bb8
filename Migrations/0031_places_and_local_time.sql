-- Schema version 31: where and when each asset was taken (issue 31).
--
-- The place of the asset's GPS position, from the offline places data (`MediaPlaces`):
-- locality, subregion (admin2), region (admin1) with its GeoNames code, country with its
-- ISO 3166-1 code, and the GeoNames id of the locality. `time_zone` is the IANA zone of
-- the position. `capture_offset` is the UTC offset of the capture time in seconds and
-- `capture_offset_source` where it came from (`exif`, `gps-time`, `place`, `neighbour`,
-- `user`, `none`); `creation_date` is now written with that offset and
-- `creation_timestamp` is its true instant. `local_time` is the local wall clock as
-- seconds since 1970 read as UTC: the camera's day, month and year are taken from it.
--
-- Existing assets have a NULL source: the next index run fills these columns from the
-- metadata the index keeps, without reopening files.
ALTER TABLE assets ADD COLUMN place_name TEXT;
ALTER TABLE assets ADD COLUMN place_locality TEXT;
ALTER TABLE assets ADD COLUMN place_subregion TEXT;
ALTER TABLE assets ADD COLUMN place_region TEXT;
ALTER TABLE assets ADD COLUMN place_region_code TEXT;
ALTER TABLE assets ADD COLUMN place_country TEXT;
ALTER TABLE assets ADD COLUMN place_country_code TEXT;
ALTER TABLE assets ADD COLUMN place_geoname_id INTEGER;
ALTER TABLE assets ADD COLUMN time_zone TEXT;
ALTER TABLE assets ADD COLUMN capture_offset INTEGER;
ALTER TABLE assets ADD COLUMN capture_offset_source TEXT;
ALTER TABLE assets ADD COLUMN local_time REAL;
CREATE INDEX assets_by_local_time ON assets (local_time);
CREATE INDEX assets_by_country ON assets (place_country_code);
-- What the pass after each index run looks for: assets not yet resolved (NULL), and those
-- left floating (`none`) for the neighbour rule.
CREATE INDEX assets_by_offset_source ON assets (capture_offset_source);
-- Located assets without a place: filled once the places data are installed.
CREATE INDEX assets_unplaced ON assets (id) WHERE place_name IS NULL AND latitude IS NOT NULL;
