"""A correct lock client in about twenty lines (docs/protocol.md). Run it under a runner, which joins, beats and
freezes it: with Python alone, python3 runner.py --db <your worker line> --lab <lab> --name A -- python3 minimal.py
(clients/python/runner.py), or npm run worker -- --db <your worker line> --lab <lab> --name A --exec "python3 minimal.py" """
import json, os, time, psycopg

me = (os.environ["FENCING_LAB_LAB"], os.environ["FENCING_LAB_NAME"], os.environ["FENCING_LAB_INSTANCE"])
db = psycopg.connect(os.environ["FENCING_LAB_URL"], autocommit=True)
# The lab's write (docs/protocol.md's table): fenced checks the token; no-fencing checks nothing.
write = ("worker_fenced_write",) if os.environ["FENCING_LAB_KIND"] == "fenced" else ("worker_broken_write", "plain")

def call(function, *args):  # one protocol function, as me (lab, name, instance): its first row
    return db.execute(f"SELECT * FROM {function}({', '.join(['%s'] * (3 + len(args)))})", (*me, *args)).fetchone()

def lost(why):  # refused: another holds the lease now, whatever my clock says; my token is done
    global token
    print(f"{why}: I lost the lease", flush=True)
    call("worker_record_event", "lease_lost", token, json.dumps({"reason": why}))
    token = None

token, renew_at, writes = None, 0, 0
while True:
    time.sleep(0.3)
    if token is None:  # acquire, until granted
        outcome, _, _, granted, *_ = call("worker_acquire_lease", 2000)
        if outcome == "granted":
            token, renew_at = granted, time.time() + 0.6
            print(f"I hold token {token}", flush=True)
    elif time.time() >= renew_at:  # renew every third of the lease's 2 s
        renew_at = time.time() + 0.6
        if call("worker_renew_lease", token, 2000)[0] != "renewed":
            lost(f"my renewal of token {token} was refused")
    else:  # write with the token I was granted, saying so first (my critical window)
        writes += 1
        call("worker_record_event", "write_sent", token, json.dumps({"value": f"{me[1]}-{writes}"}))
        if call(*write, f"{me[1]}-{writes}", token)[0] != "accepted":
            lost(f"my write with token {token} was refused")
