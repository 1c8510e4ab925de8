#!/usr/bin/env bash
# What the path from an event to the disk costs, and how fast a backlog drains, measured in one run.
#
#   1. livelocd on a real gpsd (gpsfake, 1 fix/s) with a webhook on loopback, SHARE_SECONDS (60) of
#      share: bytes written to disk per event (write_bytes in /proc/PID/io) and syncs per event
#      (fsync + fdatasync, counted with strace -f). Targets (issue 32): <= 6 KiB and <= 1.05 syncs per
#      event; <= 3 KiB with SYNC_DELAY=3s (CI's gates, scripts/bench-gates, fail above 8 KiB and 4 KiB).
#   2. bench/webhook-backlog.sh: a 10,000-event backlog drained to a loopback receiver: events/s
#      (target >= 2,000) and CPU per delivered event (target <= 150 us).
# With BASELINE=REV (e.g. BASELINE=e637c5d, the version before the journal), part 1 also runs that
# revision's livelocd (built in a temporary worktree) in the same run, for the reference figures.
# SYNC_DELAY=DURATION sets journal.sync_delay for part 1 (default off: every update synced).
# usage: [SHARE_SECONDS=60] [BASELINE=REV] [PARTS=1] [SYNC_DELAY=3s] bench/durability.sh   (PARTS=1: part 1 only)
set -euo pipefail
cd "$(dirname "$0")/.."
SHARE_SECONDS=${SHARE_SECONDS:-60}
# Issue 32's targets: 6 KiB written per event with every update synced, 3 KiB with a sync delay.
case "${SYNC_DELAY:-off}" in off|0|0s) bytes_target=6144 ;; *) bytes_target=3072 ;; esac
work=$(mktemp -d -p "${BENCH_DIR:-/var/tmp}")
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
    sleep 0.5
    [ -n "${baseline_tree:-}" ] && git worktree remove --force "$baseline_tree" >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
command -v strace >/dev/null || { echo "durability: needs strace (apt-get install strace)" >&2; exit 1; }

swift build -c release --product livelocd >/dev/null
swift build -c release --product liveloc >/dev/null
binaries=("current:$PWD/.build/release")
if [ -n "${BASELINE:-}" ]; then
    baseline_tree="$work/baseline"
    git worktree add --detach "$baseline_tree" "$BASELINE" >/dev/null 2>&1
    (cd "$baseline_tree" && swift build -c release --product livelocd >/dev/null && swift build -c release --product liveloc >/dev/null)
    binaries+=("$BASELINE:$baseline_tree/.build/release")
fi

grep -E '^\$GN(RMC|VTG|GGA),' Fixtures/drive-multignss-1hz.nmea >"$work/drive-1hz.nmea"
echo "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" >"$work/secret"; chmod 600 "$work/secret"

measure() {  # label bin-dir
    local label=$1 bin=$2 run="$work/run-$1"
    mkdir -p "$run/state"
    local port hook_port tracer daemon
    port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    TMPDIR=$run setsid /usr/bin/python3 /usr/bin/gpsfake -1 -p -q -c 0.333 -P "$port" "$work/drive-1hz.nmea" >/dev/null 2>"$run/gpsfake.err" &
    pids+=($!)
    mkfifo "$run/receiver.out"
    setsid /usr/bin/python3 scripts/webhook-receiver.py --secret-file "$work/secret" --records "$run/records" --port 0 \
        >"$run/receiver.out" 2>"$run/receiver.err" &
    pids+=($!)
    read -r _ hook_port <"$run/receiver.out"
    sleep 1
    setsid strace -f -ttt -e trace=fsync,fdatasync -o "$run/strace" "$bin/livelocd" --source gpsd --gpsd.host 127.0.0.1 \
        --gpsd.port "$port" --state_directory "$run/state" --control.socket "$run/control.sock" \
        --webhook.url "http://127.0.0.1:$hook_port/hook" --webhook.secret_file "$work/secret" \
        --journal.sync_delay "${SYNC_DELAY:-off}" >"$run/events" 2>"$run/livelocd.err" &
    tracer=$!
    pids+=($tracer)
    for _ in $(seq 100); do [ -S "$run/control.sock" ] && break; sleep 0.1; done
    daemon=$(pgrep -P "$tracer" livelocd)
    "$bin/liveloc" start --duration 1h --socket "$run/control.sock" >/dev/null
    local before after events
    before=$(awk '/^write_bytes/ {print $2}' "/proc/$daemon/io")
    local window_start; window_start=$(date +%s.%N)
    local events_before; events_before=$(wc -l <"$run/events")
    sleep "$SHARE_SECONDS"
    after=$(awk '/^write_bytes/ {print $2}' "/proc/$daemon/io")
    local window_end; window_end=$(date +%s.%N)
    events=$(( $(wc -l <"$run/events") - events_before ))
    kill -TERM "$daemon"; wait "$tracer" 2>/dev/null || true
    # strace -f -ttt: one line per call, "PID SECONDS.MICROS fdatasync(…"; count the share's window.
    local syncs total
    syncs=$(awk -v a="$window_start" -v b="$window_end" '$3 ~ /^f(data)?sync\(/ && $2 >= a && $2 <= b {n++} END {print n + 0}' "$run/strace")
    total=$(awk '$3 ~ /^f(data)?sync\(/ {n++} END {print n + 0}' "$run/strace")
    awk -v l="$label" -v b=$((after - before)) -v e="$events" -v s="$syncs" -v t="$total" -v m="$bytes_target" 'BEGIN {
        printf "%-10s %6d events in the share: %7.0f bytes written/event (target <= %d), %.2f syncs/event (target <= 1.05; %d syncs in the share, %d in the whole run): %s\n",
               l, e, b / (e ? e : 1), m, s / (e ? e : 1), s, t,
               (b / (e ? e : 1) <= m && s / (e ? e : 1) <= 1.05) ? "met" : "NOT met" }'
}

echo "== 1. the disk, per event: livelocd on gpsd at 1 fix/s with a webhook, journal.sync_delay ${SYNC_DELAY:-off}, ${SHARE_SECONDS} s of share (work dir on $(df --output=source "$work" | tail -1))"
for entry in "${binaries[@]}"; do measure "${entry%%:*}" "${entry#*:}"; done
[ "${PARTS:-12}" = 1 ] && exit 0
echo "== 2. a 10,000-event backlog drained to a loopback receiver"
bench/webhook-backlog.sh 10000
