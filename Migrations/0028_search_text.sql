-- Full-text search (docs/search.md). The FTS5 table `asset_text` and the triggers that
-- keep it in the writer's transaction are generated from the column declarations in
-- Sources/MediaIndex/Search/SearchTextColumns.swift, so adding a searchable text field
-- is one declaration there; this table records which declarations the generated
-- schema was built from, and a library whose record differs is rebuilt on its next
-- writable open (SearchTextIndex.install), as a migration would be.
CREATE TABLE search_text_schema (
    signature TEXT NOT NULL
);
