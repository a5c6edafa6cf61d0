-- Account settings every area reads: the name shown beside a member's comments (empty means
-- "Member" and a short stable tag) and the time zone daily briefs follow.
ALTER TABLE users ADD COLUMN display_name TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'America/New_York';
