-- Schema version 16: the two values pairing reads from a media file, as columns.
--
-- The pairer looks up a file's Apple content identifier (live photos) and duration (a
-- short movie beside a still) on every file an index run touches. They were read from
-- the `metadata` JSON with json_extract; now the index run writes them beside it, as
-- typed columns, and pairing reads no JSON. Existing rows are filled from their JSON once.
ALTER TABLE files ADD COLUMN content_identifier TEXT;
ALTER TABLE files ADD COLUMN duration_seconds REAL;

UPDATE files
SET content_identifier = nullif(json_extract(metadata, '$.contentIdentifier'), ''),
    duration_seconds = json_extract(metadata, '$.durationSeconds')
WHERE status = 'media' AND metadata IS NOT NULL AND json_valid(metadata);
