"""Three faulty lock clients, for lib/scenario/exec-scenario.test.ts: each gets one thing wrong.

  ignores-refusals  keeps writing with its token after the row refused it as stale
  own-counter       writes with a token from its own counter (1, 2, 3, …), not the one it was granted
  never-renews      takes a short lease (500 ms), never renews it, and writes every 1.2 s under it

Run by `npm run worker -- --exec` (FENCING_LAB_INSTANCE, FENCING_LAB_KIND set): no join, no beat.
"""
import json, os, sys, time

import psycopg

fault = sys.argv[1]
e = os.environ
me = (e["FENCING_LAB_LAB"], e["FENCING_LAB_NAME"], e["FENCING_LAB_INSTANCE"])
db = psycopg.connect(e["FENCING_LAB_URL"], autocommit=True)
ttl_ms = 500 if fault == "never-renews" else 2000


def call(function, *args):
    marks = ", ".join(["%s"] * (3 + len(args)))
    return db.execute(f"SELECT * FROM {function}({marks})", (*me, *args)).fetchall()


def acquire():
    while True:
        outcome, _resource, _holder, token, *_ = call("worker_acquire_lease", ttl_ms)[0]
        if outcome == "granted":
            print(f"I hold token {token}", flush=True)
            return token
        time.sleep(0.05)


token, n = acquire(), 0
while True:
    n += 1
    value = f"{me[1]}-{n}"
    sent = n if fault == "own-counter" else token
    call("worker_record_event", "write_sent", sent, json.dumps({"value": value}))
    if e["FENCING_LAB_KIND"] == "fenced":
        outcome, *_ = call("worker_fenced_write", value, sent)[0]
    else:
        outcome, *_ = call("worker_broken_write", "plain", value, sent)[0]
    print(f"{value} with token {sent}: {outcome}", flush=True)
    if outcome == "stale" and fault != "ignores-refusals":
        token = acquire()
    if fault == "ignores-refusals":
        call("worker_renew_lease", token, ttl_ms)
    time.sleep(1.2 if fault == "never-renews" else 0.3)
