-- Trainer sessions: a browser that entered the trainer key holds a random session id in its cookie;
-- the server keeps only its hash, when it expires, and whether it was ended ("Stop driving"). An
-- old cookie replayed after that, or after it expired, is refused.
CREATE TABLE trainer_sessions (
  -- sha256 (hex) of the session id the cookie holds: the id itself is never stored.
  id_hash     text PRIMARY KEY CHECK (id_hash ~ '^[0-9a-f]{64}$'),
  -- An HMAC of the trainer key the session was opened with: a server started with another key
  -- does not honour it.
  key_proof   text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX trainer_sessions_expires_at ON trainer_sessions (expires_at);
