#!/usr/bin/env python3
"""A Fencing Lab worker in Python with psycopg 3 (protocol version 1, docs/protocol.md).

It joins a lab, takes the lease, writes with the token it was granted, renews, and treats a refusal
as "I lost the lease". It writes in the fenced lab (worker_fenced_write) and in the no-fencing lab
(worker_broken_write 'plain', which checks nothing: there a late write of this client is accepted).
  FENCING_LAB_URL=postgres://fencing_line_…:…@host:port/db FENCING_LAB_LAB=fenced \\
  FENCING_LAB_NAME=Py [FENCING_LAB_JOIN_KEY=…] python3 clients/python/worker.py
Run by `npm run worker -- --exec "python3 clients/python/worker.py"` (FENCING_LAB_INSTANCE and
FENCING_LAB_KIND set), it neither joins nor beats: the runner has, and freezes this process group.
"""
import json, os, secrets, signal, sys, time
from datetime import datetime

try:
    import psycopg
except ImportError:
    sys.exit("this client needs psycopg 3: apt-get install python3-psycopg (or pip install psycopg)")

env = os.environ
missing = [v for v in ("FENCING_LAB_URL", "FENCING_LAB_LAB", "FENCING_LAB_NAME") if not env.get(v)]
if missing:
    sys.exit("set " + ", ".join(missing))
url, lab, name = env["FENCING_LAB_URL"], env["FENCING_LAB_LAB"], env["FENCING_LAB_NAME"]
ttl_ms = int(env.get("FENCING_LAB_TTL_MS", "2000"))
every_s = float(env.get("FENCING_LAB_WRITE_EVERY_S", "0.3"))
runner = bool(env.get("FENCING_LAB_INSTANCE"))
instance = env.get("FENCING_LAB_INSTANCE") or secrets.token_hex(16)
me = (lab, name, instance)
db = psycopg.connect(url, autocommit=True)  # each call is one statement, committed on its own


def call(function, *args):
    """One worker_* function on the session: its rows, as tuples."""
    marks = ", ".join(["%s"] * (len(me) + len(args)))
    return db.execute(f"SELECT * FROM {function}({marks})", (*me, *args)).fetchall()


def event(kind, token=None, detail=None):
    call("worker_record_event", kind, token, json.dumps(detail or {}))


kind = env.get("FENCING_LAB_KIND", "")
if not runner:
    settings = {"name": name, "protocol": 1, "leaseTtlMs": ttl_ms}
    key = env.get("FENCING_LAB_JOIN_KEY") or None
    refusal, _generation, kind, *_ = db.execute(
        "SELECT * FROM worker_join(%s, %s, %s, %s::jsonb, %s)", (*me, json.dumps(settings), key)
    ).fetchone()
    if refusal:
        sys.exit(f"{name}: the lab refused me: {refusal}")
if kind not in ("fenced", "no-fencing"):
    sys.exit(f"{name}: this client writes in the fenced and no-fencing labs (this one is {kind or 'unknown'})")
if not runner:
    call("worker_record_origin", None)
    event("worker_started", None, {"remote": True, "client": "python"})
print(f"{name} writes in {lab}", flush=True)

stopping = ""


def stop(_signum, _frame):
    global stopping
    stopping = "a stop signal"


for signum in (signal.SIGTERM, signal.SIGINT):
    signal.signal(signum, stop)
token, until_ms, next_renew_ms, writes = None, 0, 0, 0
while not stopping:
    if not runner:
        (told,), = call("worker_beat", "holding" if token else "acquiring", token, None, False)
        if told:
            stopping = f"the lab said: {told}"
            break
        for _id, command, _seconds in call("worker_take_commands"):
            if command == "stop":
                stopping = "a stop from the lab"
            elif command == "crash":
                os.kill(os.getpid(), signal.SIGKILL)
        if stopping:
            break
    now = int(time.time() * 1000)
    if token is None:
        outcome, _res, _holder, granted, *_ = call("worker_acquire_lease", ttl_ms)[0]
        if outcome == "granted":
            token, until_ms, next_renew_ms = granted, now + ttl_ms, now + ttl_ms // 3
            print(f"I hold token {token} until {datetime.fromtimestamp(until_ms / 1000):%H:%M:%S} (by my own clock)", flush=True)
    elif now >= until_ms:
        print(f"my lease (token {token}) ran out by my own clock", flush=True)
        token = None
    elif now >= next_renew_ms:
        if call("worker_renew_lease", token, ttl_ms)[0][0] == "renewed":
            until_ms, next_renew_ms = now + ttl_ms, now + ttl_ms // 3
        else:
            print(f"my renewal of token {token} was refused: I lost the lease", flush=True)
            event("lease_lost", token)
            token = None
    else:
        writes += 1
        value = f"{name}-{writes}"
        event("write_sent", token, {"value": value})
        if kind == "fenced":
            outcome, _row, stored = call("worker_fenced_write", value, token)[0]
        else:
            outcome, _row, stored = call("worker_broken_write", "plain", value, token)[0]
        if outcome == "accepted":
            print(f"wrote {value} with token {token}", flush=True)
        else:
            print(f"my write with token {token} was rejected: the row holds {stored}. I lost the lease", flush=True)
            token = None
    time.sleep(every_s)

if token is not None:
    call("worker_release_lease", token)
if not runner:
    event("worker_stopped", None, {"reason": stopping})
    call("worker_mark_stopped")
print(f"{name} stopped: {stopping}", flush=True)
