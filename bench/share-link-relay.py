#!/usr/bin/env python3
"""Measures livelocd-relay: S shares, each with V viewers on Server-Sent Events, one update per second
per share, for T seconds, on loopback. Prints one JSON object: the relay's RSS, threads and
descriptors (idle, with the viewers connected, at the end), the post-to-viewer latency p50/p99, and
the bytes per update and per viewer-minute on the wire.

usage: bench/share-link-relay.py RELAY_BINARY [--shares S] [--viewers V] [--seconds T] [--body BYTES]

Standard library only. The relay cannot tell sealed events from random bytes of the same size (it
never opens them), so the devices here post random bodies of a sealed update's size (358 bytes:
livelocd's ~330-byte JSON + 28), signed as livelocd signs them. Viewers connect from 127.0.x.y
addresses, at most 50 per address (the relay allows 64 per address unless --behind-proxy).
"""
import argparse, base64, hashlib, hmac, json, os, selectors, socket, statistics, subprocess, sys, tempfile, threading, time

SECRET = b"bench-relay-secret-0123456789abcdefABCDEF"


def rss_threads_fds(pid):
    status = open(f"/proc/{pid}/status").read()
    rss = int(next(l for l in status.splitlines() if l.startswith("VmRSS")).split()[1])
    threads = int(next(l for l in status.splitlines() if l.startswith("Threads")).split()[1])
    return {"rssKiB": rss, "threads": threads, "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def post(port, share, seq, body, kind="update"):
    now = int(time.time())
    expires = now + 3600
    signed = f"v1\n{share}\n{seq}\n{kind}\n{expires}\n{now}\n".encode() + body
    signature = "v1," + base64.b64encode(hmac.new(SECRET, signed, hashlib.sha256).digest()).decode()
    head = (f"POST /api/v1/events HTTP/1.0\r\nHost: relay\r\nContent-Length: {len(body)}\r\nLink-Share: {share}\r\n"
            f"Link-Seq: {seq}\r\nLink-Kind: {kind}\r\nLink-Expires-At: {expires}\r\nLink-Timestamp: {now}\r\n"
            f"Link-Signature: {signature}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(head + body)
        answer = s.recv(4096)
    return int(answer.split(b" ")[1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("relay")
    parser.add_argument("--shares", type=int, default=10)
    parser.add_argument("--viewers", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--body", type=int, default=358)
    args = parser.parse_args()

    directory = tempfile.mkdtemp(prefix="relay-bench-")
    secret_file = os.path.join(directory, "secrets")
    with open(secret_file, "w") as f:
        f.write(SECRET.decode() + "\n")
    os.chmod(secret_file, 0o600)
    connections = args.shares * args.viewers + 64
    relay = subprocess.Popen([args.relay, "--listen", "127.0.0.1:0", "--secret-file", secret_file,
                              "--max-connections", str(connections), "--max-shares", str(args.shares + 1)],
                             stderr=subprocess.PIPE, text=True)
    line = relay.stderr.readline()
    port = int(line.rsplit(":", 1)[1].split()[0])
    time.sleep(0.3)
    result = {"shares": args.shares, "viewersPerShare": args.viewers, "seconds": args.seconds, "bodyBytes": args.body,
              "idle": rss_threads_fds(relay.pid)}
    shares = [base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=") for _ in range(args.shares)]
    for share in shares:
        assert post(port, share, 1, os.urandom(args.body)) == 200

    selector = selectors.DefaultSelector()
    viewers = []
    for index in range(args.shares * args.viewers):
        share = shares[index % args.shares]
        source = f"127.0.{1 + index // 50 // 250}.{1 + index // 50 % 250}"
        s = socket.socket()
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET /s/{share}/events HTTP/1.0\r\nHost: relay\r\nLast-Event-ID: 1\r\n\r\n".encode())
        s.setblocking(False)
        state = {"share": share, "buffer": b"", "bytes": 0}
        selector.register(s, selectors.EVENT_READ, state)
        viewers.append(s)
    time.sleep(1)
    result["connected"] = rss_threads_fds(relay.pid)

    posted = {}
    latencies = []
    stop = threading.Event()

    def devices():
        seq = 1
        while not stop.is_set():
            seq += 1
            started = time.monotonic()
            for share in shares:
                posted[(share, seq)] = time.monotonic()
                post(port, share, seq, os.urandom(args.body))
            time.sleep(max(0, 1 - (time.monotonic() - started)))

    poster = threading.Thread(target=devices)
    poster.start()
    began = time.monotonic()
    cpu_before = cpu_seconds(relay.pid)
    received = 0
    closed = [0]
    while time.monotonic() - began < args.seconds:
        for key, _ in selector.select(timeout=0.5):
            state = key.data
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            except ConnectionError:
                chunk = b""
            if not chunk:
                selector.unregister(key.fileobj)
                closed[0] += 1
                continue
            now = time.monotonic()
            state["bytes"] += len(chunk)
            state["buffer"] += chunk
            while b"\n\n" in state["buffer"]:
                frame, state["buffer"] = state["buffer"].split(b"\n\n", 1)
                for field in frame.split(b"\n"):
                    if field.startswith(b"id: "):
                        seq = int(field[4:])
                        if (state["share"], seq) in posted:
                            latencies.append((now - posted[(state["share"], seq)]) * 1000)
                            received += 1
    cpu_used = cpu_seconds(relay.pid) - cpu_before
    elapsed = time.monotonic() - began
    stop.set()
    poster.join()
    result["streaming"] = rss_threads_fds(relay.pid)
    latencies.sort()
    total_bytes = sum(key.data["bytes"] for key in selector.get_map().values())
    viewer_minutes = args.shares * args.viewers * args.seconds / 60
    result.update({
        "eventsReceived": received,
        "relayCpuPercentOfOneCore": round(100 * cpu_used / elapsed, 1),
        "viewersClosedByTheRelay": closed[0],
        "latencyMs": {"p50": round(latencies[len(latencies) // 2], 2) if latencies else None,
                      "p99": round(latencies[int(len(latencies) * 0.99)], 2) if latencies else None,
                      "max": round(latencies[-1], 2) if latencies else None},
        "wireBytesPerViewerMinute": round(total_bytes / viewer_minutes) if viewer_minutes else None,
        "rssKiBPerViewer": round((result["streaming"]["rssKiB"] - result["idle"]["rssKiB"]) / (args.shares * args.viewers), 1),
    })
    for s in viewers:
        s.close()
    relay.terminate()
    relay.wait(timeout=20)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.exit(main())
