#!/usr/bin/env python3
"""Opens a share link in headless Chromium and prints what its page shows, as one JSON object.

usage: share-link-page.py URL [--until STATE] [--liveness LIVENESS] [--timeout SECONDS] [--screenshot FILE.png]

Drives Chromium through the DevTools protocol over a pipe (--remote-debugging-pipe: NUL-delimited
JSON on descriptors 3 and 4), standard library only. Polls the page until its body's data-state is
STATE (default: anything but "loading"), and its data-liveness LIVENESS when given, or the timeout
passes, then prints {"state", "liveness", "status", "position", "updated", "countdown", "remaining",
"seq"} read from the DOM.
Used by Tests/ShareLinkTests/SharePageInChromiumTests.swift; exit 3 when chromium is missing.
"""
import argparse, base64, json, os, shutil, subprocess, sys, tempfile, time

READ = """JSON.stringify((() => { const t = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
  const b = document.body; return b ? { state: b.dataset.state || null, liveness: b.dataset.liveness || null, status: t("status"), position: t("position"),
  updated: t("updated"), countdown: t("countdown"), remaining: b.dataset.remaining || null, seq: b.dataset.seq || null } : {}; })())"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--until", default=None)
    parser.add_argument("--liveness", default=None)
    parser.add_argument("--timeout", type=float, default=15)
    parser.add_argument("--screenshot")
    args = parser.parse_args()
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
                    and (args.liveness is None or shown.get("liveness") == args.liveness):
                break
            time.sleep(0.25)
        if args.screenshot:
            time.sleep(0.3)
            png = call("Page.captureScreenshot", {"format": "png"}, session=session)["data"]
            with open(args.screenshot, "wb") as out:
                out.write(base64.b64decode(png))
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
