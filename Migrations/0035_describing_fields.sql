-- Schema version 35: the describing fields are asset fields (docs/descriptive-metadata.md).
--
-- Keywords (a JSON array of paths), title, caption, colour label, people (a JSON array
-- of names with face rectangles), creator and copyright, reconciled from the primary
-- file and put under its XMP sidecar's and Takeout JSON's values as the rating already
-- was. `keyword_key` and `people_key` hold the folded forms the filters match
-- (`DescriptiveColumns`). The files that can carry them are read again by the next
-- index run (an mtime no file has makes them look changed); their assets keep their
-- identifiers, and the change feed lists the fields that got a value.
ALTER TABLE assets ADD COLUMN keywords TEXT;
ALTER TABLE assets ADD COLUMN keyword_key TEXT;
ALTER TABLE assets ADD COLUMN title TEXT;
ALTER TABLE assets ADD COLUMN caption TEXT;
ALTER TABLE assets ADD COLUMN label TEXT;
ALTER TABLE assets ADD COLUMN people TEXT;
ALTER TABLE assets ADD COLUMN people_key TEXT;
ALTER TABLE assets ADD COLUMN creator TEXT;
ALTER TABLE assets ADD COLUMN copyright TEXT;
UPDATE files SET mtime_ns = -1 WHERE status = 'media';
