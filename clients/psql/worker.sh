#!/usr/bin/env bash
# A Fencing Lab worker in bash with psql alone (protocol version 1, docs/protocol.md): join a lab,
# take the lease, write with the token it was granted, renew, and treat a refusal as "I lost the
# lease". It writes in the fenced lab, and in the no-fencing lab (worker_broken_write 'plain', which
# checks nothing). One psql session for the whole run (a coprocess); every call is a worker_* function.
#   FENCING_LAB_URL=postgres://fencing_line_…:…@host:port/db FENCING_LAB_LAB=fenced \
#   FENCING_LAB_NAME=Bash [FENCING_LAB_JOIN_KEY=…] clients/psql/worker.sh
# Run by `npm run worker -- --exec clients/psql/worker.sh` (FENCING_LAB_INSTANCE and _KIND set), it neither joins
# nor beats: the runner has, and it freezes this whole process group when the lab pauses the lane.
set -uo pipefail
# Bash 5 (a coprocess, and its own clock: no GNU date needed). macOS's /bin/bash is 3.2: brew install bash.
((BASH_VERSINFO[0] >= 5)) || { echo "this client needs bash 5 or later (this is $BASH_VERSION)" >&2; exit 2; }
url=${FENCING_LAB_URL:?set FENCING_LAB_URL}; lab=${FENCING_LAB_LAB:?set FENCING_LAB_LAB}
name=${FENCING_LAB_NAME:?set FENCING_LAB_NAME}; key=${FENCING_LAB_JOIN_KEY:-}
ttl_ms=${FENCING_LAB_TTL_MS:-2000}; every_s=${FENCING_LAB_WRITE_EVERY_S:-0.3}
[[ $ttl_ms =~ ^[0-9]{3,6}$ && $every_s =~ ^[0-9]{1,3}(\.[0-9]{1,3})?$ ]] || { echo "FENCING_LAB_TTL_MS: ms; FENCING_LAB_WRITE_EVERY_S: s" >&2; exit 2; }
instance=${FENCING_LAB_INSTANCE:-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')}
runner=${FENCING_LAB_INSTANCE:+yes}; kind=${FENCING_LAB_KIND:-}

# psql ignores the stop signals (a group's SIGTERM): this script ends it, by closing its input.
coproc PG { trap '' TERM INT; exec psql "$url" -XAtq -F '|' -v ON_ERROR_STOP=0 2>&1; }
pg_pid=$PG_PID
# One statement on the session; its rows (fields split by |), or "ERROR: …" as psql says it. A mark of
# its own ends its answer: what a call cut short by a signal left unread is skipped, not taken for it.
q() {
  local mark="__done_${RANDOM}${RANDOM}__" line out=''
  [[ -n ${PG[1]:-} ]] && printf '%s;\n\\echo %s\n' "$1" "$mark" >&"${PG[1]}" || { printf 'ERROR: psql ended'; return; }
  while IFS= read -r line <&"${PG[0]}"; do
    [[ $line == "$mark" ]] && { printf '%s' "${out%$'\n'}"; return; }
    [[ $line == __done_*__ ]] && { out=''; continue; }
    out+=$line$'\n'
  done
  printf 'ERROR: psql ended'
}
lit() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }          # a SQL string literal
me="$(lit "$lab"), $(lit "$name"), $(lit "$instance")"
event() { q "SELECT worker_record_event($me, $(lit "$1"), ${2:-NULL}, $(lit "${3:-{\}}")::jsonb)" >/dev/null; }
fail() { echo "$name: $*" >&2; exit 1; }
now_ms() { local us=${EPOCHREALTIME//[!0-9]/}; echo $((us / 1000)); }  # this machine's clock, in ms

if [[ -z $runner ]]; then
settings="{\"name\": \"$name\", \"protocol\": 1, \"leaseTtlMs\": $ttl_ms}"
joined=$(q "SELECT refusal, generation, kind FROM worker_join($(lit "$lab"), $(lit "$name"), $(lit "$instance"), $(lit "$settings")::jsonb, $([[ -n $key ]] && lit "$key" || echo NULL))")
[[ $joined == ERROR* ]] && fail "$joined"
IFS='|' read -r refusal _generation kind <<<"$joined"
[[ -n $refusal ]] && fail "the lab refused me: $refusal"
q "SELECT worker_record_origin($me, NULL)" >/dev/null
event worker_started NULL '{"remote": true, "client": "psql"}'
fi
[[ $kind == fenced || $kind == no-fencing ]] || fail "this client writes in the fenced and no-fencing labs (this one is ${kind:-unknown})"
echo "$name writes in $lab"

write=worker_fenced_write; mode=''; [[ $kind == fenced ]] || { write=worker_broken_write; mode="$(lit plain), "; }
stopping=''
trap 'stopping="a stop signal"' TERM INT
token=''; until_ms=0; writes=0; next_renew_ms=0

while [[ -z $stopping ]]; do
  kill -0 "$pg_pid" 2>/dev/null || fail "psql ended (is FENCING_LAB_URL right?)"
  if [[ -z $runner ]]; then
    phase=$([[ -n $token ]] && echo holding || echo acquiring)
    told=$(q "SELECT worker_beat($me, $(lit "$phase"), ${token:-NULL}, NULL, false)")
    [[ -n $told ]] && { stopping="the lab said: $told"; break; }
    while IFS='|' read -r _id command _seconds; do
      case $command in stop) stopping='a stop from the lab' ;; crash) kill -9 $$ ;; esac
    done <<<"$(q "SELECT * FROM worker_take_commands($me)")"
    [[ -n $stopping ]] && break
  fi
  now=$(now_ms)
  if [[ -z $token ]]; then
    IFS='|' read -r outcome _r _h granted _rest <<<"$(q "SELECT * FROM worker_acquire_lease($me, $ttl_ms)")"
    if [[ $outcome == granted ]]; then
      token=$granted; until_ms=$((now + ttl_ms)); next_renew_ms=$((now + ttl_ms / 3))
      printf 'I hold token %s until %(%T)T (by my own clock)\n' "$token" $((until_ms / 1000))
    fi
  elif ((now >= until_ms)); then
    echo "my lease (token $token) ran out by my own clock: I lost the lease"; event lease_lost "$token"; token=''
  elif ((now >= next_renew_ms)); then
    IFS='|' read -r outcome _rest <<<"$(q "SELECT * FROM worker_renew_lease($me, $token, $ttl_ms)")"
    if [[ $outcome == renewed ]]; then
      until_ms=$((now + ttl_ms)); next_renew_ms=$((now + ttl_ms / 3))
    else echo "my renewal of token $token was refused: I lost the lease"; event lease_lost "$token"; token=''; fi
  else
    writes=$((writes + 1)); value="$name-$writes"
    event write_sent "$token" "{\"value\": \"$value\"}"
    IFS='|' read -r outcome _row stored <<<"$(q "SELECT * FROM $write($me, $mode$(lit "$value"), $token)")"
    if [[ $outcome == accepted ]]; then echo "wrote $value with token $token"
    elif [[ $outcome == stale ]]; then
      echo "my write with token $token was rejected: the row holds $stored. I lost the lease"; event lease_lost "$token"; token=''
    else fail "the write failed: $outcome"; fi
  fi
  sleep "$every_s"
done

[[ -n $token ]] && q "SELECT * FROM worker_release_lease($me, $token)" >/dev/null
if [[ -z $runner ]]; then
  event worker_stopped NULL "{\"reason\": \"${stopping//\"/\'}\"}"
  q "SELECT worker_mark_stopped($me)" >/dev/null
fi
echo "$name stopped: $stopping"
