#!/bin/sh
# Webhook backlog: queue N events (default 10,000) while the receiver is down, then start the
# receiver and measure the drain rate, and the outbox's disk use per event.
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

# Receiver down: nothing listens on the port yet (the sink is not even running: fill only queues).
python3 scripts/webhook-receiver.py --secret-file "$dir/secret" --records "$dir/records.jsonl" >"$dir/port" &
receiver_pid=$!
i=0; until grep -q listening "$dir/port" 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
port=$(sed -n 's/^listening //p' "$dir/port")
kill "$receiver_pid"; wait "$receiver_pid" 2>/dev/null || true; receiver_pid=
url="http://127.0.0.1:$port/hook"
"$bench" fill --state-dir "$dir/state" --url "$url" --secret-file "$dir/secret" --events "$events"

python3 scripts/webhook-receiver.py --secret-file "$dir/secret" --records "$dir/records.jsonl" --port "$port" >"$dir/port2" &
receiver_pid=$!
i=0; until grep -q listening "$dir/port2" 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || exit 1; sleep 0.1; done
"$bench" drain --state-dir "$dir/state" --url "$url" --secret-file "$dir/secret"

python3 - "$dir/records.jsonl" "$events" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
unique = [r for r in records if not r["duplicate"] and r["response"].startswith("2")]
valid = all(r["signature_valid"] for r in records)
print(f"receiver: {len(records)} requests, {len(unique)} unique webhook-ids, signatures all valid: {valid}")
sys.exit(0 if len(unique) == int(sys.argv[2]) and valid else 1)
PY
