-- A position that resolving a duplicate group copies onto the keeper when it has none.
ALTER TABLE userstate.asset_user_state ADD COLUMN latitude REAL;
ALTER TABLE userstate.asset_user_state ADD COLUMN longitude REAL;
