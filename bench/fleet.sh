#!/usr/bin/env bash
# A fleet on one broker: N livelocd daemons (default 50), each replaying a bundled drive at 1 fix/s
# on the wall clock and publishing to one local mosquitto (Debian's, on a free loopback port, its
# own configuration), with a subscriber (python3-paho-mqtt) counting what arrives on livelocd/+/events.
# Prints: events sent and received (target: all), latency from an event on livelocd's stdout to the
# subscriber (p50/p99), RSS and CPU per daemon, and the broker's CPU. Driver: bench/fleet-driver.py.
# usage: [DAEMONS=50] [DURATION=60] bench/fleet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
DAEMONS=${DAEMONS:-50}
DURATION=${DURATION:-60}
work=$(mktemp -d)
broker=""
cleanup() {
    [ -n "$broker" ] && kill -TERM "$broker" 2>/dev/null || true
    [ "${KEEP:-0}" = 1 ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT

if [ "${BUILD:-1}" = 1 ]; then
    swift build -c release --product livelocd >/dev/null
    swift build -c release --product liveloc >/dev/null
fi

port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$work/mosquitto.conf" <<EOF
listener $port 127.0.0.1
allow_anonymous true
persistence false
max_queued_messages 100000
log_dest file $work/mosquitto.log
user $(id -un)
EOF
# The Python wrapper clears an inherited signal mask, so that SIGTERM stops the broker.
/usr/bin/python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])' \
    /usr/sbin/mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.err" &
broker=$!
for _ in $(seq 100); do
    /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.05
done

ulimit -n 4096 2>/dev/null || true
/usr/bin/python3 bench/fleet-driver.py --bin .build/release --work "$work" --port "$port" --broker-pid "$broker" \
    --daemons "$DAEMONS" --duration "$DURATION" \
    --logs "$PWD/Fixtures/drive-multignss-1hz.nmea" "$PWD/Fixtures/fix-loss.nmea" "$PWD/Fixtures/stationary-jitter.nmea"
