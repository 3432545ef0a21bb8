-- Schema version 7: image and video counts per folder album, kept by triggers, so the
-- album list reads one row per folder instead of grouping every asset.
-- Counted: assets that stand for themselves in listings (is_burst_representative = 1);
-- hidden assets (user state, in another file) are subtracted when the list is read.

CREATE TABLE folder_stats (
    folder_id INTEGER PRIMARY KEY,
    images    INTEGER NOT NULL DEFAULT 0,
    videos    INTEGER NOT NULL DEFAULT 0
);

INSERT INTO folder_stats (folder_id, images, videos)
    SELECT folder_id, sum(media_type = 'image'), sum(media_type = 'video') FROM assets
    WHERE folder_id IS NOT NULL AND is_burst_representative = 1 GROUP BY folder_id;

CREATE TRIGGER assets_counted_inserted AFTER INSERT ON assets
WHEN NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
BEGIN
    INSERT INTO folder_stats (folder_id, images, videos)
        VALUES (NEW.folder_id, NEW.media_type = 'image', NEW.media_type = 'video')
        ON CONFLICT (folder_id) DO UPDATE SET images = images + excluded.images, videos = videos + excluded.videos;
END;

CREATE TRIGGER assets_counted_deleted AFTER DELETE ON assets
WHEN OLD.folder_id IS NOT NULL AND OLD.is_burst_representative = 1
BEGIN
    UPDATE folder_stats SET images = images - (OLD.media_type = 'image'), videos = videos - (OLD.media_type = 'video')
        WHERE folder_id = OLD.folder_id;
END;

CREATE TRIGGER assets_counted_updated AFTER UPDATE OF folder_id, media_type, is_burst_representative ON assets
BEGIN
    UPDATE folder_stats SET images = images - (OLD.media_type = 'image'), videos = videos - (OLD.media_type = 'video')
        WHERE folder_id = OLD.folder_id AND OLD.is_burst_representative = 1;
    INSERT INTO folder_stats (folder_id, images, videos)
        SELECT NEW.folder_id, NEW.media_type = 'image', NEW.media_type = 'video'
        WHERE NEW.folder_id IS NOT NULL AND NEW.is_burst_representative = 1
        ON CONFLICT (folder_id) DO UPDATE SET images = images + excluded.images, videos = videos + excluded.videos;
END;
