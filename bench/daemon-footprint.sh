#!/usr/bin/env bash
# livelocd's footprint beside gpsd's, measured in one run: a real gpsd (through gpsfake, on a free
# loopback port) replays the 20-min drive at 1 Hz; livelocd watches it.
#   idle:   connected to gpsd, fixes arriving at 1 Hz, no share        (IDLE_SECONDS, default 30)
#   share:  a 15-min share started with `liveloc start`, 1 update/s   (SHARE_SECONDS, default 30)
# For each phase: livelocd's RSS (VmRSS at the end, KiB), CPU time used (ms, utime + stime from
# /proc/PID/stat), and wake-ups: voluntary context switches summed over its threads
# (/proc/PID/task/*/status), per second and per fix (fixes counted by livelocd's status), and CPU
# seconds per hour at this rate. gpsd's RSS, CPU and wake-ups in the same window are the reference.
# Targets in a share (issue 22): at most 4 wake-ups per fix, CPU per hour no more than gpsd's.
#   burst:  BURST_CONNECTIONS (default 28,000) `status` requests, each on its own control connection,
#           8 at a time (scripts/control-flood.py burst), while the share runs
# Target: livelocd RSS within 3x gpsd's; RSS after the burst within 2 MB (2048 KiB) of before it
# (a connection's state is freed when it closes).
# WEBHOOK=1 also configures a webhook sink (scripts/webhook-receiver.py on loopback, http://): the
# built-in HTTP/1.1 client sends to it; livelocd must not load libcurl (only https:// does), and the
# bench says whether it did.
# MQTT=1 also configures an MQTT destination (Debian's mosquitto on free loopback ports, its own
# configuration: one listener for livelocd, another for the bench's mosquitto_sub, which counts what
# arrives): livelocd links libmosquitto (and libssl), and must not load libcurl; the bench says
# whether it did.
# TLS=1 (with any destination below) makes the destinations https:// and mqtts://: a throwaway
# CA and a server certificate for 127.0.0.1 are made with openssl in the bench's temporary
# directory; the loopback HTTP servers serve TLS with it (--tls-cert), mosquitto's livelocd listener
# too (certfile/keyfile), and livelocd trusts the CA through webhook.ca_file, mqtt.ca_file,
# telegram.ca_file and traccar.ca_file. An https:// destination loads libcurl (expected).
# TELEGRAM=1 also configures Telegram (scripts/telegram-bot-api.py on loopback, the Bot API's
# contract: telegram.api_url, chat 42, a token file of the owner's only); TRACCAR=1 Traccar
# (scripts/osmand-server.py on loopback, the OsmAnd protocol: traccar.url, device id footprint).
# Over http:// both use the built-in HTTP/1.1 client: livelocd must not load libcurl; the bench
# says whether it did.
# BIN=DIR runs the livelocd and liveloc in DIR instead of building them; SMAPS_DIR=DIR keeps livelocd's
# /proc/PID/{smaps,smaps_rollup,maps} (and gpsd's smaps_rollup) at the end of the share there.
# CONTROL_GROUP=NAME sets control.group. By default the daemon is measured as installed, its control
# group in /etc/group: livelocd-ctl where systemd-sysusers made it, else the caller's primary group.
# A group that /etc/group lacks makes glibc map its NSS modules (libnss_systemd, ~0.3 MB on Debian 12).
# COLD=1 first drops livelocd's file from the page cache (posix_fadvise DONTNEED), so that the daemon
# reads its code from disk as after a boot. Without it, a binary that the linker has just written is
# still in the page cache in large folios, which Linux 6.18 maps whole at a fault: 0.3-0.4 MB more
# RSS than the same file read from disk (measured with the release livelocd of 2026-12-03).
# The last line says whether the release livelocd links Swift's regex engine (_StringProcessing,
# 1 MB of code): daemon-side code searches text with LiveLocation's firstUTF8Range/containsUTF8.
# CAPTURE=1 (with any destination above) also captures each destination's traffic on loopback during
# the share with tcpdump (Debian's tcpdump, not in scripts/install-deps: no test uses it) and prints,
# per destination, the bytes on the wire per update, each direction (docs/wire-bytes.md). The
# capture starts once livelocd holds its connection to every destination (the share's first request
# opened it), so that it holds kept-alive traffic only; a connection opened in it is counted and said.
# SYNC_DELAY=DURATION sets journal.sync_delay (default off: every update synced before it leaves):
# one disk sync then carries the updates of up to that long (3s at 1 Hz: about 3 of them).
# usage: [SYNC_DELAY=3s] [WEBHOOK=1] [MQTT=1] [TELEGRAM=1] [TRACCAR=1] [TLS=1] [CAPTURE=1] [BIN=DIR] [SMAPS_DIR=DIR]
#        [CONTROL_GROUP=NAME] [COLD=1] bench/daemon-footprint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
IDLE_SECONDS=${IDLE_SECONDS:-30}
SHARE_SECONDS=${SHARE_SECONDS:-30}
BURST_CONNECTIONS=${BURST_CONNECTIONS:-28000}
work=$(mktemp -d)
pids=()
# Stopped in reverse order of start, livelocd first and waited for (at most 10 s), so that it never
# sees gpsd or a destination go away while it runs (scripts/text-order traces what it runs: a
# reconnection at the end would come and go from run to run).
cleanup() {
    if [ -n "${daemon:-}" ]; then
        kill -TERM -- "-$daemon" 2>/dev/null || kill -TERM "$daemon" 2>/dev/null || true
        for _ in $(seq 100); do   # until it has exited (a zombie, not yet reaped, counts as gone)
            state=$(sed 's/.*) //' "/proc/$daemon/stat" 2>/dev/null | cut -d' ' -f1) || break
            [ -n "$state" ] && [ "$state" != Z ] || break
            sleep 0.1
        done
    fi
    for (( i = ${#pids[@]} - 1; i >= 0; i-- )); do
        kill -TERM -- "-${pids[i]}" 2>/dev/null || kill -TERM "${pids[i]}" 2>/dev/null || true
    done
    sleep 0.5
    rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${BIN:-}" ]; then
    bin=$BIN   # binaries built elsewhere (e.g. two variants measured one after the other)
else
    swift build -c release --product livelocd >/dev/null
    swift build -c release --product liveloc >/dev/null
    bin=.build/release
fi

# One epoch = RMC, VTG, GGA: at a third of a second per sentence, gpsfake sends 1 fix per second.
grep -E '^\$GN(RMC|VTG|GGA),' Fixtures/drive-multignss-1hz.nmea >"$work/drive-1hz.nmea"
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port)
TMPDIR=$work setsid /usr/bin/python3 /usr/bin/gpsfake -1 -p -q -c 0.333 -P "$port" "$work/drive-1hz.nmea" >/dev/null 2>"$work/gpsfake.err" &
pids+=($!)
gpsfake=$!

mkdir -p "$work/state"
if [ -z "${CONTROL_GROUP:-}" ]; then
    CONTROL_GROUP=livelocd-ctl
    grep -q '^livelocd-ctl:' /etc/group || CONTROL_GROUP=$(id -gn)
fi
group_label="control group $CONTROL_GROUP ($(grep -q "^$CONTROL_GROUP:" /etc/group && echo "in /etc/group" || echo "NOT in /etc/group: NSS modules mapped"))"
common=(--state_directory "$work/state" --control.socket "$work/control.sock" --sinks.stdout true
        --control.group "$CONTROL_GROUP" --journal.sync_delay "${SYNC_DELAY:-off}")
sinks_label="stdout"
[ "${SYNC_DELAY:-off}" = off ] || sinks_label="stdout (journal.sync_delay $SYNC_DELAY)"
# Starts scripts/NAME (a loopback server that prints "listening PORT" once it accepts) on a free
# port with ARGS; sets server_port.
start_loopback_server() { # NAME ARGS...
    local name=$1; shift
    mkfifo "$work/$name.out"
    setsid /usr/bin/python3 "scripts/$name" "$@" --port 0 >"$work/$name.out" 2>"$work/$name.err" &
    pids+=($!)
    server_port=
    read -r _ server_port <"$work/$name.out" || true
    if [ -z "$server_port" ]; then echo "scripts/$name did not start:" >&2; cat "$work/$name.err" >&2; exit 1; fi
}
# Each destination as "NAME PORT RECORDS" (RECORDS: the file of requests its server saw, or -): the
# capture's and the summaries' list.
destinations=()
if [ "${TLS:-0}" = 1 ]; then
    # A throwaway CA and a server certificate it signed for 127.0.0.1 (P-256, valid one day).
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyAgreement\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n' \
        >"$work/server.ext"
    { openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/ca.key" -out "$work/ca.crt" \
          -days 1 -subj "/CN=livelocd bench CA" -addext basicConstraints=critical,CA:TRUE \
          -addext keyUsage=critical,keyCertSign,cRLSign &&
      openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/server.key" -out "$work/server.csr" \
          -subj /CN=127.0.0.1 &&
      openssl x509 -req -in "$work/server.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 1 \
          -extfile "$work/server.ext" -out "$work/server.crt"; } 2>"$work/openssl.err" ||
        { echo "openssl could not make the bench's certificates:" >&2; cat "$work/openssl.err" >&2; exit 1; }
fi
# The loopback HTTP servers' TLS arguments and the scheme of their URLs.
tls_arguments=() http_scheme=http
if [ "${TLS:-0}" = 1 ]; then tls_arguments=(--tls-cert "$work/server.crt" --tls-key "$work/server.key") http_scheme=https; fi
if [ "${WEBHOOK:-0}" = 1 ]; then
    (umask 077 && echo "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" >"$work/secret")  # owner-only, as livelocd requires
    start_loopback_server webhook-receiver.py --secret-file "$work/secret" --records "$work/records" "${tls_arguments[@]}"
    hook_port=$server_port
    common+=(--webhook.url "$http_scheme://127.0.0.1:$hook_port/hook" --webhook.secret_file "$work/secret")
    if [ "${TLS:-0}" = 1 ]; then common+=(--webhook.ca_file "$work/ca.crt"); fi
    destinations+=("webhook $hook_port $work/records")
    sinks_label="$sinks_label, a webhook ($http_scheme://, loopback receiver on port $hook_port)"
fi
if [ "${MQTT:-0}" = 1 ]; then
    mqtt_port=$(free_port) sub_port=$(free_port)
    printf 'per_listener_settings false\nallow_anonymous true\npersistence false\nuser %s\nlog_dest file %s/mosquitto.log\nlistener %s 127.0.0.1\nlistener %s 127.0.0.1\n' \
        "$(id -un)" "$work" "$sub_port" "$mqtt_port" >"$work/mosquitto.conf"
    scheme=mqtt
    if [ "${TLS:-0}" = 1 ]; then   # livelocd's listener (the last one) over TLS
        printf 'cafile %s\ncertfile %s\nkeyfile %s\n' "$work/ca.crt" "$work/server.crt" "$work/server.key" >>"$work/mosquitto.conf"
        scheme=mqtts
    fi
    # The Python wrapper clears an inherited signal mask, so that SIGTERM stops the broker.
    setsid /usr/bin/python3 -c 'import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])' \
        /usr/sbin/mosquitto -c "$work/mosquitto.conf" 2>"$work/mosquitto.err" &
    pids+=($!)
    for _ in $(seq 100); do
        /usr/bin/python3 -c "import socket; socket.create_connection(('127.0.0.1', $mqtt_port), 0.2); socket.create_connection(('127.0.0.1', $sub_port), 0.2)" 2>/dev/null && break
        sleep 0.05
    done
    setsid mosquitto_sub -p "$sub_port" -t 'livelocd/footprint/events' -q 1 >"$work/mqtt-events" 2>/dev/null &
    pids+=($!)
    common+=(--mqtt.url "$scheme://127.0.0.1:$mqtt_port" --mqtt.device footprint)
    if [ "${TLS:-0}" = 1 ]; then common+=(--mqtt.ca_file "$work/ca.crt"); fi
    destinations+=("mqtt $mqtt_port -")
    sinks_label="$sinks_label, MQTT ($scheme://, mosquitto on port $mqtt_port)"
fi
if [ "${TELEGRAM:-0}" = 1 ]; then
    telegram_token="123456789:AAH-footprint_Loopback-token"
    (umask 077 && echo "$telegram_token" >"$work/telegram-token")  # owner-only, as livelocd requires
    start_loopback_server telegram-bot-api.py --token "$telegram_token" --records "$work/telegram-records" --chats 42 \
        "${tls_arguments[@]}"
    telegram_port=$server_port
    common+=(--telegram.chat 42 --telegram.token_file "$work/telegram-token" --telegram.api_url "$http_scheme://127.0.0.1:$telegram_port")
    if [ "${TLS:-0}" = 1 ]; then common+=(--telegram.ca_file "$work/ca.crt"); fi
    destinations+=("telegram $telegram_port $work/telegram-records")
    sinks_label="$sinks_label, Telegram ($http_scheme://, loopback Bot API on port $telegram_port)"
fi
if [ "${TRACCAR:-0}" = 1 ]; then
    start_loopback_server osmand-server.py --devices footprint --records "$work/traccar-records" "${tls_arguments[@]}"
    traccar_port=$server_port
    common+=(--traccar.url "$http_scheme://127.0.0.1:$traccar_port" --traccar.device_id footprint)
    if [ "${TLS:-0}" = 1 ]; then common+=(--traccar.ca_file "$work/ca.crt"); fi
    destinations+=("traccar $traccar_port $work/traccar-records")
    sinks_label="$sinks_label, Traccar ($http_scheme://, loopback OsmAnd server on port $traccar_port)"
fi
source_label="gpsd (gpsfake, port $port, 1 fix/s)"
cache_label="livelocd's file as the page cache holds it"
if [ "${COLD:-0}" = 1 ]; then
    /usr/bin/python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY); os.fsync(fd); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$bin/livelocd"
    cache_label="livelocd's file dropped from the page cache first (COLD=1)"
fi
setsid "$bin/livelocd" --source gpsd --gpsd.host 127.0.0.1 --gpsd.port "$port" "${common[@]}" \
    >"$work/events" 2>"$work/livelocd.err" &
pids+=($!)
daemon=$!
sleep 1
if ! kill -0 "$daemon" 2>/dev/null; then
    if grep -q "not available in this build" "$work/livelocd.err"; then
        # A livelocd without its gpsd source yet: the same fixes at 1 Hz from a replay instead.
        source_label="REPLAY of the same log at 1 fix/s (this livelocd has no gpsd source: $(tail -1 "$work/livelocd.err"))"
        setsid "$bin/livelocd" --source replay --replay.file "$work/drive-1hz.nmea" --replay.speed 1 "${common[@]}" \
            >"$work/events" 2>"$work/livelocd.err" &
        pids+=($!)
        daemon=$!
    else
        echo "livelocd exited:" >&2; cat "$work/livelocd.err" >&2; exit 1
    fi
fi

# Wait (bounded) for livelocd to have fixes from gpsd.
for _ in $(seq 100); do
    "$bin/liveloc" status --json --socket "$work/control.sock" 2>/dev/null | grep -Eq "\"fix\" *: *true" && break
    sleep 0.2
done
# gpsfake's own gpsd (its child), not another gpsd on the machine (`ps --ppid P -C gpsd` selects
# either: a test's gpsd elsewhere would be measured, then vanish).
gpsd=$(pgrep -P "$gpsfake" -x gpsd | head -1 || true)

rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
# Per thread (TID, then the figure), so that a window's difference counts threads that started in it
# and leaves out those that ended (libdispatch's idle workers exit after a few seconds; a sum over
# the live threads would go down).
cpu_ns() { for t in /proc/"$1"/task/*; do echo "${t##*/} $(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)"; done; }
wakeups() { for t in /proc/"$1"/task/*; do echo "${t##*/} $(awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status" 2>/dev/null || echo 0) $(tr ' ' _ <"$t/comm" 2>/dev/null)"; done; }
# Where the wake-ups of a window went: per thread name (threads of one name summed), largest first.
by_thread() { awk 'NR == FNR { before[$1] = $2; next } { n[$3] += $2 - ($1 in before ? before[$1] : 0) }
    END { for (t in n) if (n[t] > 0) printf "%s %d\n", t, n[t] }' "$1" "$2" | sort -k2,2nr | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $1, $2 } END { print "" }'; }
# The growth between two per-thread snapshots (files): threads in both, plus new threads whole.
grown() { awk 'NR == FNR { before[$1] = $2; next } { total += $2 - ($1 in before ? before[$1] : 0) } END { print total + 0 }' "$1" "$2"; }

fixes() { "$bin/liveloc" status --json --socket "$work/control.sock" | /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["source"]["fixesReceived"])'; }

measure() { # NAME SECONDS
    local e0 e1 f0 f1 fixes_in wakes gwakes cpu gcpu
    f0=$(fixes)  # read outside the window: a status request wakes livelocd too
    cpu_ns "$daemon" >"$work/c0"; wakeups "$daemon" >"$work/w0"; cpu_ns "$gpsd" >"$work/gc0"; wakeups "$gpsd" >"$work/gw0"
    e0=$(grep -c '"event":"updated"' "$work/events" || true)
    sleep "$2"
    cpu_ns "$daemon" >"$work/c1"; wakeups "$daemon" >"$work/w1"; cpu_ns "$gpsd" >"$work/gc1"; wakeups "$gpsd" >"$work/gw1"
    e1=$(grep -c '"event":"updated"' "$work/events" || true)
    f1=$(fixes)
    fixes_in=$((f1 - f0))
    wakes=$(grown "$work/w0" "$work/w1") gwakes=$(grown "$work/gw0" "$work/gw1")
    cpu=$(grown "$work/c0" "$work/c1") gcpu=$(grown "$work/gc0" "$work/gc1")
    printf '%-6s %4ds %8d %7.1f %7d %9s %6d %6d %8s %8s | %7.1f %8s %8s %8d\n' "$1" "$2" "$(rss "$daemon")" \
        "$(awk -v n="$cpu" 'BEGIN { print n / 1e6 }')" "$wakes" \
        "$(awk -v w="$wakes" -v s="$2" 'BEGIN { printf "%.1f", w / s }')" $((e1 - e0)) $fixes_in \
        "$(awk -v w="$wakes" -v f=$fixes_in 'BEGIN { printf "%.2f", f ? w / f : 0 }')" \
        "$(awk -v n="$cpu" -v s="$2" 'BEGIN { printf "%.2f", n / 1e9 * 3600 / s }')" \
        "$(awk -v n="$gcpu" 'BEGIN { print n / 1e6 }')" \
        "$(awk -v w="$gwakes" -v f=$fixes_in 'BEGIN { printf "%.2f", f ? w / f : 0 }')" \
        "$(awk -v n="$gcpu" -v s="$2" 'BEGIN { printf "%.2f", n / 1e9 * 3600 / s }')" "$(rss "$gpsd")"
    echo "       wake-ups by thread: $(by_thread "$work/w0" "$work/w1")"
}

echo "livelocd ($bin) fixes from $source_label, sinks: $sinks_label; $group_label; $cache_label;" \
    "$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "wake-ups: voluntary context switches of all threads; CPU s/h: CPU seconds per hour at this rate; gpsd measured in the same window"
printf '%-6s %5s %8s %7s %7s %9s %6s %6s %8s %8s | %7s %8s %8s %8s\n' phase time "RSS KiB" "CPU ms" wakeups "wakeups/s" updates fixes "wake/fix" "CPU s/h" \
    "gpsd ms" "wake/fix" "CPU s/h" "RSS KiB"
measure idle "$IDLE_SECONDS"
"$bin/liveloc" start --duration 15m --socket "$work/control.sock" >/dev/null
# CAPTURE=1: each destination's traffic on loopback during the share (tcpdump), in bytes per update.
records_count() { if [ "$1" = - ] || [ ! -f "$1" ]; then echo 0; else grep -c . "$1" || true; fi; }
if [ "${CAPTURE:-0}" = 1 ] && [ ${#destinations[@]} -gt 0 ]; then
    # Once livelocd holds its connection to each destination (bounded: 10 s each), the window sees
    # kept-alive connections only: the TCP and TLS handshakes came before it.
    filter=()
    for d in "${destinations[@]}"; do
        read -r name dport _ <<<"$d"
        for _ in $(seq 100); do
            ss -tnpH state established "dport = :$dport" | grep -q "pid=$daemon," && break
            sleep 0.1
        done
        ss -tnpH state established "dport = :$dport" | grep -q "pid=$daemon," || echo "capture: livelocd has no connection to $name (port $dport) yet" >&2
        filter+=(${filter[@]:+or} tcp port "$dport")
    done
    tcpdump -i lo -s 96 -w "$work/share.pcap" "${filter[@]}" 2>"$work/tcpdump.err" &
    tcpdump_pid=$!
    for _ in $(seq 100); do grep -q "listening on" "$work/tcpdump.err" && break; sleep 0.05; done
    requests0=()
    for d in "${destinations[@]}"; do read -r _ _ records <<<"$d"; requests0+=("$(records_count "$records")"); done
fi
u0=$(grep -c '"event":"updated"' "$work/events" || true)
measure share "$SHARE_SECONDS"
if [ -n "${tcpdump_pid:-}" ]; then
    u1=$(grep -c '"event":"updated"' "$work/events" || true)
    kill -INT "$tcpdump_pid"; wait "$tcpdump_pid" 2>/dev/null || true
    counted=()   # NAME:PORT:REQUESTS (-1: not counted) per destination
    for i in "${!destinations[@]}"; do
        read -r name dport records <<<"${destinations[i]}"
        if [ "$records" = - ]; then counted+=("$name:$dport:-1"); else counted+=("$name:$dport:$(( $(records_count "$records") - requests0[i] ))"); fi
    done
    /usr/bin/python3 - "$work/share.pcap" $((u1 - u0)) "${counted[@]}" <<'PY'
import struct, sys
path, updates = sys.argv[1], int(sys.argv[2])
destinations = [(name, int(port), int(requests)) for name, port, requests in (a.split(":") for a in sys.argv[3:])]
ports = {port: name for name, port, _ in destinations}
totals = {(name, side): [0, 0, 0] for name in ports.values() for side in ("to", "from")}  # bytes, packets, TCP payload
opened = {name: 0 for name in ports.values()}
data = open(path, "rb").read()
offset = 24
while offset + 16 <= len(data):
    _, _, captured, original = struct.unpack("<IIII", data[offset:offset + 16])
    frame = data[offset + 16:offset + 16 + captured]
    offset += 16 + captured
    ip = frame[14:]  # loopback frames carry a 14-byte Ethernet header that no wire has: left out
    header = (ip[0] & 15) * 4
    source, destination = struct.unpack(">HH", ip[header:header + 4])
    flags = ip[header + 13]
    name, side = (ports[source], "from") if source in ports else (ports[destination], "to")
    totals[name, side][0] += original - 14
    totals[name, side][1] += 1
    totals[name, side][2] += struct.unpack(">H", ip[2:4])[0] - header - (ip[header + 12] >> 4) * 4
    if side == "to" and flags & 0x12 == 0x02:  # a SYN: a connection opened in the window
        opened[name] += 1
per = lambda n: n / updates if updates else 0
print(f"on the wire (IP + TCP + TLS + payload, loopback capture of livelocd's connections): {updates} updates")
for name, port, requests in destinations:
    (to, to_packets, to_payload), (back, back_packets, back_payload) = totals[name, "to"], totals[name, "from"]
    print(f"  {name} (port {port}): to it {to} bytes in {to_packets} packets ({per(to):.0f} B/update, "
          f"{per(to_packets):.1f} packets, {per(to_payload):.0f} B of TCP payload), back {back} bytes in {back_packets} "
          f"packets ({per(back):.0f} B/update, {per(back_packets):.1f} packets, {per(back_payload):.0f} B of TCP payload)"
          + (f"; {requests} requests at the server" if requests >= 0 else "")
          + (f"; {opened[name]} connection(s) opened in the window (NOT kept alive)" if opened[name] else "; no connection opened"))
PY
fi
if [ -n "${SMAPS_DIR:-}" ]; then   # livelocd's mappings at the end of the share, for a closer look
    mkdir -p "$SMAPS_DIR"
    for f in smaps smaps_rollup maps; do cat "/proc/$daemon/$f" >"$SMAPS_DIR/livelocd.$f"; done
    if [ -n "$gpsd" ]; then cat "/proc/$gpsd/smaps_rollup" >"$SMAPS_DIR/gpsd.smaps_rollup"; fi
fi
if [ -n "$gpsd" ]; then
    ratio=$(awk -v a="$(rss "$daemon")" -v b="$(rss "$gpsd")" 'BEGIN { printf "%.2f", a / b }')
    verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 3 ? "met" : "NOT met") }')
    echo "livelocd RSS / gpsd RSS = $ratio; target <= 3x: $verdict"
    for pid in "$daemon" "$gpsd"; do
        awk -v name="$(cat /proc/$pid/comm)" '/^Rss(Anon|File|Shmem)/ { parts = parts " " $1 " " $2 " KiB" }
            END { print "  " name ":" parts " (RssFile: mapped libraries and files)" }' "/proc/$pid/status"
    done
else
    echo "gpsd's process not found (gpsfake's child); no ratio"
fi

if [ "${MQTT:-0}" = 1 ]; then
    maps=$(awk '$6 ~ /^\// { n = split($6, p, "/"); print p[n] }' "/proc/$daemon/maps" | sort -u)
    echo "MQTT: $(grep -c . "$work/mqtt-events" || true) events on the broker so far;" \
        "libmosquitto mapped: $(grep -q '^libmosquitto' <<<"$maps" && echo yes || echo no)"
fi

# The HTTP destinations' requests at their servers; whether libcurl was loaded (only an https://
# destination loads it: http:// goes through the built-in client, MQTT through libmosquitto).
if [ ${#destinations[@]} -gt 0 ]; then
    counts=""
    for d in "${destinations[@]}"; do
        read -r name _ records <<<"$d"
        if [ "$records" != - ]; then counts="$counts${counts:+, }$name $(records_count "$records")"; fi
    done
    if [ -n "$counts" ]; then echo "HTTP: requests at the servers so far: $counts"; fi
    maps=$(awk '$6 ~ /^\// { n = split($6, p, "/"); print p[n] }' "/proc/$daemon/maps" | sort -u)
    mapped=$(grep -q '^libcurl' <<<"$maps" && echo yes || echo no)
    expected=no
    if [ "${TLS:-0}" = 1 ] && { [ "${WEBHOOK:-0}" = 1 ] || [ "${TELEGRAM:-0}" = 1 ] || [ "${TRACCAR:-0}" = 1 ]; }; then expected=yes; fi
    echo "libcurl mapped: $mapped ($([ "$mapped" = "$expected" ] && echo "expected" || echo "NOT expected"): only an https:// destination loads it)"
fi

# The burst comes last, so that it touches none of the figures above; the share is still running.
fds() { ls "/proc/$1/fd" | wc -l; }
rss_before=$(rss "$daemon") fds_before=$(fds "$daemon")
burst=$(/usr/bin/python3 scripts/control-flood.py burst --socket "$work/control.sock" --connections "$BURST_CONNECTIONS" --parallel 8)
sleep 1
rss_after=$(rss "$daemon") fds_after=$(fds "$daemon")
echo "burst: $BURST_CONNECTIONS status connections ($burst); RSS $rss_before -> $rss_after KiB" \
    "(+$((rss_after - rss_before)) KiB; target <= 2048: $([ $((rss_after - rss_before)) -le 2048 ] && echo met || echo NOT met));" \
    "descriptors $fds_before -> $fds_after"
"$bin/liveloc" stop --socket "$work/control.sock" >/dev/null || true
echo "regex engine (_StringProcessing) linked into livelocd: $(nm "$bin/livelocd" 2>/dev/null | grep -q 17_StringProcessing && echo "yes (NOT expected: see docs/benchmarks.md)" || echo "no (expected)")"
