#!/usr/bin/env python3
"""Opens a share link in headless Chromium and prints what its page shows, as one JSON object.

usage: share-link-page.py URL [--until STATE] [--liveness LIVENESS] [--min-seq N] [--timeout SECONDS]
                          [--screenshot FILE.png]
                          [--tiles-port PORT] [--saturation]

Drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: NUL-delimited
JSON on descriptors 3 and 4), standard library only. Polls the page until its body's data-state is
STATE (default: anything but "loading"), and its data-liveness LIVENESS and seq at least N when
given, or the timeout passes, then prints {"state", "liveness", "status", "position", "updated", "countdown", "remaining",
"seq", "map", "tiles", "markers", "markerSize", "heading", "attribution", "scale"} read from the DOM
(the map's mode, tiles loaded, Leaflet's marker and its width in CSS pixels when it is seen: its
centre inside the map and hit there, not clipped nor covered), the heading, the attribution and scale texts).
--tiles-port PORT serves a tile (a light green PNG made here) for any path on 127.0.0.1:PORT while
the page is open (no network: the test's tile server). --saturation adds "saturation": the mean
HSV saturation (0 to 1) of the map's pixels in a screenshot (the whole page without a map).
Used by Tests/ShareLinkTests/SharePageInChromiumTests.swift; exit 3 when chromium is missing.
"""
import argparse, base64, json, os, shutil, subprocess, sys, tempfile, time

READ = """JSON.stringify((() => { const t = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
  const b = document.body; return b ? { state: b.dataset.state || null, liveness: b.dataset.liveness || null, status: t("status"), position: t("position"),
  updated: t("updated"), countdown: t("countdown"), remaining: b.dataset.remaining || null, seq: b.dataset.seq || null,
  map: b.dataset.map || null, tiles: document.querySelectorAll("img.leaflet-tile-loaded").length,
  markers: document.querySelectorAll("#map path.marker").length, heading: b.dataset.heading || null,
  markerSize: (() => { const m = document.querySelector("#map path.marker"), r = m && m.getBoundingClientRect(),
    box = document.getElementById("map").getBoundingClientRect(), x = r && r.left + r.width / 2, y = r && r.top + r.height / 2;
    return r && x > box.left && x < box.right && y > box.top && y < box.bottom && document.elementFromPoint(x, y) === m
      ? Math.round(r.width) : null; })(),
  attribution: (document.querySelector(".leaflet-control-attribution") || {}).textContent || null,
  scale: (document.querySelector(".leaflet-control-scale-line") || {}).textContent || null } : {}; })())"""

RECT = """JSON.stringify((() => { const m = document.getElementById("map"); if (!m || m.hidden) return null;
  const r = m.getBoundingClientRect(); return [r.left, r.top, r.width, r.height].map(Math.round); })())"""


def png(width, height, rgb):
    """A PNG of one colour (8-bit RGB)."""
    import struct, zlib
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    rows = b"".join(b"\0" + bytes(rgb) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def pixels(data):
    """Width, height, channels and the rows of an 8-bit, non-interlaced RGB or RGBA PNG."""
    import struct, zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    channels = 3 if colour == 2 else 4
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1: line[i] = (line[i] + a) & 255
            elif kind == 2: line[i] = (line[i] + b) & 255
            elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def saturation(data, rect, scale=1.0):
    """The mean HSV saturation of the pixels in rect (CSS pixels: left, top, width, height)."""
    width, height, channels, rows = pixels(data)
    left, top, w, h = (0, 0, width, height) if rect is None else [int(v * scale) for v in rect]
    total, count = 0.0, 0
    for y in range(max(0, top), min(height, top + h), 2):
        row = rows[y]
        for x in range(max(0, left), min(width, left + w), 2):
            r, g, b = row[x * channels], row[x * channels + 1], row[x * channels + 2]
            high, low = max(r, g, b), min(r, g, b)
            total += (high - low) / high if high else 0.0
            count += 1
    return total / count if count else 0.0


def serve_tiles(port):
    """A tile server on 127.0.0.1:port: the same light green tile for any path, in a thread."""
    import http.server, threading
    tile = png(256, 256, (196, 230, 170))

    class Tiles(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(tile)))
            self.end_headers()
            self.wfile.write(tile)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Tiles)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--until", default=None)
    parser.add_argument("--liveness", default=None)
    parser.add_argument("--min-seq", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=15)
    parser.add_argument("--screenshot")
    parser.add_argument("--tiles-port", type=int)
    parser.add_argument("--saturation", action="store_true")
    args = parser.parse_args()
    if args.tiles_port:
        serve_tiles(args.tiles_port)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("share-link-page: chromium not installed", file=sys.stderr)
        return 3
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()
    profile = tempfile.mkdtemp(prefix="share-link-chromium-")

    def child_fds():
        import fcntl
        # Out of the way first (either may be 3 or 4 already), then to 3 and 4, inheritable.
        r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
        w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
        os.dup2(r, 3)
        os.dup2(w, 4)

    browser = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--remote-debugging-pipe", f"--user-data-dir={profile}", "--window-size=412,820", "--hide-scrollbars"],
        preexec_fn=child_fds, pass_fds=(3, 4),
        stdout=subprocess.DEVNULL, stderr=None if os.environ.get("SHARE_LINK_PAGE_DEBUG") else subprocess.DEVNULL)
    os.close(to_browser_r)
    os.close(from_browser_w)
    reader = os.fdopen(from_browser_r, "rb", buffering=0)
    pending = b""
    counter = [0]

    def call(method, params=None, session=None):
        nonlocal pending
        counter[0] += 1
        message = {"id": counter[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(to_browser_w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in pending:
                chunk = reader.read(65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                pending += chunk
            raw, pending = pending.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == counter[0]:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        call("Page.enable", session=session)
        call("Page.navigate", {"url": args.url}, session=session)
        deadline = time.monotonic() + args.timeout
        shown = {}
        while time.monotonic() < deadline:
            result = call("Runtime.evaluate", {"expression": READ, "returnByValue": True}, session=session)
            value = result.get("result", {}).get("value")
            shown = json.loads(value) if value else {}
            state = shown.get("state")
            if ((args.until is None and state not in (None, "loading")) or (args.until is not None and state == args.until)) \
                    and (args.liveness is None or shown.get("liveness") == args.liveness) \
                    and int(shown.get("seq") or 0) >= args.min_seq:
                break
            time.sleep(0.25)
        if args.tiles_port:
            # The tiles load after the page's state is set: up to the rest of the time for one.
            while time.monotonic() < deadline and not shown.get("tiles"):
                time.sleep(0.25)
                value = call("Runtime.evaluate", {"expression": READ, "returnByValue": True}, session=session).get("result", {}).get("value")
                shown = json.loads(value) if value else {}
        if args.screenshot or args.saturation:
            time.sleep(0.5)
            image = base64.b64decode(call("Page.captureScreenshot", {"format": "png"}, session=session)["data"])
            if args.screenshot:
                with open(args.screenshot, "wb") as out:
                    out.write(image)
            if args.saturation:
                rect = call("Runtime.evaluate", {"expression": RECT, "returnByValue": True}, session=session).get("result", {}).get("value")
                ratio = call("Runtime.evaluate", {"expression": "window.devicePixelRatio", "returnByValue": True}, session=session)
                shown["saturation"] = round(saturation(image, json.loads(rect) if rect else None, ratio.get("result", {}).get("value") or 1.0), 4)
        print(json.dumps(shown))
        return 0
    finally:
        try:
            call("Browser.close")
        except Exception:
            pass
        try:
            browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
