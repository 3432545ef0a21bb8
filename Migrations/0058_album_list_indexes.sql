-- Schema version 58: the album list at a million assets (issue 30's speed condition).
--
-- The Places albums (every placed asset, then per country, region and city) read this index
-- alone for their counts and the names of the albums below them, and seek its ends for
-- their key assets and dates: the country, what a default fetch tests (burst
-- representative), the capture order as `assets_by_capture` keeps it, then what the counts
-- group by, the region and city the smaller albums test, and the names they show. It
-- replaces `assets_by_country` (migration 0031), whose first column it shares, so
-- `--country` and `place=` still find it.
DROP INDEX assets_by_country;
CREATE INDEX assets_by_place ON assets
    (place_country_code, is_burst_representative, capture_sort, id, media_type, place_region_code, place_geoname_id,
     place_country, place_region, place_locality);
-- On This Day selects a month-day in every earlier year: the month-day first, so its count
-- reads the few entries of that day instead of every asset's day (`assets_by_day`). The
-- expression is written as `AssetQuery.onThisDayCondition` writes it, so SQLite uses it.
CREATE INDEX assets_by_month_day ON assets
    (substr(capture_day, 6, 5), capture_day, is_burst_representative, media_type);
