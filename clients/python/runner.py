#!/usr/bin/env python3
"""The runner in Python with psycopg alone (docs/protocol.md): it makes any program a lane, as
`npm run worker -- --exec` does (lib/worker/exec-lane.ts), with no checkout and no Node. It joins the lab,
runs the program in a process group of its own with FENCING_LAB_URL, _LAB, _NAME, _INSTANCE and _KIND set,
beats for it and turns the lab's commands into signals to the whole group: a pause SIGSTOP then SIGCONT
(armed: in the program's critical window, held in the database), a crash SIGKILL, a stop SIGTERM then
SIGKILL. It records the program's end in words. Ctrl-C stops the program with it.
  python3 runner.py --db <worker line> --lab <lab> --name A [--join-key <key>] -- python3 minimal.py"""
import argparse, json, os, re, secrets, shlex, signal, subprocess, sys, threading, time
from contextlib import suppress

try:
    import psycopg
except ImportError:
    sys.exit("the runner needs psycopg 3: apt-get install python3-psycopg (or pip install psycopg)")

parser = argparse.ArgumentParser(prog="runner.py", usage="%(prog)s --db URL --lab LAB --name NAME [--join-key KEY] "
                                 '(-- PROGRAM [ARG ...] | --exec "COMMAND")')
parser.add_argument("--db", default=os.environ.get("DATABASE_URL"), help="your worker line (the lab's page gives it)")
parser.add_argument("--lab", required=True, help="the lab's id: fenced, no-fencing, …, or a private lab's p-…")
parser.add_argument("--name", required=True, help="your lane's name in the lab")
parser.add_argument("--join-key", help="a private lab's key (64 hexadecimal digits)")
parser.add_argument("--exec", dest="command", help="the program as one shell command, as npm run worker takes it")
argv = sys.argv[1:]
cut = argv.index("--") if "--" in argv else len(argv)
args = parser.parse_args(argv[:cut])  # a bad usage: its words, and exit 2
command = args.command or shlex.join(argv[cut + 1:])
checks = [(args.db and re.match(r"postgres(ql)?://", args.db), "--db: your worker line, a postgres:// URL"),
          (re.fullmatch(r"[a-z-]{1,40}|p-[a-z0-9]{10}", args.lab), "--lab: a lab's id, as its page shows it"),
          (re.fullmatch(r"[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*", args.name) and len(args.name) <= 40,
           "--name: 1 to 40 ASCII letters, digits, _ . - and single spaces"),
          (args.join_key is None or re.fullmatch(r"[0-9a-f]{64}", args.join_key), "--join-key: 64 hex digits"),
          (command.strip() and not (args.command and cut < len(argv)), 'the program: after --, or --exec "…"')]
for ok, words in checks:
    if not ok:
        parser.error(words)

def shown_as(command):  # the program's name and its script's, never the rest: execShownAs in exec-lane.ts
    words = [w for w in command.split() if not re.match(r"[A-Za-z_]\w*=", w)] or [""]
    base = lambda word: ([p for p in word.split("/") if p] or [word])[-1]
    script = len(words) > 1 and re.fullmatch(r"[\w.-]+(/[\w.-]+)*\.\w+", words[1])
    return (f"{base(words[0])} {base(words[1])}" if script else base(words[0]))[:60]

def fail(words, code):  # 1 failed, 2 bad usage or refused, 3 no database: as npm run worker
    print(words, file=sys.stderr, flush=True)
    sys.exit(code)

me, shown = (args.lab, args.name, secrets.token_hex(16)), shown_as(command)
try:
    db = psycopg.connect(args.db, autocommit=True)  # one statement per call, never a transaction held
except psycopg.Error as error:
    fail(f"cannot reach the database: {str(error).strip()}", 3)

def call(function, *more):  # one worker_* function as me (lab, name, instance): its rows
    marks = ", ".join(["%s"] * (3 + len(more)))
    return db.execute(f"SELECT * FROM {function}({marks})", (*me, *more)).fetchall()

def event(kind, detail, token=None):
    call("worker_record_event", kind, token, json.dumps(detail))

REFUSED = {  # worker_join's refusals (docs/protocol.md), in words close to npm run worker's
    "no_lab": "no such lab in this database, or a private lab without its --join-key",
    "closed": "the lab was closed: open a new one in the app",
    "full": "the lab has as many workers as it takes",
    "not_open": "this shared lab takes no remote workers now: your trainer opens it to them on the lab's page",
    "reserved_name": "A and B are the walkthrough's workers: in a shared lab, pick another --name",
    "address_full": "your address already runs as many remote workers as one machine may: stop one first",
    "name_taken": "a worker of that name is already running in the lab: pick another --name",
    "line_names": "your worker line has run as many names in this lab as it may: start one under a name it used",
    "protocol": "this runner speaks protocol version 1, the lab's database version {kind}: update the runner"}
settings = json.dumps({"name": args.name, "protocol": 1})
try:  # what the database raises (a name it refuses, FL031 a line whose settings were changed): its words
    refusal, _generation, kind, *_ = call("worker_join", settings, args.join_key)[0]
except psycopg.Error as error:  # no SQLSTATE, or class 08: the connection, not a refusal
    if (error.sqlstate or "08").startswith("08"):
        fail(f"cannot reach the database: {str(error).strip()}", 3)
    fail(f"the lab {args.lab} refused {args.name}: {error.diag.message_primary or str(error).strip()}", 2)
if refusal:  # the words, then the code; a code this runner does not know, as it is
    words = REFUSED[refusal].format(kind=kind) + f" ({refusal}, docs/protocol.md)" if refusal in REFUSED else refusal
    fail(f"the lab {args.lab} refused {args.name}: {words}", 2)
call("worker_record_origin", None)
start = {"workerId": args.name, "remote": True, "exec": shown}
event("worker_started", start)
print(f"{args.name} joined {args.lab} and runs {json.dumps(command)} as its lane", flush=True)

woken, told, stderr, gone = threading.Event(), [], [], False  # told: the signal that ends the runner, if any
def on_signal(number, _frame):
    told.append(signal.Signals(number).name)
    woken.set()
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, on_signal)
env = {**os.environ, "FENCING_LAB_URL": args.db, "FENCING_LAB_LAB": args.lab, "FENCING_LAB_NAME": args.name,
       "FENCING_LAB_INSTANCE": me[2], "FENCING_LAB_KIND": kind}
# In a group of its own (a new session): the lab's signals reach all of it, never me, and my Ctrl-C never reaches it.
child = subprocess.Popen(["/bin/sh", "-c", command], env=env, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True, errors="replace", start_new_session=True)
# A runner killed outright handles nothing: this keeper, in a group of its own, kills the program's when my pipe closes.
keeper = subprocess.Popen(["/bin/sh", "-c", 'read _; kill -s KILL -- "-$1" 2>/dev/null', "keeper", str(child.pid)],
                          stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, start_new_session=True)
def relay():  # its stderr to mine, its first hundred lines kept
    for line in child.stderr:
        print(line, end="", file=sys.stderr, flush=True)
        if len(stderr) < 100:
            stderr.append(line)
reader = threading.Thread(target=relay, daemon=True)
reader.start()
threading.Thread(target=lambda: (child.wait(), woken.set()), daemon=True).start()

def group(number):  # a signal to every process of the program's group; False when none is left
    with suppress(ProcessLookupError):
        return not gone and os.killpg(child.pid, number) is None  # once seen gone, never again: its id may be reused
    return False

def end_words(code):  # as the Node runner says it; a negative code is the signal that ended it
    if code < 0:
        return f"your program was ended by {signal.Signals(-code).name}"
    return f"your program exited with code {code}"

def finish(kind, reason, code):  # its last words land first (a release), no process of its group stays
    deadline = time.time() + 3
    while group(0) and time.time() < deadline:
        time.sleep(0.05)
    global gone
    gone = group(signal.SIGKILL) or True
    keeper.kill()
    with suppress(psycopg.Error):  # the database away: the lane ends when its beats stop
        event(kind, {**start, "reason": reason})
        call("worker_mark_stopped")
    print(f"{args.name} {'crashed' if kind == 'worker_crashed' else 'stopped'} ({reason})", flush=True)
    return code

armed, paused_at, resume_at = None, None, None  # armed: [the seconds of an armed pause (None: until resumed)]
def disarm():  # lets the held write_sent in; the token it carried, if one was waiting
    global armed
    token, armed = armed and call("worker_release_critical_window")[0][0], None
    return token if isinstance(token, int) and token >= 1 else None

def freeze(trigger, seconds):
    global paused_at, resume_at
    group(signal.SIGSTOP)
    paused_at, resume_at = time.time(), (time.time() + seconds if seconds else None)
    token = disarm() if trigger == "critical-window" else None  # the frozen program's write_sent goes in now
    event("pause_started", {"trigger": trigger, "exec": shown}, token)

def resume():
    global paused_at, resume_at
    disarm()
    if paused_at is not None:  # recorded before the thaw: its held-back write goes out the moment it runs
        try:
            event("pause_ended", {"frozenMs": round((time.time() - paused_at) * 1000), "exec": shown})
        finally:
            group(signal.SIGCONT)
            paused_at, resume_at = None, None

def stop_child(reason):
    with suppress(psycopg.Error):  # the database away: the window goes with the session
        disarm()
    group(signal.SIGCONT)
    group(signal.SIGTERM)
    try:
        child.wait(3)
    except subprocess.TimeoutExpired:
        group(signal.SIGKILL)
    child.wait()
    return finish("worker_stopped", reason, 0)

def run():
    global armed
    woken.wait(1)  # a program that ends within 1 s could not run: its first and last lines of stderr say why
    if child.poll() is not None and not told:
        reader.join(1)
        lines = "".join(stderr).strip().split("\n")
        lines = "\n".join(lines if len(lines) <= 6 else lines[:3] + ["…"] + lines[-3:])
        print(f"{json.dumps(command)} could not run: {end_words(child.returncode)} within 1 s"
              f"{', saying:' + chr(10) + lines if lines else ''}", file=sys.stderr, flush=True)
        return finish("worker_stopped", f"{end_words(child.returncode)} at once", 1)
    stops = {"reset": "the lab was reset since this worker joined it: the database refuses its leases and writes "
             "(start it again to join the new run)", "closed": "the lab was closed",
             "taken_over": "another worker took this name over (this one was silent too long)"}
    while True:
        if child.poll() is not None:
            return finish("worker_stopped", end_words(child.returncode), 0 if child.returncode == 0 else 1)
        if told:
            return stop_child("its runner was stopped with Ctrl-C (SIGINT)" if told[0] == "SIGINT"
                              else f"its runner was ended by {told[0]}")
        (stop,), = call("worker_beat", "running" if paused_at is None else "paused", None, None, bool(armed))
        if stop:
            return stop_child(stops.get(stop, stop))
        for _id, command_, seconds in call("worker_take_commands"):
            if command_ == "crash":
                group(signal.SIGKILL)
                child.wait()
                return finish("worker_crashed", "the trainer crashed it (SIGKILL to its process group)", 0)
            if command_ == "stop":
                return stop_child("the trainer stopped it")
            if command_ == "resume":
                resume()
            if command_ == "cancel-pauses":
                disarm()
            if command_ == "pause-now" and paused_at is None:
                disarm()
                freeze("now", seconds)
            if command_ == "arm-critical-pause" and paused_at is None and not armed:
                call("worker_hold_critical_window")  # its next write_sent waits in the database
                armed = [seconds]
        next_beat = time.time() + 0.5
        while armed and paused_at is None and not woken.is_set() and time.time() < next_beat:
            if call("worker_critical_window_reached")[0][0]:  # it has decided to write: freeze it there
                freeze("critical-window", armed[0])
            woken.wait(0.01)
        woken.wait(max(0, min(next_beat, resume_at or next_beat) - time.time()))
        if resume_at is not None and time.time() >= resume_at:
            resume()

try:
    sys.exit(run())
except psycopg.Error as error:
    fail(f"the runner failed: {str(error).strip()}", 1)
finally:
    group(signal.SIGCONT)  # whatever ends me, no process of its group stays
    group(signal.SIGKILL)
    keeper.kill()
