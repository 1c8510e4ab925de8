#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 in front of an MQTT broker that loses one acknowledgement, the way a
connection that drops at the wrong moment does: the first QoS 1 PUBLISH the broker sends on a topic
ending in `--topic-suffix` (default `/command`) reaches the client, and then nothing more of that
connection reaches the broker (the client's PUBACK is lost) until, a moment later, the proxy closes
both sides. The broker keeps the message unacknowledged in the client's session and sends it again
(same packet identifier, DUP set) when the client reconnects, which the proxy then lets through.

Convention of the tests' loopback servers: prints "listening PORT" once ready; appends one JSON
object per event to `--records` ({"cut": topic, "packetId": n} when it lost the acknowledgement)."""
import argparse
import json
import select
import socket
import threading
import time

lock = threading.Lock()
armed = True


def record(path, entry):
    with lock, open(path, "a") as file:
        file.write(json.dumps(entry) + "\n")


def split_packets(buffer):
    """Whole MQTT packets at the start of `buffer` (fixed header: type byte, remaining length as a
    variable byte integer) and what is left."""
    packets = []
    while len(buffer) >= 2:
        length, multiplier, index = 0, 1, 1
        while True:
            if index >= len(buffer):
                return packets, buffer
            byte = buffer[index]
            length += (byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0:
                break
        end = index + length
        if end > len(buffer):
            break
        packets.append((buffer[0], bytes(buffer[:end]), index))
        buffer = buffer[end:]
    return packets, buffer


def serve(client, upstream_port, suffix, records):
    global armed
    broker = socket.create_connection(("127.0.0.1", upstream_port))
    for sock in (client, broker):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    from_broker = b""
    lost_at = None
    try:
        while True:
            if lost_at is not None and time.monotonic() - lost_at > 1.0:
                return
            readable, _, _ = select.select([client, broker], [], [], 0.1)
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                if sock is client:
                    if lost_at is None:
                        broker.sendall(data)
                    continue
                packets, from_broker = split_packets(from_broker + data)
                for first, packet, header in packets:
                    if lost_at is not None:
                        continue
                    client.sendall(packet)
                    qos = (first >> 1) & 3
                    if first >> 4 == 3 and qos == 1:
                        topic_length = int.from_bytes(packet[header:header + 2], "big")
                        topic = packet[header + 2:header + 2 + topic_length].decode("utf-8", "replace")
                        packet_id = int.from_bytes(packet[header + 2 + topic_length:header + 4 + topic_length], "big")
                        with lock:
                            cut = armed and topic.endswith(suffix)
                            if cut:
                                armed = False
                        if cut:
                            lost_at = time.monotonic()
                            record(records, {"cut": topic, "packetId": packet_id})
    except OSError:
        return
    finally:
        for sock in (client, broker):
            try:
                sock.close()
            except OSError:
                pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream-port", type=int, required=True)
    parser.add_argument("--topic-suffix", default="/command")
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", arguments.port))
    listener.listen(16)
    print(f"listening {listener.getsockname()[1]}", flush=True)
    while True:
        client, _ = listener.accept()
        threading.Thread(target=serve, args=(client, arguments.upstream_port, arguments.topic_suffix, arguments.records),
                         daemon=True).start()


if __name__ == "__main__":
    main()
