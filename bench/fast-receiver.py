#!/usr/bin/env python3
"""A fast webhook receiver for throughput benchmarks: asyncio, HTTP/1.1 keep-alive, 200 to every
POST. It records each request's webhook-id, timestamp, signature and body (hex) as one line; the
signatures are checked after the run (--verify), with webhook-receiver.py's own check, so that the
receiver's cost during the run is parsing and answering only.

    fast-receiver.py --records FILE [--port N]       prints "listening PORT", serves until killed
    fast-receiver.py --verify FILE --secret-file F   prints "N requests, U unique ids, signatures all valid: BOOL"
"""
import argparse, asyncio, importlib.util, os, sys


async def serve(records_path, port):
    records = open(records_path, "w", buffering=1 << 16)

    async def handle(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                headers = {}
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get(b"content-length", b"0")))
                records.write(" ".join([headers.get(b"webhook-id", b"").decode(), headers.get(b"webhook-timestamp", b"").decode(),
                                        body.hex(), headers.get(b"webhook-signature", b"").decode()]) + "\n")
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n\r\n{}")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            records.flush()
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


def verify(records_path, secret_file):
    scripts = os.path.join(os.path.dirname(__file__), "..", "scripts")
    sys.path.insert(0, scripts)  # webhook-receiver.py imports loopback_server from there
    spec = importlib.util.spec_from_file_location("receiver", os.path.join(scripts, "webhook-receiver.py"))
    receiver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(receiver)
    keys = receiver.load_keys(secret_file)
    count, ids, valid = 0, set(), True
    for line in open(records_path):
        msg_id, timestamp, body, signature = line.rstrip("\n").split(" ", 3)
        count += 1
        ids.add(msg_id)
        valid &= receiver.signature_valid(keys, msg_id, timestamp, bytes.fromhex(body), signature)
    print(f"{count} requests, {len(ids)} unique ids, signatures all valid: {valid}")


parser = argparse.ArgumentParser()
parser.add_argument("--records")
parser.add_argument("--port", type=int, default=0)
parser.add_argument("--verify")
parser.add_argument("--secret-file")
arguments = parser.parse_args()
if arguments.verify:
    verify(arguments.verify, arguments.secret_file)
else:
    asyncio.run(serve(arguments.records, arguments.port))
