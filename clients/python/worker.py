#!/usr/bin/env python3
"""A Fencing Lab worker in Python with psycopg 3 (protocol version 1, docs/protocol.md): it takes the
lease, writes with the token it was granted, renews, and treats a refusal as "I lost the lease", in the
fenced lab and the no-fencing lab (whose write checks nothing). Alone: FENCING_LAB_URL=<worker line>
FENCING_LAB_LAB=fenced FENCING_LAB_NAME=Py [FENCING_LAB_JOIN_KEY=…] python3 clients/python/worker.py.
Under `npm run worker -- --exec` (FENCING_LAB_INSTANCE set) the runner joins, beats and freezes it."""
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
me = (lab, name, env.get("FENCING_LAB_INSTANCE") or secrets.token_hex(16))
db = psycopg.connect(url, autocommit=True)  # each call is one statement, committed on its own

def call(function, *args):
    """One worker_* function on the session: its rows, as tuples."""
    marks = ", ".join(["%s"] * (len(me) + len(args)))
    return db.execute(f"SELECT * FROM {function}({marks})", (*me, *args)).fetchall()

def event(kind, token=None, detail=None):
    call("worker_record_event", kind, token, json.dumps(detail or {}))

kind = env.get("FENCING_LAB_KIND", "")
if not runner:
    settings = json.dumps({"name": name, "protocol": 1, "leaseTtlMs": ttl_ms})
    key = env.get("FENCING_LAB_JOIN_KEY") or None
    refusal, _generation, kind, *_ = db.execute(
        "SELECT * FROM worker_join(%s, %s, %s, %s::jsonb, %s)", (*me, settings, key)).fetchone()
    if refusal:
        sys.exit(f"{name}: the lab refused me: {refusal}")
if kind not in ("fenced", "no-fencing"):
    sys.exit(f"{name}: this client writes in the fenced and no-fencing labs (this one is {kind or 'unknown'})")
if not runner:
    call("worker_record_origin", None)
    event("worker_started", None, {"remote": True, "client": "python"})
print(f"{name} writes in {lab}", flush=True)
token, until_ms, next_renew_ms, writes, stopping, told_to_stop = None, 0, 0, 0, "", False

def stop(_signum, _frame):
    global stopping
    stopping = "a stop signal"

def lost(why):
    print(f"{why}: I lost the lease", flush=True)
    event("lease_lost", token, {"reason": why})

def step():
    """One turn: the lab's word (alone), then take, check, renew or write. Returns why to stop, or ''."""
    global token, until_ms, next_renew_ms, writes, told_to_stop
    if not runner:
        (told,), = call("worker_beat", "holding" if token else "acquiring", token, None, False)
        if told:
            return f"the lab said: {told}"
        for _id, command, _seconds in call("worker_take_commands"):
            if command == "stop":  # with a reset or a close: no event (docs/protocol.md)
                told_to_stop = True
                return "a stop from the lab"
            if command == "crash":
                event("worker_crashed", None, {"reason": "the lab crashed it"})
                call("worker_mark_crashed")
                os.kill(os.getpid(), signal.SIGKILL)
    now = int(time.time() * 1000)
    if token is None:
        outcome, _res, _holder, granted, *_ = call("worker_acquire_lease", ttl_ms)[0]
        if outcome == "granted":
            token, until_ms, next_renew_ms = granted, now + ttl_ms, now + ttl_ms // 3
            print(f"I hold token {token} until {datetime.fromtimestamp(until_ms / 1000):%H:%M:%S} (by my own clock)", flush=True)
    elif now >= until_ms:
        lost(f"my lease (token {token}) ran out by my own clock")
        token = None
    elif now >= next_renew_ms:
        if call("worker_renew_lease", token, ttl_ms)[0][0] == "renewed":
            until_ms, next_renew_ms = now + ttl_ms, now + ttl_ms // 3
        else:
            lost(f"my renewal of token {token} was refused")
            token = None
    else:
        writes += 1
        value = f"{name}-{writes}"
        event("write_sent", token, {"value": value})  # my critical window: I have decided to write
        write = ("worker_fenced_write",) if kind == "fenced" else ("worker_broken_write", "plain")
        outcome, _row, stored = call(*write, value, token)[0]
        if outcome == "accepted":
            print(f"wrote {value} with token {token}", flush=True)
        else:
            lost(f"my write with token {token} was rejected: the row holds {stored}")
            token = None
    return ""

for signum in (signal.SIGTERM, signal.SIGINT):
    signal.signal(signum, stop)
while not stopping:
    try:
        stopping = step() or stopping
    except psycopg.Error as error:  # over the rate (FL012): skip it and go on; anything else ends me
        if error.sqlstate != "FL012":
            stopping = f"the database said: {str(error).splitlines()[0]}"
    time.sleep(every_s)
try:
    if token is not None:
        call("worker_release_lease", token)
    if not runner and not told_to_stop:
        event("worker_stopped", None, {"reason": stopping})
    if not runner:
        call("worker_mark_stopped")
except psycopg.Error:
    pass  # the lease runs out by itself, and a lane that no longer beats is shown gone
print(f"{name} stopped: {stopping}", flush=True)
