#!/usr/bin/env bash
# Webhook backlog: journal N events (default 10,000) while the receiver is down, then drain them,
# printing events/s, the CPU time per delivered event and the journal's disk use per event.
# Two receivers: scripts/webhook-receiver.py (the tests' verifying receiver, Python threads) and
# bench/fast-receiver.py (asyncio, signatures checked after the run), to tell the receiver's limit
# from livelocd's. The reference, same run: the `curl` tool alone, 2,000 keep-alive POSTs of an
# event to the fast receiver (requests/s and CPU per request). The host's load is printed: on a
# shared virtual machine the CPU per event depends on it (waking an idle vCPU is dear).
# Targets (issue 12): >= 2,000 events/s, <= 150 us of CPU per delivered event.
#   bench/webhook-backlog.sh [EVENTS]      (CONFIG=debug to skip the release build)
set -eu
cd "$(dirname "$0")/.."
events=${1:-10000}
config=${CONFIG:-release}
swift build -c "$config" --product webhook-bench >/dev/null
bench=$(swift build -c "$config" --show-bin-path)/webhook-bench
dir=$(mktemp -d "${TMPDIR:-/tmp}/webhook-backlog.XXXXXX")
receiver_pid=
cleanup() { [ -n "$receiver_pid" ] && kill "$receiver_pid" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT INT TERM
printf 'whsec_%s\n' "$(head -c 24 /dev/urandom | base64)" >"$dir/secret"
chmod 600 "$dir/secret"

start_receiver() {  # output-file command...: starts it, waits for "listening PORT", sets $port
    local out=$1; shift
    "$@" >"$out" &
    receiver_pid=$!
    local i=0; until grep -q listening "$out" 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
    port=$(sed -n 's/^listening //p' "$out")
}
stop_receiver() { kill "$receiver_pid"; wait "$receiver_pid" 2>/dev/null || true; receiver_pid=; }

echo "host: $(uptime | sed 's/.*load/load/')"
echo "== the verifying receiver (scripts/webhook-receiver.py)"
# Receiver down: a port where nothing listens while the journal fills.
start_receiver "$dir/port" python3 scripts/webhook-receiver.py --secret-file "$dir/secret" --records "$dir/records.jsonl"
stop_receiver
url="http://127.0.0.1:$port/hook"
"$bench" fill --state-dir "$dir/state" --url "$url" --secret-file "$dir/secret" --events "$events"
start_receiver "$dir/port2" python3 scripts/webhook-receiver.py --secret-file "$dir/secret" --records "$dir/records.jsonl" --port "$port"
"$bench" drain --state-dir "$dir/state" --url "$url" --secret-file "$dir/secret" 2>/dev/null
stop_receiver
python3 - "$dir/records.jsonl" "$events" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
unique = [r for r in records if not r["duplicate"] and r["response"].startswith("2")]
valid = all(r["signature_valid"] for r in records)
print(f"receiver: {len(records)} requests, {len(unique)} unique webhook-ids, signatures all valid: {valid}")
sys.exit(0 if len(unique) == int(sys.argv[2]) and valid else 1)
PY

echo "== the fast receiver (bench/fast-receiver.py)"
start_receiver "$dir/port3" python3 bench/fast-receiver.py --records "$dir/fast.records"
stop_receiver
url="http://127.0.0.1:$port/hook"
"$bench" fill --state-dir "$dir/state2" --url "$url" --secret-file "$dir/secret" --events "$events" >/dev/null
start_receiver "$dir/port4" python3 bench/fast-receiver.py --records "$dir/fast.records" --port "$port"
"$bench" drain --state-dir "$dir/state2" --url "$url" --secret-file "$dir/secret" 2>/dev/null
stop_receiver
echo "receiver: $(python3 bench/fast-receiver.py --verify "$dir/fast.records" --secret-file "$dir/secret")"

echo "== reference: the curl tool, 2,000 keep-alive POSTs to the fast receiver"
start_receiver "$dir/port5" python3 bench/fast-receiver.py --records "$dir/curl.records"
url="http://127.0.0.1:$port/hook"
printf '{"type":"updated","seq":1,"location":{"latitude":48.85,"longitude":2.35}}' >"$dir/body"
urls=$(for _ in $(seq 2000); do printf '%s ' "$url"; done)
# shellcheck disable=SC2086  # one argument per URL: curl reuses its connection between them
/usr/bin/time -f '%e %U %S' -o "$dir/curl.time" curl -s -H 'Content-Type: application/json' -H 'webhook-id: ref' \
    --data-binary @"$dir/body" $urls >/dev/null
stop_receiver
read -r elapsed user system <"$dir/curl.time"
python3 - "$elapsed" "$user" "$system" "$(wc -l <"$dir/curl.records")" <<'PY'
import sys
elapsed, user, system, count = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(f"curl: {count} requests in {elapsed:.2f} s: {count / elapsed:.0f} requests/s; CPU {(user + system) * 1e6 / count:.0f} µs per request")
PY
echo "host: $(uptime | sed 's/.*load/load/')"
