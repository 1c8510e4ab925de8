/// The viewer page and its assets, embedded (Leaflet is served from Debian's libjs-leaflet:
/// `LeafletAssets`): every asset local, nothing from a CDN. The page reads the share's id from its
/// path and the key from its fragment (never sent), opens each event with WebCrypto's AES-GCM and
/// the same associated data as `LinkSealing`, and shows the position on a map (Leaflet: the
/// marker with its heading and accuracy circle, the trail; tiles from `MapTiles`, or a grid and a
/// scale without) and as text, "updated N s ago", the countdown, "no GPS fix" versus "offline"
/// (from the device's heartbeats, `alive`), and the end (the map greyed out). Without Leaflet it
/// draws a sketch of the trail instead.
enum RelayAssets {
    /// Scripts, styles and connections from the relay only; images also from the tile server
    /// (and `data:`, Leaflet's blank tile).
    static func contentSecurityPolicy(tiles: MapTiles) -> String {
        let images = tiles.cspSource.map { "img-src 'self' data: \($0)" } ?? "img-src 'self'"
        return "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \(images); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// `text` safe inside an HTML attribute's double quotes or an element.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    static func page(tiles: MapTiles, leaflet: Bool) -> String {
        var map = #"<meta name="livelocd-map""#
        if case .url(let template, let attribution) = tiles {
            map += #" data-tiles="\#(escaped(template))" data-attribution="\#(escaped(attribution))""#
        }
        map += ">"
        let leafletTags = leaflet ? "<link rel=\"stylesheet\" href=\"/leaflet/leaflet.css\">\n<script src=\"/leaflet/leaflet.js\" defer></script>\n" : ""
        return pageHead + map + "\n" + leafletTags + pageBody
    }

    private static let pageHead = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex, nofollow">
    <meta name="referrer" content="strict-origin">

    """

    private static let pageBody = """
    <title>Live location</title>
    <link rel="stylesheet" href="/viewer.css">
    <script src="/viewer.js" defer></script>
    </head>
    <body data-state="loading">
    <main>
    <h1>Live location</h1>
    <p id="status" role="status" aria-live="polite">Connecting…</p>
    <div id="map" role="region" aria-label="Map of the shared position" hidden></div>
    <dl>
    <dt>Position</dt><dd id="position">—</dd>
    <dt>Accuracy</dt><dd id="accuracy">—</dd>
    <dt>Speed, heading</dt><dd id="motion">—</dd>
    <dt>Updated</dt><dd id="updated">—</dd>
    <dt>Sharing</dt><dd id="countdown">—</dd>
    </dl>
    <figure id="sketch-figure">
    <svg id="sketch" viewBox="0 0 300 300" role="img" aria-label="Sketch of the trail, north up"></svg>
    <figcaption id="scale">Trail sketch, north up (no map).</figcaption>
    </figure>
    <p class="note">End-to-end encrypted: the relay forwards only ciphertext; the key is in this link after the #.</p>
    </main>
    </body>
    </html>

    """

    static let gonePage = """
    <!doctype html>
    <html lang="en">
    <head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>Sharing ended</title><link rel="stylesheet" href="/viewer.css"></head>
    <body data-state="gone"><main><h1>Sharing ended</h1><p id="status" role="status">This live location is no longer shared.</p></main></body>
    </html>

    """

    static let style = """
    body { font: 16px/1.4 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #111; }
    main { max-width: 32rem; margin: 0 auto; padding: 1rem; }
    h1 { font-size: 1.3rem; margin: 0 0 .5rem; }
    #status { font-weight: 600; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
    dt { color: #555; } dd { margin: 0; font-variant-numeric: tabular-nums; }
    #sketch { width: 100%; max-width: 300px; background: #fff; border: 1px solid #ccd; }
    #sketch .trail { fill: none; stroke: #1a73e8; stroke-width: 2; }
    #sketch .marker { fill: #1a73e8; stroke: #fff; stroke-width: 2; }
    #sketch .accuracy { fill: rgba(26,115,232,.15); stroke: none; }
    .note { color: #555; font-size: .85rem; }
    #map { height: 55vh; min-height: 240px; margin: .5rem 0; border: 1px solid #ccd; background: #fff; }
    #map.no-tiles { background-color: #fbfbfd; background-size: 40px 40px;
      background-image: linear-gradient(#dde2ec 1px, transparent 1px), linear-gradient(90deg, #dde2ec 1px, transparent 1px); }
    .heading-icon .rotor { width: 40px; height: 40px; }
    .heading-icon .arrow { width: 0; height: 0; margin: 0 auto; border-left: 7px solid transparent;
      border-right: 7px solid transparent; border-bottom: 13px solid #1a73e8; }
    body[data-state="ended"] main, body[data-state="gone"] main { filter: grayscale(1); opacity: .75; }
    body[data-state="error"] #status { color: #b00020; }

    """

    static let script = #"""
    "use strict";
    (function () {
      const $ = (id) => document.getElementById(id);
      const body = document.body;
      let key = null, last = null, ended = null, endedAt = null, trail = [], failed = false, lastSeq = 0, alive = null;
      let map = null, mapLayers = null, follow = true, reconnecting = false;
      // No new position for this long (s): say why. The device posts a heartbeat every 60 s while it
      // posts nothing else; none for ALIVE_WITHIN s as well: it is offline.
      const STALE = 120, ALIVE_WITHIN = 150;

      function b64u(text) {
        text = text.replace(/-/g, "+").replace(/_/g, "/");
        while (text.length % 4) text += "=";
        const binary = atob(text), out = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
        return out;
      }
      function fail(message) {
        failed = true;
        body.dataset.state = "error";
        $("status").textContent = message;
      }
      const parts = location.pathname.split("/");
      let id;
      try { id = b64u(parts[2] || ""); } catch (e) { id = new Uint8Array(0); }
      const keyText = location.hash.slice(1);
      function associatedData(seq) {
        const prefix = new TextEncoder().encode("liveloc-link-v1");
        const data = new Uint8Array(prefix.length + 1 + id.length + 8);
        data.set(prefix, 0);
        data.set(id, prefix.length + 1);
        let s = BigInt(seq);
        for (let i = 7; i >= 0; i--) { data[prefix.length + 1 + id.length + i] = Number(s & 0xffn); s >>= 8n; }
        return data;
      }
      async function open(seq, text) {
        const sealed = b64u(text);
        const plain = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: sealed.slice(0, 12), additionalData: associatedData(seq), tagLength: 128 },
          key, sealed.slice(12));
        return JSON.parse(new TextDecoder().decode(plain));
      }
      function duration(seconds) {
        seconds = Math.max(0, Math.round(seconds));
        const h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
        if (h) return h + " h " + m + " min";
        if (m) return m + " min " + s + " s";
        return s + " s";
      }
      function clock(date) {
        return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      }
      function render() {
        if (failed) return;
        const now = Date.now();
        if (last) {
          const loc = last.location;
          $("position").textContent = loc.latitude.toFixed(6) + ", " + loc.longitude.toFixed(6);
          body.dataset.lat = loc.latitude; body.dataset.lon = loc.longitude; body.dataset.seq = last.seq;
          $("accuracy").textContent = loc.accuracy !== undefined ? "± " + Math.round(loc.accuracy) + " m" : "unknown";
          const speed = loc.speed !== undefined ? (loc.speed * 3.6).toFixed(1) + " km/h" : "speed unknown";
          const course = loc.course !== undefined ? Math.round(loc.course) + "°" : "heading unknown";
          $("motion").textContent = speed + ", " + course;
          const age = (now - Date.parse(loc.lastUpdateAt)) / 1000;
          $("updated").textContent = age < 2 ? "just now" : duration(age) + " ago";
          if (!ended) {
            const left = (Date.parse(loc.expiresAt) - now) / 1000;
            $("countdown").textContent = left > 0 ? "ends in " + duration(left) : "ending";
            body.dataset.remaining = Math.max(0, Math.round(left));
          }
        }
        if (ended) {
          body.dataset.state = "ended";
          const at = endedAt ? " at " + clock(endedAt) : "";
          $("status").textContent = "Sharing ended" + at + (ended === "silent" ? " (the device stopped reporting)" : "") + ".";
          $("countdown").textContent = "ended" + at;
        } else if (last) {
          body.dataset.state = "live";
          const [liveness, text] = livenessOf(now);
          body.dataset.liveness = liveness;
          $("status").textContent = reconnecting ? "Reconnecting to the relay… (last position kept)" : text;
        }
      }
      function escapeHTML(text) {
        return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
      }
      // Leaflet (from the relay) when it is there: tiles per the relay's settings, or a grid and a
      // scale without; else the SVG sketch.
      function setUpMap() {
        if (!window.L) { body.dataset.map = "sketch"; return; }
        const element = $("map"), settings = document.querySelector('meta[name="livelocd-map"]');
        element.hidden = false;
        $("sketch-figure").hidden = true;
        map = L.map(element, { zoomControl: true });
        const tiles = settings && settings.dataset.tiles;
        if (tiles) {
          L.tileLayer(tiles, { maxZoom: 19, attribution: escapeHTML(settings.dataset.attribution || "") }).addTo(map);
          body.dataset.map = "tiles";
        } else {
          element.classList.add("no-tiles");
          body.dataset.map = "grid";
        }
        L.control.scale({ imperial: false }).addTo(map);
        map.on("dragstart", () => { follow = false; });
        map.setView([0, 0], 2);
      }
      function draw() {
        if (!map) { sketch(); return; }
        if (!last) return;
        const loc = last.location, here = [loc.latitude, loc.longitude];
        if (!mapLayers) {
          mapLayers = {
            trail: L.polyline([], { color: "#1a73e8", weight: 3, opacity: 0.8, interactive: false }).addTo(map),
            accuracy: L.circle(here, { radius: 1, stroke: false, fillColor: "#1a73e8", fillOpacity: 0.15, interactive: false }).addTo(map),
            heading: L.marker(here, { interactive: false, keyboard: false,
              icon: L.divIcon({ className: "heading-icon", html: '<div class="rotor"><div class="arrow"></div></div>', iconSize: [40, 40] }) }),
            marker: L.circleMarker(here, { radius: 8, color: "#fff", weight: 2, fillColor: "#1a73e8", fillOpacity: 1, className: "marker" }).addTo(map),
          };
          map.setView(here, 16);
        }
        mapLayers.trail.setLatLngs(trail);
        mapLayers.marker.setLatLng(here);
        mapLayers.accuracy.setLatLng(here).setRadius(loc.accuracy || 0);
        if (loc.course !== undefined && loc.speed !== undefined && loc.speed > 0.5) {
          mapLayers.heading.setLatLng(here).addTo(map);
          mapLayers.heading.getElement().firstChild.style.transform = "rotate(" + loc.course + "deg)";
          body.dataset.heading = Math.round(loc.course);
        } else {
          mapLayers.heading.remove();
          delete body.dataset.heading;
        }
        mapLayers.marker.bringToFront();
        // Without the pan animation: the SVG renderer redraws at once (mid-animation it still clips
        // to the old view, and at 1 Hz the map would be animating most of the time).
        if (follow) map.panTo(here, { animate: false });
      }
      // "live", "still" (online with a fix, no new position: standing, or updates spaced out),
      // "online" (no word on the fix), "nofix" (online, no GPS fix), "offline" (nothing heard).
      function livenessOf(now) {
        const age = (now - Date.parse(last.location.lastUpdateAt)) / 1000;
        if (!(age > STALE)) return ["live", "Live."];
        const heard = alive ? (now - Date.parse(alive.at)) / 1000 : Infinity;
        if (!(heard <= ALIVE_WITHIN)) {
          return ["offline", "Device offline: nothing heard from it for " + duration(Math.min(age, heard)) + " (last position kept)."];
        }
        if (alive.fix === false) {
          const since = alive.lastFixAt ? Date.parse(alive.lastFixAt) : Date.parse(last.location.lastUpdateAt);
          return ["nofix", "No GPS fix for " + duration((now - since) / 1000) + "; the device is online."];
        }
        if (alive.fix === true) return ["still", "Live; no new position for " + duration(age) + " (the device is online with a GPS fix: standing still)."];
        return ["online", "Live; no new position for " + duration(age) + " (the device is online)."];
      }
      function sketch() {
        const svg = $("sketch");
        while (svg.firstChild) svg.removeChild(svg.firstChild);
        if (!trail.length) return;
        const lat0 = trail[trail.length - 1][0], cos = Math.cos(lat0 * Math.PI / 180);
        const xy = trail.map(([lat, lon]) => [(lon - trail[trail.length - 1][1]) * 111320 * cos, (lat - lat0) * 110540]);
        let span = 100;
        for (const [x, y] of xy) span = Math.max(span, Math.abs(x) * 2.2, Math.abs(y) * 2.2);
        const k = 300 / span;
        const ns = "http://www.w3.org/2000/svg";
        const line = document.createElementNS(ns, "polyline");
        line.setAttribute("class", "trail");
        line.setAttribute("points", xy.map(([x, y]) => (150 + x * k).toFixed(1) + "," + (150 - y * k).toFixed(1)).join(" "));
        svg.appendChild(line);
        const accuracy = last && last.location.accuracy;
        if (accuracy) {
          const circle = document.createElementNS(ns, "circle");
          circle.setAttribute("class", "accuracy");
          circle.setAttribute("cx", 150); circle.setAttribute("cy", 150); circle.setAttribute("r", Math.max(2, accuracy * k));
          svg.appendChild(circle);
        }
        const marker = document.createElementNS(ns, "circle");
        marker.setAttribute("class", "marker");
        marker.setAttribute("cx", 150); marker.setAttribute("cy", 150); marker.setAttribute("r", 6);
        svg.appendChild(marker);
        $("scale").textContent = "Trail sketch, north up, " + Math.round(span) + " m across (no map).";
      }
      let queue = Promise.resolve();
      function onEvent(kind, message) {
        queue = queue.then(async () => {
          if (failed) return;
          // A heartbeat is sealed under seq 0 (no event has it) and carries no SSE id.
          const seq = kind === "alive" ? 0 : Number(message.lastEventId);
          if (kind === "end" && message.data === "") { ended = "silent"; endedAt = new Date(); source.close(); render(); return; }
          let event;
          try { event = await open(seq, message.data); } catch (e) {
            source.close();
            fail("Cannot decrypt this share: the link's key is wrong or the data was altered.");
            return;
          }
          if (kind === "alive") {
            if (event.event !== "alive" || isNaN(Date.parse(event.at))) { source.close(); fail("Cannot decrypt this share: the data was altered."); return; }
            if (!alive || Date.parse(event.at) > Date.parse(alive.at)) alive = event;
            render();
            return;
          }
          if (event.seq !== seq) { source.close(); fail("Cannot decrypt this share: the data was altered."); return; }
          if (seq <= lastSeq) return;
          lastSeq = seq;
          if (event.event === "updated" && event.location) {
            last = event;
            trail.push([event.location.latitude, event.location.longitude]);
            if (!event.location.isActive) { ended = ended || "final"; endedAt = new Date(Date.parse(event.location.expiresAt)); }
            draw();
          } else if (event.event === "ended") {
            ended = event.reason || "ended";
            if (!endedAt) endedAt = new Date();
            source.close();
          }
          render();
        });
      }
      let source = null;
      async function start() {
        setUpMap();
        if (!keyText) { fail("This link has no key: the part after # is missing."); return; }
        if (!window.crypto || !crypto.subtle) { fail("This page needs a secure connection (https) to decrypt."); return; }
        try {
          key = await crypto.subtle.importKey("raw", b64u(keyText), { name: "AES-GCM" }, false, ["decrypt"]);
        } catch (e) { fail("This link's key is malformed."); return; }
        connect();
        setInterval(render, 1000);
      }
      // EventSource retries by itself after a network error; it gives up on an answer that is not
      // a stream (404, 410). 410: the share is gone. 404 after positions came: the relay may have
      // restarted and not have the share back from its device yet: try again every 10 s while
      // the share has time left (and its grace).
      function connect() {
        source = new EventSource(location.pathname.replace(/\/$/, "") + "/events");
        source.addEventListener("update", (m) => onEvent("update", m));
        source.addEventListener("end", (m) => onEvent("end", m));
        source.addEventListener("alive", (m) => onEvent("alive", m));
        source.addEventListener("open", () => {
          reconnecting = false;
          delete body.dataset.connection;
          if (!last && !failed) $("status").textContent = "Waiting for the first position…";
        });
        source.addEventListener("error", () => {
          if (failed || ended) return;
          if (source.readyState === EventSource.CLOSED) reconnectLater();
          else { reconnecting = true; render(); }
        });
      }
      async function reconnectLater() {
        let status = 0;
        try { status = (await fetch(location.pathname, { method: "HEAD", cache: "no-store" })).status; } catch (e) { status = 0; }
        const over = last && Date.now() > Date.parse(last.location.expiresAt) + 15 * 60 * 1000;
        if (status === 410 || (status === 404 && !last) || over) {
          ended = "gone"; render(); $("status").textContent = "This live location is no longer shared.";
          return;
        }
        reconnecting = true;
        body.dataset.connection = "retrying";
        render();
        setTimeout(connect, status === 200 ? 1000 : 10000);
      }
      start();
    })();

    """#
}
