-- Schema version 47: whether a root's walk follows symbolic links to folders.
--
-- Off by default, as before: a link below a root is counted as skipped. A root
-- registered or re-indexed with `index --follow-symlinks` walks into linked folders
-- (each folder once, by device and inode, so loops end) and records their files under
-- the link's path. Such a file is served (resource routes, thumbnails) only when its
-- resolved path lies beneath a registered root.
ALTER TABLE roots ADD COLUMN follows_symlinks INTEGER NOT NULL DEFAULT 0;
