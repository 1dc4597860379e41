-- execute: owner
-- The fenced predicate, written here and nowhere else: may a write carrying p_token replace a row
-- whose last write carried p_stored? The write's policy says which comparison runs:
--   fenced: the token is at least the stored one. `<=`, not `<`: a holder's second write, or a retry,
--           under its current token passes (and so does a token taken over unchanged: the same-token lab);
--   text:   the same comparison made on the tokens' text, the token-as-text lab's mistake ('9' > '10');
--   none:   no token check, every write lands (no fencing, the bypass lab's catch-up path).
-- Any other policy lets nothing through. Called in the UPDATE's WHERE, so that it is judged on the row
-- as the UPDATE locked it (READ COMMITTED re-checks it after a concurrent writer commits).
CREATE OR REPLACE FUNCTION fl_may_write(p_policy text, p_stored bigint, p_token bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE p_policy
    WHEN 'fenced' THEN p_stored <= p_token
    WHEN 'text' THEN p_stored::text <= p_token::text
    WHEN 'none' THEN true
    ELSE false
  END
$$;
