-- The user's own title, caption and keywords as words for free-text search, kept by
-- triggers in this database (library.sqlite's asset_text holds the files' words). The
-- words are folded and segmented as asset_text's are (search_words, keyword_key).
CREATE VIRTUAL TABLE IF NOT EXISTS userstate.user_text USING fts5(
    identifier UNINDEXED, words, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS userstate.user_text_inserted AFTER INSERT ON asset_user_state
    WHEN coalesce(new.title, new.caption, new.keywords) IS NOT NULL
BEGIN
    INSERT INTO user_text (identifier, words) VALUES (new.identifier, search_words(
        coalesce(new.title, '') || ' ' || coalesce(new.caption, '') || ' ' || coalesce(keyword_key(new.keywords), '')));
END;
CREATE TRIGGER IF NOT EXISTS userstate.user_text_updated AFTER UPDATE OF title, caption, keywords ON asset_user_state
BEGIN
    DELETE FROM user_text WHERE identifier = old.identifier;
    INSERT INTO user_text (identifier, words) SELECT new.identifier, search_words(
        coalesce(new.title, '') || ' ' || coalesce(new.caption, '') || ' ' || coalesce(keyword_key(new.keywords), ''))
        WHERE coalesce(new.title, new.caption, new.keywords) IS NOT NULL;
END;
CREATE TRIGGER IF NOT EXISTS userstate.user_text_deleted AFTER DELETE ON asset_user_state
BEGIN
    DELETE FROM user_text WHERE identifier = old.identifier;
END;
INSERT INTO userstate.user_text (identifier, words)
    SELECT identifier, search_words(
        coalesce(title, '') || ' ' || coalesce(caption, '') || ' ' || coalesce(keyword_key(keywords), ''))
    FROM userstate.asset_user_state WHERE coalesce(title, caption, keywords) IS NOT NULL;
