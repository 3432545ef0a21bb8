-- Schema version 60: the album list at a million assets, with Places and On This Day.
--
-- Places lists every country with its name and counts. They were one grouped read of
-- `assets_by_place`, every placed asset's entry: 65 ms of the album list at a million assets
-- with a tenth of them placed. `place_country_stats` keeps them by triggers, as
-- `folder_stats` keeps a folder's: one row per country and name its assets give, with how
-- many assets give it, how many of those stand for their burst (what a default fetch
-- shows) and how many of those are videos. A country's name is the greatest of its rows'
-- (`''` stands for none). Hidden assets are subtracted when the list is read, as before.
CREATE TABLE place_country_stats (
    country_code TEXT NOT NULL,
    country      TEXT NOT NULL,
    assets       INTEGER NOT NULL,
    shown        INTEGER NOT NULL,
    videos       INTEGER NOT NULL,
    PRIMARY KEY (country_code, country)
) WITHOUT ROWID;

INSERT INTO place_country_stats (country_code, country, assets, shown, videos)
    SELECT place_country_code, coalesce(place_country, ''), count(*), sum(is_burst_representative = 1),
           sum(is_burst_representative = 1 AND media_type = 'video')
    FROM assets WHERE place_country_code IS NOT NULL GROUP BY 1, 2;

CREATE TRIGGER place_country_stats_inserted AFTER INSERT ON assets
WHEN NEW.place_country_code IS NOT NULL
BEGIN
    INSERT INTO place_country_stats (country_code, country, assets, shown, videos)
        VALUES (NEW.place_country_code, coalesce(NEW.place_country, ''), 1, NEW.is_burst_representative = 1,
                NEW.is_burst_representative = 1 AND NEW.media_type = 'video')
        ON CONFLICT (country_code, country) DO UPDATE
        SET assets = assets + 1, shown = shown + excluded.shown, videos = videos + excluded.videos;
END;

CREATE TRIGGER place_country_stats_deleted AFTER DELETE ON assets
WHEN OLD.place_country_code IS NOT NULL
BEGIN
    UPDATE place_country_stats
        SET assets = assets - 1, shown = shown - (OLD.is_burst_representative = 1),
            videos = videos - (OLD.is_burst_representative = 1 AND OLD.media_type = 'video')
        WHERE country_code = OLD.place_country_code AND country = coalesce(OLD.place_country, '');
    DELETE FROM place_country_stats
        WHERE country_code = OLD.place_country_code AND country = coalesce(OLD.place_country, '') AND assets = 0;
END;

CREATE TRIGGER place_country_stats_updated AFTER UPDATE OF place_country_code, place_country, is_burst_representative, media_type ON assets
WHEN (OLD.place_country_code IS NOT NULL OR NEW.place_country_code IS NOT NULL)
    AND (OLD.place_country_code IS NOT NEW.place_country_code OR OLD.place_country IS NOT NEW.place_country
         OR OLD.is_burst_representative IS NOT NEW.is_burst_representative OR OLD.media_type IS NOT NEW.media_type)
BEGIN
    UPDATE place_country_stats
        SET assets = assets - 1, shown = shown - (OLD.is_burst_representative = 1),
            videos = videos - (OLD.is_burst_representative = 1 AND OLD.media_type = 'video')
        WHERE country_code = OLD.place_country_code AND country = coalesce(OLD.place_country, '');
    DELETE FROM place_country_stats
        WHERE country_code = OLD.place_country_code AND country = coalesce(OLD.place_country, '') AND assets = 0;
    INSERT INTO place_country_stats (country_code, country, assets, shown, videos)
        SELECT NEW.place_country_code, coalesce(NEW.place_country, ''), 1, NEW.is_burst_representative = 1,
               NEW.is_burst_representative = 1 AND NEW.media_type = 'video'
        WHERE NEW.place_country_code IS NOT NULL
        ON CONFLICT (country_code, country) DO UPDATE
        SET assets = assets + 1, shown = shown + excluded.shown, videos = videos + excluded.videos;
END;

-- On This Day shows its newest and oldest asset. Each was the first row of every asset of
-- the month-day in earlier years, sorted: about 2,700 entries of `assets_by_month_day` at a
-- million assets, each looked up in `assets` for its capture time (20 ms of the album list).
-- With the capture order right after the month-day, the index gives a day's assets in
-- capture order, and each key is its first entry that passes (an earlier year, a burst's
-- representative, not hidden). The count still reads the index alone.
DROP INDEX assets_by_month_day;
CREATE INDEX assets_by_month_day ON assets
    (substr(capture_day, 6, 5), capture_sort, id, capture_day, is_burst_representative, media_type);
