-- Which assets an import's favorite mark has been applied to: a Google Takeout
-- `favorited` sets the favorite once, never again.
CREATE TABLE IF NOT EXISTS userstate.imported_favorites (
    identifier TEXT PRIMARY KEY,
    applied_at REAL NOT NULL
) WITHOUT ROWID;
