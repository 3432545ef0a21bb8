-- The user's own rating and keywords (a JSON array of keyword paths), beside the
-- title and caption.
ALTER TABLE userstate.asset_user_state ADD COLUMN rating INTEGER;
ALTER TABLE userstate.asset_user_state ADD COLUMN keywords TEXT;
