#!/usr/bin/env python3
"""A hostile caller of livelocd's control socket, for tests and benchmarks (standard library only).

    control-flood.py hold  --socket PATH --connections N --seconds S [--uid UID]
    control-flood.py burst --socket PATH --connections N [--parallel P]

hold: keeps N connections open for S seconds, sending nothing (idle); whenever the daemon answers
one (a `busy` refusal, a `timeout` after its request deadline) or closes it, it is closed and opened
again at once, so that the caller always tries to hold N. With --uid it first drops to that uid
(and its group, no supplementary groups): run it as root. Prints "holding" on stdout once the N
connections were first attempted, then at the end one JSON line of counts:
{"connects", "busy", "timeout", "otherReplies", "closedWithoutReply", "connectFailures", "open"}.

burst: N `status` requests, each on a connection of its own, P at a time (default 4); prints
{"ok", "failed", "seconds"} when done.
"""
import argparse
import errno
import json
import os
import resource
import select
import socket
import sys
import threading
import time


def drop_to(uid):
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def hold(args):
    wanted = args.connections + 64
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, max(wanted, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
    if args.uid is not None:
        drop_to(args.uid)
    counts = {"connects": 0, "busy": 0, "timeout": 0, "otherReplies": 0, "closedWithoutReply": 0,
              "connectFailures": 0, "open": 0}
    poller = select.poll()
    sockets = {}

    def open_one():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(args.socket)
        except BlockingIOError:
            # The backlog is full (EAGAIN): count it and try again on a later round.
            counts["connectFailures"] += 1
            s.close()
            return False
        except OSError:
            counts["connectFailures"] += 1
            s.close()
            return False
        counts["connects"] += 1
        sockets[s.fileno()] = s
        poller.register(s.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
        return True

    def close_one(fd):
        poller.unregister(fd)
        sockets.pop(fd).close()

    for _ in range(args.connections):
        open_one()
    print("holding", flush=True)
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        for fd, _event in poller.poll(50):
            s = sockets[fd]
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                counts["closedWithoutReply"] += 1
            else:
                text = data.decode("utf-8", "replace")
                if '"code":"busy"' in text:
                    counts["busy"] += 1
                elif '"code":"timeout"' in text:
                    counts["timeout"] += 1
                else:
                    counts["otherReplies"] += 1
            close_one(fd)
        # Top up to N, a bounded number per round so that a full backlog is not spun on.
        for _ in range(min(256, args.connections - len(sockets))):
            if not open_one():
                break
    counts["open"] = len(sockets)
    print(json.dumps(counts), flush=True)


def burst(args):
    request = b'{"v":1,"op":"status"}\n'
    lock = threading.Lock()
    result = {"ok": 0, "failed": 0}
    remaining = [args.connections]

    def worker():
        while True:
            with lock:
                if remaining[0] == 0:
                    return
                remaining[0] -= 1
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(10)
                    s.connect(args.socket)
                    s.sendall(request)
                    reply = b""
                    while not reply.endswith(b"\n"):
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        reply += chunk
                ok = b'"ok":true' in reply
            except OSError:
                ok = False
            with lock:
                result["ok" if ok else "failed"] += 1

    start = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(args.parallel)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result["seconds"] = round(time.monotonic() - start, 2)
    print(json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="mode", required=True)
    h = sub.add_parser("hold")
    h.add_argument("--socket", required=True)
    h.add_argument("--connections", type=int, required=True)
    h.add_argument("--seconds", type=float, required=True)
    h.add_argument("--uid", type=int)
    b = sub.add_parser("burst")
    b.add_argument("--socket", required=True)
    b.add_argument("--connections", type=int, required=True)
    b.add_argument("--parallel", type=int, default=4)
    args = parser.parse_args()
    hold(args) if args.mode == "hold" else burst(args)


if __name__ == "__main__":
    main()
