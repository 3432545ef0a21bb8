-- Schema version 17: live-photo halves found by content identifier in their folder first.
--
-- The pairer asked for every file of every asset carrying a still's content identifier,
-- anywhere in the library. A library holding many copies of the same pictures (a backup
-- folder inside the root, the benchmark's numbered copies) then answered thousands of
-- rows per lookup, for each copy: pairing grew with the square of the copies. It now
-- asks the file's own folder first, through this index, and looks further only when the
-- folder holds no partner.
CREATE INDEX files_by_content_identifier ON files (content_identifier, folder)
WHERE content_identifier IS NOT NULL;
