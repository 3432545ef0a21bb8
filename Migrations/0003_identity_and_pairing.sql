-- Schema version 3: what identity and pairing keep beside each asset.

-- Which rule made a multi-resource asset: contentIdentifier, sameStemShortMovie,
-- motionPhoto, rawPlusJpeg. NULL for a single-file asset.
ALTER TABLE assets ADD COLUMN pairing_rule TEXT;

-- Whether the asset stands for its burst in queries that hide the other frames
-- (PHFetchOptions.includeAllBurstAssets = false). 1 for assets outside bursts.
ALTER TABLE assets ADD COLUMN is_burst_representative INTEGER NOT NULL DEFAULT 1;

CREATE INDEX assets_by_burst ON assets (burst_identifier) WHERE burst_identifier IS NOT NULL;
