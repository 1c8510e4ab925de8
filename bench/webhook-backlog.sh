#!/usr/bin/env bash
# Webhook backlog: journal N events (default 10,000) while the receiver is down, then drain them,
# printing events/s, the CPU time per delivered event and the journal's disk use per event.
# Two receivers: scripts/webhook-receiver.py (the tests' verifying receiver, Python threads) and
# bench/fast-receiver.py (asyncio, signatures checked after the run), to tell the receiver's limit
# from livelocd's.
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
