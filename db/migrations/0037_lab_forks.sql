-- A what-if fork (issue 15 part 3) is a private lab of its own: what it was forked from (the lab, the
-- moment, the settings changed, the row it started from) is kept with it, and counted per browser
-- (owner_hash) like the private labs it opens. Null for every lab that is not a fork.
ALTER TABLE labs ADD COLUMN fork jsonb;
