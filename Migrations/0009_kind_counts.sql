-- Schema version 9: asset counts per kind (media type, subtype bits, in a burst),
-- kept by triggers, so smart albums count a million assets by summing a few rows.
-- Counted: assets that stand for themselves in listings (is_burst_representative = 1);
-- hidden ones (user state, in another file) are subtracted when albums are read.

CREATE TABLE asset_kind_counts (
    media_type TEXT NOT NULL,
    subtypes   INTEGER NOT NULL,
    in_burst   INTEGER NOT NULL,
    count      INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (media_type, subtypes, in_burst)
) WITHOUT ROWID;

-- The columns a media filter tests, under the names the filter's SQL uses.
CREATE VIEW asset_kinds AS
    SELECT media_type, subtypes, CASE WHEN in_burst THEN 1 END AS burst_identifier, count
    FROM asset_kind_counts;

INSERT INTO asset_kind_counts (media_type, subtypes, in_burst, count)
    SELECT media_type, subtypes, burst_identifier IS NOT NULL, count(*) FROM assets
    WHERE is_burst_representative = 1 GROUP BY 1, 2, 3;

CREATE TRIGGER assets_kind_inserted AFTER INSERT ON assets
WHEN NEW.is_burst_representative = 1
BEGIN
    INSERT INTO asset_kind_counts (media_type, subtypes, in_burst, count)
        VALUES (NEW.media_type, NEW.subtypes, NEW.burst_identifier IS NOT NULL, 1)
        ON CONFLICT (media_type, subtypes, in_burst) DO UPDATE SET count = count + 1;
END;

CREATE TRIGGER assets_kind_deleted AFTER DELETE ON assets
WHEN OLD.is_burst_representative = 1
BEGIN
    UPDATE asset_kind_counts SET count = count - 1
        WHERE media_type = OLD.media_type AND subtypes = OLD.subtypes AND in_burst = (OLD.burst_identifier IS NOT NULL);
END;

CREATE TRIGGER assets_kind_updated
AFTER UPDATE OF media_type, subtypes, burst_identifier, is_burst_representative ON assets
BEGIN
    UPDATE asset_kind_counts SET count = count - 1
        WHERE OLD.is_burst_representative = 1 AND media_type = OLD.media_type AND subtypes = OLD.subtypes
          AND in_burst = (OLD.burst_identifier IS NOT NULL);
    INSERT INTO asset_kind_counts (media_type, subtypes, in_burst, count)
        SELECT NEW.media_type, NEW.subtypes, NEW.burst_identifier IS NOT NULL, 1
        WHERE NEW.is_burst_representative = 1
        ON CONFLICT (media_type, subtypes, in_burst) DO UPDATE SET count = count + 1;
END;

-- Recently Added counts by a range of this index alone (no row lookups).
CREATE INDEX assets_by_added_kind ON assets (added_at, media_type, is_burst_representative);
