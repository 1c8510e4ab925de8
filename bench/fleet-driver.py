#!/usr/bin/python3
"""bench/fleet.sh's driver: N livelocd daemons publishing to one broker, one subscriber counting.

Starts N livelocd (each its own state directory and control socket, a replayed drive at 1 fix/s
on the wall clock, MQTT to the broker as device fleet-NNN), starts a 1-hour share on each, and for
DURATION seconds reads every daemon's stdout (an event's line is timestamped when it arrives here)
while a paho-mqtt subscriber (MQTT 5, QoS 1) on <prefix>/+/events timestamps every event it gets.
Then it stops the shares, waits (bounded) for every `ended`, stops the daemons, and prints:
events sent (stdout lines) and received (distinct shareId+seq on the broker), latency from the
event on livelocd's stdout to the subscriber (p50/p99/max; the fix reaches stdout within about
50 µs, bench/latency.sh), RSS and CPU per daemon, and the broker's CPU.
"""
import argparse
import json
import os
import selectors
import subprocess
import sys
import threading
import time

import paho.mqtt.client as mqtt


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def percentile(values, p):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--broker-pid", type=int, required=True)
    parser.add_argument("--daemons", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60)
    parser.add_argument("--logs", nargs="+", required=True)
    args = parser.parse_args()

    lock = threading.Lock()
    received = {}  # (shareId, seq) -> first arrival time
    duplicates = [0]

    def on_message(client, userdata, message):
        now = time.time()
        try:
            event = json.loads(message.payload)
        except ValueError:
            return
        key = (event.get("shareId"), event.get("seq"))
        with lock:
            if key in received:
                duplicates[0] += 1
            else:
                received[key] = now

    subscribed = threading.Event()
    subscriber = mqtt.Client(client_id="fleet-subscriber", protocol=mqtt.MQTTv5)
    subscriber.on_message = on_message
    subscriber.on_subscribe = lambda *a, **k: subscribed.set()
    subscriber.on_connect = lambda c, u, f, rc, p=None: c.subscribe("livelocd/+/events", qos=1)
    subscriber.connect("127.0.0.1", args.port)
    subscriber.loop_start()
    if not subscribed.wait(10):
        sys.exit("fleet: the subscriber did not subscribe within 10 s")

    daemons = []
    selector = selectors.DefaultSelector()
    for index in range(args.daemons):
        name = f"fleet-{index:03d}"
        directory = os.path.join(args.work, name)
        os.makedirs(os.path.join(directory, "state"), exist_ok=True)
        config = os.path.join(directory, "livelocd.conf")
        open(config, "w").close()
        socket_path = os.path.join(directory, "control.sock")
        log = args.logs[index % len(args.logs)]
        process = subprocess.Popen(
            [f"{args.bin}/livelocd", "--config", config, "--source", "replay", "--replay.file", log,
             "--replay.speed", "1", "--replay.loop", "true", "--state_directory", os.path.join(directory, "state"),
             "--control.socket", socket_path, "--mqtt.url", f"mqtt://127.0.0.1:{args.port}", "--mqtt.device", name],
            stdout=subprocess.PIPE, stderr=open(os.path.join(directory, "livelocd.err"), "w"))
        os.set_blocking(process.stdout.fileno(), False)
        daemon = {"name": name, "process": process, "socket": socket_path, "buffer": b"", "sent": {}, "share": None}
        selector.register(process.stdout, selectors.EVENT_READ, daemon)
        daemons.append(daemon)

    def pump(timeout):
        for key, _ in selector.select(timeout):
            daemon = key.data
            now = time.time()
            try:
                chunk = os.read(key.fileobj.fileno(), 65536)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(key.fileobj)
                continue
            daemon["buffer"] += chunk
            *lines, daemon["buffer"] = daemon["buffer"].split(b"\n")
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                daemon["sent"].setdefault((event["shareId"], event["seq"]), now)

    def wait_ready(daemon, deadline):
        while time.time() < deadline:
            if os.path.exists(daemon["socket"]):
                return True
            pump(0.05)
        return False

    start_deadline = time.time() + 60
    for daemon in daemons:
        if not wait_ready(daemon, start_deadline):
            sys.exit(f"fleet: {daemon['name']} did not open its control socket")
    cpu_before = {d["name"]: cpu_ms(d["process"].pid) for d in daemons}
    broker_before = cpu_ms(args.broker_pid)
    for daemon in daemons:
        out = subprocess.run([f"{args.bin}/liveloc", "start", "--duration", "1h", "--socket", daemon["socket"]],
                             capture_output=True, text=True, timeout=30)
        daemon["share"] = out.stdout.strip()
        pump(0)
    started = time.time()
    while time.time() - started < args.duration:
        pump(0.2)
    cpu_after = {d["name"]: cpu_ms(d["process"].pid) for d in daemons}
    broker_after = cpu_ms(args.broker_pid)
    elapsed = time.time() - started
    rss = [rss_kib(d["process"].pid) for d in daemons]

    for daemon in daemons:
        subprocess.run([f"{args.bin}/liveloc", "stop", "--socket", daemon["socket"]], capture_output=True, timeout=30)
        pump(0)
    drain_deadline = time.time() + 60
    while time.time() < drain_deadline:
        pump(0.2)
        with lock:
            if all(key in received for d in daemons for key in d["sent"]):
                break
    for daemon in daemons:
        daemon["process"].terminate()
    for daemon in daemons:
        try:
            daemon["process"].wait(10)
        except subprocess.TimeoutExpired:
            daemon["process"].kill()
    subscriber.loop_stop()

    with lock:
        sent = {key: t for d in daemons for key, t in d["sent"].items() if key[0] == d["share"]}
        got = {key: t for key, t in received.items() if key in sent}
        latencies = [(got[key] - sent[key]) * 1000 for key in got]
        dup = duplicates[0]
    lost = len(sent) - len(got)
    missing = sorted(key for key in sent if key not in got)
    if missing:
        print(f"missing (first 10): {missing[:10]}", file=sys.stderr)
    cpu = [(cpu_after[d["name"]] - cpu_before[d["name"]]) / elapsed * 60 for d in daemons]
    broker_cpu = (broker_after - broker_before) / elapsed * 60
    print(f"daemons: {args.daemons}, share time {elapsed:.0f} s at 1 fix/s each; broker mosquitto on 127.0.0.1:{args.port}; "
          f"{os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[0]}")
    print(f"events sent (stdout): {len(sent)}   received (distinct shareId+seq): {len(got)}   lost: {lost}   "
          f"duplicates: {dup}   target: all -> {'met' if lost == 0 else 'NOT met'}")
    print(f"stdout -> subscriber latency ms: p50 {percentile(latencies, 50):.2f}  p99 {percentile(latencies, 99):.2f}  "
          f"max {max(latencies) if latencies else float('nan'):.2f}")
    print(f"livelocd RSS KiB: mean {sum(rss) / len(rss):.0f}  max {max(rss)}   "
          f"CPU ms per minute: mean {sum(cpu) / len(cpu):.0f}  max {max(cpu):.0f}")
    print(f"broker CPU ms per minute: {broker_cpu:.0f} (all {args.daemons} daemons and the subscriber)")
    return 0 if lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
