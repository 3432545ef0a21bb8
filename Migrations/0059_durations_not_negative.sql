-- Schema version 59: no asset has a negative length.
--
-- A length below zero (only a hostile or broken header gives one) is stored as none, as the
-- indexer now writes it: `duration_sort` (the length, or -1 for none) is then at least 0
-- exactly where the asset has a length, and a `duration:` term reads `assets_by_duration`
-- from 0.
UPDATE assets SET duration = NULL WHERE duration < 0;
