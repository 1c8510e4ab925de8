#!/usr/bin/env python3
"""Synthesize the NMEA 0183 fixture logs in Fixtures/ (stdlib only, deterministic).

Usage:
  scripts/synthesize-fixtures.py              regenerate the 4 committed fixtures (+ dirty.expect.json)
  scripts/synthesize-fixtures.py check        verify the committed fixtures (checksums, CRLF, plausibility,
                                              byte-identical regeneration, dirty.expect.json counts)
  scripts/synthesize-fixtures.py long --hours 8 --rate 10 --output FILE
                                              a big RMC+GGA log for benchmarks (not committed)

Every fixture uses its own random.Random(seed); only random(), gauss(), shuffle() and sample() are
used, whose sequences are stable across CPython 3 versions, so rerunning reproduces the same bytes.
"""

import argparse
import datetime as dt
import json
import math
import os
import random
import sys
from functools import reduce
from operator import xor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Fixtures")
EARTH_R = 6371008.8
KNOTS_PER_MPS = 3600.0 / 1852.0
CRLF = "\r\n"


# --------------------------------------------------------------------------------------------------
# NMEA formatting
# --------------------------------------------------------------------------------------------------

def checksum(body):
    """XOR of the bytes between '$' and '*'."""
    return reduce(xor, body.encode("latin-1"), 0)


def sentence(body):
    return "$%s*%02X" % (body, checksum(body))


def fmt_lat(lat, decimals=5):
    scale = 10 ** decimals
    total = int(round(abs(lat) * 60 * scale))
    deg, rem = divmod(total, 60 * scale)
    return "%02d%0*.*f" % (deg, 3 + decimals, decimals, rem / scale), ("N" if lat >= 0 else "S")


def fmt_lon(lon, decimals=5):
    scale = 10 ** decimals
    total = int(round(abs(lon) * 60 * scale))
    deg, rem = divmod(total, 60 * scale)
    return "%03d%0*.*f" % (deg, 3 + decimals, decimals, rem / scale), ("E" if lon >= 0 else "W")


def fmt_time(t, decimals=2):
    """UTC time of day hhmmss.ss from a datetime."""
    frac = t.microsecond / 1e6
    if decimals == 0:
        return t.strftime("%H%M%S")
    return "%s.%0*d" % (t.strftime("%H%M%S"), decimals, int(round(frac * 10 ** decimals)))


def fmt_date(t):
    return t.strftime("%d%m%y")


def parse_lat(field, hemi):
    deg = int(field[:2])
    return (deg + float(field[2:]) / 60.0) * (-1 if hemi == "S" else 1)


def parse_lon(field, hemi):
    deg = int(field[:3])
    return (deg + float(field[3:]) / 60.0) * (-1 if hemi == "W" else 1)


# --------------------------------------------------------------------------------------------------
# Geometry
# --------------------------------------------------------------------------------------------------

class LocalFrame:
    """Equirectangular east/north metres around an origin (fine for a few tens of km)."""

    def __init__(self, lat0, lon0):
        self.lat0, self.lon0 = lat0, lon0
        self.kx = EARTH_R * math.cos(math.radians(lat0)) * math.pi / 180.0
        self.ky = EARTH_R * math.pi / 180.0

    def to_xy(self, lat, lon):
        return (lon - self.lon0) * self.kx, (lat - self.lat0) * self.ky

    def to_ll(self, x, y):
        return self.lat0 + y / self.ky, self.lon0 + x / self.kx


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(min(1.0, math.sqrt(a)))


def bearing(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return math.degrees(math.atan2(y, x)) % 360.0


def angle_diff(a, b):
    return (a - b + 180.0) % 360.0 - 180.0


# --------------------------------------------------------------------------------------------------
# Routes: polyline with filleted corners, speed zones, stops; a speed profile with acceleration limits
# --------------------------------------------------------------------------------------------------

class Route:
    """A drivable path sampled every metre: position, heading (math angle, rad), speed limit, altitude.

    waypoints: list of (lat, lon, limit_kmh_of_next_segment, corner_radius_m, altitude_m)."""

    STEP = 1.0

    def __init__(self, waypoints, stops=(), accel=1.6, decel=2.2, lat_accel=2.2, rng=None):
        self.frame = LocalFrame(waypoints[0][0], waypoints[0][1])
        pts = [self.frame.to_xy(w[0], w[1]) for w in waypoints]
        limits = [w[2] / 3.6 for w in waypoints]
        radii = [w[3] for w in waypoints]
        alts = [w[4] for w in waypoints]
        n = len(pts)
        seg_len = [math.dist(pts[i], pts[i + 1]) for i in range(n - 1)]
        seg_hdg = [math.atan2(pts[i + 1][1] - pts[i][1], pts[i + 1][0] - pts[i][0]) for i in range(n - 1)]
        # Corner tangent lengths.
        cut = [0.0] * n
        turn = [0.0] * n
        rad = [0.0] * n
        for i in range(1, n - 1):
            th = (seg_hdg[i] - seg_hdg[i - 1] + math.pi) % (2 * math.pi) - math.pi
            if abs(th) < 1e-4:
                continue
            r = radii[i]
            t = r * math.tan(abs(th) / 2)
            tmax = 0.45 * min(seg_len[i - 1], seg_len[i])
            if t > tmax:
                t = tmax
                r = t / math.tan(abs(th) / 2)
            cut[i], turn[i], rad[i] = t, th, r
        # Primitives, then sampling.
        xs, ys, hs, ks, lims, alt_s = [], [], [], [], [], []
        wp_s = [0.0] * n  # route distance of the point nearest each waypoint (for altitude)
        s_acc = 0.0
        carry = 0.0  # distance already travelled past the last sample inside the current primitive

        def emit_line(p0, h, length, lim, a0, a1):
            nonlocal s_acc, carry
            d = self.STEP - carry if xs else 0.0
            while d <= length + 1e-9:
                xs.append(p0[0] + d * math.cos(h))
                ys.append(p0[1] + d * math.sin(h))
                hs.append(h)
                ks.append(0.0)
                lims.append(lim)
                alt_s.append(a0 + (a1 - a0) * (d / length if length > 0 else 0))
                d += self.STEP
            carry = length - (d - self.STEP)
            s_acc += length

        def emit_arc(t1, h_in, th, r, lim, alt):
            nonlocal s_acc, carry
            sg = 1.0 if th > 0 else -1.0
            cx = t1[0] + sg * r * -math.sin(h_in)
            cy = t1[1] + sg * r * math.cos(h_in)
            length = r * abs(th)
            d = self.STEP - carry
            while d <= length + 1e-9:
                phi = sg * d / r
                xs.append(cx + sg * r * math.sin(h_in + phi))
                ys.append(cy - sg * r * math.cos(h_in + phi))
                hs.append(h_in + phi)
                ks.append(1.0 / r)
                lims.append(lim)
                alt_s.append(alt)
                d += self.STEP
            carry = length - (d - self.STEP)
            s_acc += length

        for i in range(n - 1):
            h = seg_hdg[i]
            start = (pts[i][0] + cut[i] * math.cos(h), pts[i][1] + cut[i] * math.sin(h))
            length = seg_len[i] - cut[i] - cut[i + 1]
            frac0 = cut[i] / seg_len[i]
            frac1 = 1 - cut[i + 1] / seg_len[i]
            a0 = alts[i] + (alts[i + 1] - alts[i]) * frac0
            a1 = alts[i] + (alts[i + 1] - alts[i]) * frac1
            emit_line(start, h, length, limits[i], a0, a1)
            if i + 1 < n - 1 and cut[i + 1] > 0:
                t1 = (pts[i + 1][0] - cut[i + 1] * math.cos(h), pts[i + 1][1] - cut[i + 1] * math.sin(h))
                wp_s[i + 1] = s_acc + rad[i + 1] * abs(turn[i + 1]) / 2
                emit_arc(t1, h, turn[i + 1], rad[i + 1], min(limits[i], limits[i + 1]), alts[i + 1])
            else:
                wp_s[i + 1] = s_acc
        self.xs, self.ys, self.hs, self.alts = xs, ys, hs, alt_s
        self.length = (len(xs) - 1) * self.STEP
        self.waypoint_s = wp_s
        # Speed limits with a slow, small human variation; curvature limit; stops.
        rng = rng or random.Random(1)
        ph1, ph2 = rng.random() * 6.28, rng.random() * 6.28
        vmax = []
        for i in range(len(xs)):
            s = i * self.STEP
            human = 1.0 + 0.025 * math.sin(s / 310.0 + ph1) + 0.015 * math.sin(s / 97.0 + ph2)
            v = lims[i] * human
            if ks[i] > 0:
                v = min(v, math.sqrt(lat_accel / ks[i]))
            vmax.append(v)
        self.stops = sorted((min(int(s / self.STEP), len(xs) - 1), hold) for s, hold in stops)
        for idx, _ in self.stops:
            vmax[idx] = 0.0
        vmax[0] = 0.0
        vmax[-1] = 0.0
        v = vmax[:]
        for i in range(1, len(v)):
            v[i] = min(v[i], math.sqrt(v[i - 1] ** 2 + 2 * accel * self.STEP))
        for i in range(len(v) - 2, -1, -1):
            v[i] = min(v[i], math.sqrt(v[i + 1] ** 2 + 2 * decel * self.STEP))
        self.v = v

    def sample(self, s):
        """(x, y, heading_rad, speed_profile, altitude) at route distance s (linear interpolation)."""
        f = s / self.STEP
        i = min(int(f), len(self.xs) - 2)
        a = f - i
        h0, h1 = self.hs[i], self.hs[i + 1]
        dh = (h1 - h0 + math.pi) % (2 * math.pi) - math.pi
        return (self.xs[i] + a * (self.xs[i + 1] - self.xs[i]),
                self.ys[i] + a * (self.ys[i + 1] - self.ys[i]),
                h0 + a * dh,
                self.v[i] + a * (self.v[i + 1] - self.v[i]),
                self.alts[i] + a * (self.alts[i + 1] - self.alts[i]))

    def drive(self, duration, preroll=0.0, rate=1.0, dt_sim=0.05):
        """Truth at each epoch k/rate for k in [0, duration*rate): list of dicts.

        The vehicle waits `preroll` seconds, drives the route (holding at each stop), then stays parked."""
        out = []
        n_epochs = int(round(duration * rate))
        s, t, v = 0.0, 0.0, 0.0
        hold_until = preroll
        stop_iter = iter(self.stops)
        next_stop = next(stop_iter, None)
        k = 0
        steps_per_epoch = int(round(1.0 / rate / dt_sim))
        while k < n_epochs:
            x, y, h, _, alt = self.sample(min(s, self.length))
            lat, lon = self.frame.to_ll(x, y)
            moving = v > 0.05
            course = (90.0 - math.degrees(h)) % 360.0
            out.append(dict(t=k / rate, lat=lat, lon=lon, x=x, y=y, speed=v, course=course, alt=alt,
                            s=s, moving=moving))
            k += 1
            for _ in range(steps_per_epoch):
                t += dt_sim
                if t < hold_until or s >= self.length:
                    v = 0.0
                    continue
                target = next_stop[0] * self.STEP if next_stop else self.length
                v = max(self.sample(s)[3], 0.4)
                s += v * dt_sim
                if s >= target:
                    s = target
                    v = 0.0
                    if next_stop:
                        hold_until = t + next_stop[1]
                        next_stop = next(stop_iter, None)
            # speed reported at the epoch = instantaneous profile speed
            if not (t < hold_until or s >= self.length):
                v = max(self.sample(s)[3], 0.4) if s > 0 else 0.0
        return out


class OU:
    """Ornstein-Uhlenbeck noise: correlated, bounded in practice."""

    def __init__(self, rng, sigma, tau, dt=1.0):
        self.rng, self.sigma = rng, sigma
        self.a = math.exp(-dt / tau)
        self.b = sigma * math.sqrt(1 - self.a ** 2)
        self.x = rng.gauss(0, sigma)

    def step(self):
        self.x = self.a * self.x + self.b * self.rng.gauss(0, 1)
        return self.x


# --------------------------------------------------------------------------------------------------
# Satellites
# --------------------------------------------------------------------------------------------------

SYSTEMS = {
    # talker: (GSA systemId NMEA 4.11, GSV signalId, PRN range as numbered in NMEA)
    "GP": (1, 1, range(1, 33)),
    "GL": (2, 1, range(65, 97)),
    "GA": (3, 7, range(1, 37)),
    "GB": (4, 1, range(1, 38)),
}


class Sky:
    def __init__(self, rng, counts):
        self.rng = rng
        self.sats = {}
        for talker, n in counts.items():
            prns = sorted(rng.sample(list(SYSTEMS[talker][2]), n))
            sats = []
            for j, prn in enumerate(prns):
                # spread azimuths, elevations biased low like a real sky, one high satellite per system
                az = (j * 360.0 / n + rng.gauss(0, 25)) % 360
                el = 4 + 0.95 * math.degrees(math.asin(rng.random())) if j else 50 + 30 * rng.random()
                sats.append(dict(prn=prn, az=az, el=el, daz=rng.gauss(0, 0.5) / 60, del_=rng.gauss(0, 0.4) / 60,
                                 bias=rng.gauss(0, 2.0), phase=rng.random() * 6.28))
            self.sats[talker] = sats

    def state(self, t, mask_deg, mask_amp, outage=False):
        """Per talker: list of (prn, el, az, cn0|None, used). mask_* models urban canyon blocking."""
        res = {}
        for talker, sats in self.sats.items():
            rows = []
            for sat in sats:
                el = sat["el"] + sat["del_"] * t
                az = (sat["az"] + sat["daz"] * t) % 360
                if el < 1:
                    continue
                mask = mask_deg + mask_amp * math.sin(t / 41.0 + sat["phase"])
                if outage:
                    cn0 = None
                else:
                    cn0 = 24 + 0.32 * min(el, 70) + sat["bias"] + self.rng.gauss(0, 1.2)
                    if el < mask:
                        cn0 -= 12
                    cn0 = int(round(min(cn0, 51)))
                    if cn0 < 16:
                        cn0 = None
                used = cn0 is not None and cn0 >= 30 and el >= 8
                rows.append((sat["prn"], int(round(el)), int(round(az)) % 360, cn0, used))
            res[talker] = rows
        return res


def dops(state):
    """(PDOP, HDOP, VDOP) from the used satellites' geometry with one receiver clock per system."""
    systems = [t for t in state if any(r[4] for r in state[t])]
    nunk = 3 + len(systems)
    rows = []
    for si, talker in enumerate(systems):
        for prn, el, az, cn0, used in state[talker]:
            if not used:
                continue
            e, a = math.radians(el), math.radians(az)
            row = [-math.cos(e) * math.sin(a), -math.cos(e) * math.cos(a), -math.sin(e)] + [0.0] * len(systems)
            row[3 + si] = 1.0
            rows.append(row)
    if len(rows) < nunk + 1:
        return 99.99, 99.99, 99.99
    m = [[sum(r[i] * r[j] for r in rows) for j in range(nunk)] + [1.0 if i == j else 0.0 for j in range(nunk)]
         for i in range(nunk)]
    for c in range(nunk):  # Gauss-Jordan
        p = max(range(c, nunk), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        piv = m[c][c]
        m[c] = [x / piv for x in m[c]]
        for r in range(nunk):
            if r != c and m[r][c] != 0:
                f = m[r][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    q = [[m[i][nunk + j] for j in range(nunk)] for i in range(nunk)]
    h = math.sqrt(q[0][0] + q[1][1])
    v = math.sqrt(q[2][2])
    return math.sqrt(h * h + v * v), h, v


def gsv_lines(talker, rows, signal_id):
    """GSV group for one system, 4 satellites per sentence; signal_id None = pre-4.10 (no field)."""
    if not rows:
        body = "%sGSV,1,1,00" % talker + (",%d" % signal_id if signal_id is not None else "")
        return [sentence(body)]
    n = (len(rows) + 3) // 4
    out = []
    for i in range(n):
        body = "%sGSV,%d,%d,%02d" % (talker, n, i + 1, len(rows))
        for prn, el, az, cn0, _ in rows[4 * i:4 * i + 4]:
            body += ",%02d,%02d,%03d,%s" % (prn, el, az, "" if cn0 is None else "%02d" % cn0)
        if signal_id is not None:
            body += ",%d" % signal_id
        out.append(sentence(body))
    return out


def gsa_line(talker, mode, prns, pdop, hdop, vdop, system_id=None, dop_fmt="%.2f"):
    fields = ["%02d" % p for p in prns[:12]] + [""] * (12 - min(len(prns), 12))
    body = "%sGSA,A,%d,%s,%s,%s,%s" % (talker, mode, ",".join(fields), dop_fmt % pdop, dop_fmt % hdop, dop_fmt % vdop)
    if system_id is not None:
        body += ",%d" % system_id
    return sentence(body)


# --------------------------------------------------------------------------------------------------
# u-blox style multi-GNSS epoch writer (used by drive, fix-loss, dirty)
# --------------------------------------------------------------------------------------------------

class UbloxEpochs:
    """Builds the sentences of one epoch as a u-blox M8/F9 at NMEA 4.11 would (GN talker)."""

    def __init__(self, rng, sky, geoid_sep, gsv_every=1, vtg=True):
        self.rng, self.sky, self.geoid_sep = rng, sky, geoid_sep
        self.gsv_every, self.vtg = gsv_every, vtg
        self.noise_e = OU(rng, 0.5, 25)
        self.noise_n = OU(rng, 0.5, 25)
        self.noise_u = OU(rng, 1.0, 40)
        self.held = None  # static hold: the position reported while stopped

    def epoch(self, when, truth, k, frame, env=(8.0, 0.0), outage=False, degraded=0):
        """Lines (list of (kind, text)) for epoch k at datetime `when`."""
        rng = self.rng
        tm, date = fmt_time(when), fmt_date(when)
        st = self.sky.state(truth["t"], env[0], env[1], outage=outage)
        if degraded:  # just reacquired: only the strongest few satellites are used yet
            for talker in st:
                rows = sorted(st[talker], key=lambda r: -(r[3] or 0))
                keep = {r[0] for r in rows[:degraded]}
                st[talker] = [(p, e, a, c, u and p in keep) for p, e, a, c, u in st[talker]]
        en, nn, un = self.noise_e.step(), self.noise_n.step(), self.noise_u.step()
        lines = []
        if outage:
            lines.append(("RMC", sentence("GNRMC,%s,V,,,,,,,%s,,,N,V" % (tm, date))))
            if self.vtg:
                lines.append(("VTG", sentence("GNVTG,,,,,,,,,N")))
            lines.append(("GGA", sentence("GNGGA,%s,,,,,0,00,99.99,,,,,," % tm)))
            for talker in self.sky.sats:
                lines.append(("GSA", gsa_line("GN", 1, [], 99.99, 99.99, 99.99, SYSTEMS[talker][0])))
            if k % self.gsv_every == 0:
                for talker in self.sky.sats:
                    lines += [("GSV", l) for l in gsv_lines(talker, [], SYSTEMS[talker][1])]
            return lines, None
        if truth["moving"] or self.held is None:
            lat, lon = frame.to_ll(truth["x"] + en, truth["y"] + nn)
            self.held = None if truth["moving"] else (lat, lon)
        else:
            lat, lon = self.held  # static hold: the position is frozen while stopped
        spd = truth["speed"]
        if spd > 0.05:
            spd_kn = max(0.0, spd + rng.gauss(0, 0.03)) * KNOTS_PER_MPS
            course = "%.2f" % ((truth["course"] + rng.gauss(0, 0.25 if spd > 2 else 2.0)) % 360)
        else:
            spd_kn = abs(rng.gauss(0, 0.008))
            course = ""
        alt = truth["alt"] + un
        pdop, hdop, vdop = dops(st)
        nsv = sum(1 for rows in st.values() for r in rows if r[4])
        la, lh = fmt_lat(lat)
        lo, loh = fmt_lon(lon)
        lines.append(("RMC", sentence("GNRMC,%s,A,%s,%s,%s,%s,%.3f,%s,%s,,,A,V" % (tm, la, lh, lo, loh, spd_kn, course, date))))
        if self.vtg:
            lines.append(("VTG", sentence("GNVTG,%s,T,,M,%.3f,N,%.3f,K,A" % (course, spd_kn, spd_kn * 1.852))))
        lines.append(("GGA", sentence("GNGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,%.1f,M,," %
                                      (tm, la, lh, lo, loh, nsv, hdop, alt, self.geoid_sep))))
        for talker in self.sky.sats:
            used = [r[0] for r in st[talker] if r[4]]
            lines.append(("GSA", gsa_line("GN", 3, used, pdop, hdop, vdop, SYSTEMS[talker][0])))
        if k % self.gsv_every == 0:
            for talker in self.sky.sats:
                lines += [("GSV", l) for l in gsv_lines(talker, st[talker], SYSTEMS[talker][1])]
        info = dict(lat=lat, lon=lon, alt=alt, nsv=nsv, hdop=hdop, speed_kn=spd_kn, course=course)
        return lines, info


def render(lines):
    return "".join(text + CRLF for _, text in lines).encode("latin-1")


# --------------------------------------------------------------------------------------------------
# Fixture 1: drive through Munich and up the A9, multi-GNSS, 1 Hz
# --------------------------------------------------------------------------------------------------

# (lat, lon, limit km/h for the next segment, corner radius m, altitude MSL m)
MUNICH_A9 = [
    (48.14060, 11.55880, 30, 12, 519),   # Bahnhofplatz, in front of Hauptbahnhof
    (48.13985, 11.56300, 50, 14, 519),   # Prielmayerstraße
    (48.13960, 11.56530, 50, 14, 519),   # Karlsplatz (Stachus)
    (48.14230, 11.56830, 50, 16, 518),   # Lenbachplatz
    (48.14310, 11.57280, 50, 14, 518),   # Maximiliansplatz
    (48.14280, 11.57700, 50, 12, 518),   # Odeonsplatz
    (48.14400, 11.57790, 50, 40, 517),   # Ludwigstraße
    (48.15020, 11.58050, 50, 40, 515),   # Universität
    (48.15260, 11.58190, 50, 60, 514),   # Siegestor
    (48.16190, 11.58630, 50, 60, 511),   # Münchner Freiheit
    (48.17350, 11.58950, 60, 120, 508),  # Leopoldstraße north, Nordfriedhof
    (48.17950, 11.59180, 100, 400, 506), # start of the A9
    (48.19150, 11.60020, 100, 600, 503), # Frankfurter Ring
    (48.21650, 11.62000, 100, 900, 497), # Kreuz München-Nord
    (48.24400, 11.63600, 100, 900, 487), # Garching-Süd
    (48.26950, 11.64950, 100, 900, 480), # Garching-Nord
    (48.29600, 11.66400, 100, 900, 472), # Eching-Ost
    (48.32000, 11.67600, 100, 900, 466), # Kreuz Neufahrn
    (48.33800, 11.68400, 70, 150, 462),  # exit ramp
    (48.34150, 11.69250, 50, 25, 460),   # junction at the end of the ramp
    (48.34420, 11.69380, 30, 8, 459),    # side road, parking
]


def gen_drive():
    rng = random.Random(20260314)
    start = dt.datetime(2026, 3, 14, 8, 0, 0)
    route = Route(MUNICH_A9, stops=[(470.0, 14.0), (2950.0, 38.0), (25430.0, 6.0)], rng=rng)
    duration = 22 * 60
    truth = route.drive(duration, preroll=8.0)
    sky = Sky(rng, {"GP": 9, "GL": 6, "GA": 6, "GB": 6})
    writer = UbloxEpochs(rng, sky, geoid_sep=47.5, gsv_every=1, vtg=True)
    city_end = route.waypoint_s[11]
    lines, infos = [], []
    for k, tr in enumerate(truth):
        env = (26.0, 10.0) if tr["s"] < city_end else (9.0, 3.0)
        ls, info = writer.epoch(start + dt.timedelta(seconds=k), tr, k, route.frame, env=env)
        lines += ls
        infos.append(info)
    return render(lines), truth, infos, route


# --------------------------------------------------------------------------------------------------
# Fixture 2: stationary receiver in Berlin, GPS only, older NMEA 2.3 style
# --------------------------------------------------------------------------------------------------

def gen_stationary():
    rng = random.Random(5213377)
    start = dt.datetime(2026, 3, 14, 12, 0, 0)
    lat0, lon0, alt0, sep = 52.51628, 13.37770, 36.0, 39.6  # Pariser Platz, Brandenburger Tor
    frame = LocalFrame(lat0, lon0)
    sky = Sky(rng, {"GP": 11})
    e = n = 0.0
    u = OU(rng, 2.0, 60)
    lines = []
    for k in range(600):
        # bounded random walk: steps of ~0.35 m, pulled back towards the antenna, clipped at 4 m
        e += rng.gauss(0, 0.35) - 0.03 * e
        n += rng.gauss(0, 0.35) - 0.03 * n
        r = math.hypot(e, n)
        if r > 4.0:
            e, n = e * 4.0 / r, n * 4.0 / r
        lat, lon = frame.to_ll(e, n)
        when = start + dt.timedelta(seconds=k)
        tm, date = fmt_time(when, 3), fmt_date(when)
        st = sky.state(float(k), 10.0, 0.0)
        pdop, hdop, vdop = dops(st)
        nsv = sum(1 for r_ in st["GP"] if r_[4])
        la, lh = fmt_lat(lat, 4)
        lo, loh = fmt_lon(lon, 4)
        spd = abs(rng.gauss(0, 0.05))
        crs = rng.random() * 360
        lines.append(("GGA", sentence("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.1f,%.1f,M,%.1f,M,,0000" %
                                      (tm, la, lh, lo, loh, nsv, hdop, alt0 + u.step(), sep))))
        lines.append(("GSA", gsa_line("GP", 3, [r_[0] for r_ in st["GP"] if r_[4]], pdop, hdop, vdop, None, "%.1f")))
        if k % 5 == 0:
            lines += [("GSV", l) for l in gsv_lines("GP", st["GP"], None)]
        lines.append(("RMC", sentence("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.2f,%s,,,A" % (tm, la, lh, lo, loh, spd, crs, date))))
    return render(lines)


# --------------------------------------------------------------------------------------------------
# Fixture 3: drive with a 90 s tunnel outage (Munich, Mittlerer Ring Ost), GPS+GLONASS, 1 Hz
# --------------------------------------------------------------------------------------------------

MITTLERER_RING = [
    (48.11600, 11.63150, 50, 30, 530),   # Innsbrucker Ring
    (48.12350, 11.62550, 60, 80, 528),
    (48.13050, 11.61900, 60, 120, 526),  # Leuchtenbergring
    (48.13500, 11.61300, 60, 200, 524),  # south portal, Richard-Strauss-Tunnel
    (48.14900, 11.61150, 60, 200, 520),  # north portal
    (48.15650, 11.61000, 50, 40, 516),   # Effnerplatz
    (48.16000, 11.60250, 50, 60, 512),   # Isarring
    (48.15950, 11.59200, 50, 60, 508),   # Tivolibrücke
    (48.16150, 11.58650, 50, 20, 510),   # Biedersteiner Straße
    (48.16300, 11.58400, 30, 10, 511),
]
TUNNEL = (180, 270)  # epochs [180, 270) have no fix: 00:03:00 .. 00:04:29 into the log


def gen_fix_loss():
    rng = random.Random(48131)
    start = dt.datetime(2026, 3, 14, 10, 0, 0)
    route = Route(MITTLERER_RING, stops=[(5600.0, 20.0)], rng=rng)
    truth = route.drive(8 * 60, preroll=5.0)
    sky = Sky(rng, {"GP": 10, "GL": 7})
    writer = UbloxEpochs(rng, sky, geoid_sep=47.4, gsv_every=5, vtg=False)
    lines = []
    for k, tr in enumerate(truth):
        outage = TUNNEL[0] <= k < TUNNEL[1]
        degraded = {TUNNEL[1]: 3, TUNNEL[1] + 1: 4, TUNNEL[1] + 2: 5}.get(k, 0)
        ls, _ = writer.epoch(start + dt.timedelta(seconds=k), tr, k, route.frame, env=(20.0, 8.0),
                             outage=outage, degraded=degraded)
        lines += ls
    return render(lines), truth


# --------------------------------------------------------------------------------------------------
# Fixture 4: dirty log across a UTC midnight (Sydney Harbour Bridge northbound), GN talker
# --------------------------------------------------------------------------------------------------

SYDNEY = [
    (-33.87300, 151.20700, 50, 15, 25),  # York Street, Wynyard
    (-33.86400, 151.20680, 60, 150, 40),  # Bradfield Highway approach
    (-33.85800, 151.20980, 70, 600, 55),
    (-33.85230, 151.21080, 70, 600, 58),  # Sydney Harbour Bridge, mid span
    (-33.84450, 151.21000, 70, 400, 45),  # Milsons Point
    (-33.83600, 151.20700, 80, 500, 60),  # Warringah Freeway
    (-33.82400, 151.20200, 80, 500, 80),
    (-33.81500, 151.19900, 60, 30, 90),
    (-33.81200, 151.19500, 50, 15, 92),
]


def gen_dirty():
    rng = random.Random(30062026)
    start = dt.datetime(2026, 6, 30, 23, 57, 30)
    route = Route(SYDNEY, stops=[(400.0, 20.0)], rng=rng)
    n_epochs = 300
    truth = route.drive(n_epochs, preroll=3.0)
    sky = Sky(rng, {"GP": 9, "GL": 7, "GA": 6})
    writer = UbloxEpochs(rng, sky, geoid_sep=22.3, gsv_every=5, vtg=True)
    # entries: [kind, text, terminator, epoch, status]; status "ok" or the injected category
    entries = []
    for k, tr in enumerate(truth):
        ls, _ = writer.epoch(start + dt.timedelta(seconds=k), tr, k, route.frame, env=(18.0, 8.0))
        entries += [[kind, text, CRLF, k, "ok"] for kind, text in ls]

    pick = random.Random(7)  # injection choices, separate stream

    def choose(kind, n, avoid_epochs):
        cands = [e for e in entries if e[0] == kind and e[4] == "ok" and e[3] not in avoid_epochs and 3 <= e[3] < n_epochs - 2]
        return pick.sample(cands, n)

    touched = set()
    counts = {}
    # bad checksums: 3 RMC, 2 GGA, 1 GSA, 1 GSV; alternately a wrong checksum and a changed payload digit
    bad = choose("RMC", 3, touched)
    touched |= {e[3] for e in bad}
    bad += choose("GGA", 2, touched)
    touched |= {e[3] for e in bad}
    bad += choose("GSA", 1, touched) + choose("GSV", 1, touched)
    for i, e in enumerate(bad):
        body, cs = e[1][1:].split("*")
        if i % 2 == 0:
            e[1] = "$%s*%02X" % (body, int(cs, 16) ^ (1 + pick.randrange(255)))
        else:
            digits = [j for j, c in enumerate(body) if c.isdigit() and j > 12]
            j = pick.choice(digits)
            new = str((int(body[j]) + 1 + pick.randrange(9)) % 10)
            e[1] = "$%s%s%s*%s" % (body[:j], new, body[j + 1:], cs)
        e[4] = "bad_checksum"
    counts["bad_checksum"] = {"total": len(bad), "RMC": 3, "GGA": 2, "GSA": 1, "GSV": 1}
    # truncated lines: cut mid-field, no checksum
    trunc = choose("RMC", 2, touched)
    touched |= {e[3] for e in trunc}
    trunc += choose("GGA", 2, touched)
    touched |= {e[3] for e in trunc}
    trunc += choose("GSA", 1, touched)
    for e in trunc:
        body = e[1].split("*")[0]
        cuts = [j for j in range(12, len(body) - 1) if body[j - 1] != "," and body[j] != ","]
        e[1] = body[:pick.choice(cuts)]
        e[4] = "truncated"
    counts["truncated"] = {"total": len(trunc), "RMC": 2, "GGA": 2, "GSA": 1}

    # extra lines, inserted at random places
    extras = []
    for _ in range(4):
        n = 20 + pick.randrange(60)
        allowed = [b for b in range(256) if b not in (0x0A, 0x0D, 0x24)]
        data = [pick.choice(allowed) for _ in range(n)]
        data[pick.randrange(n)] = 0x00
        data[pick.randrange(n)] = 0xFF
        data[0] = 0x00 if data[0] != 0xFF else data[0]
        if 0x00 not in data:
            data[1] = 0x00
        if 0xFF not in data:
            data[2] = 0xFF
        extras.append(["GARBAGE", bytes(data).decode("latin-1"), CRLF, None, "binary_garbage"])
    extras.append(["TXT", sentence("GNTXT,01,01,02," + "ANTSTATUS=OK " * 19), CRLF, None, "overlong"])
    junk = "".join(chr(33 + pick.randrange(94)) for _ in range(300)).replace("$", "#")
    extras.append(["JUNK", junk, CRLF, None, "overlong"])
    many = "GNGSV,1,1,16" + "".join(",%02d,%02d,%03d,%02d" % (p, 10 + p, 20 * p, 30 + p) for p in range(1, 17)) + ",1"
    extras.append(["GSV", sentence(many), CRLF, None, "overlong"])
    for _ in range(4):
        extras.append(["BLANK", "", CRLF, None, "blank"])
    # proprietary u-blox sentences, valid checksums
    for i in range(6):
        k = 10 + i * 47
        when = start + dt.timedelta(seconds=k)
        tr = truth[k]
        if i % 2 == 0:
            la = "%011.6f" % (abs(int(tr["lat"])) * 100 + (abs(tr["lat"]) % 1) * 60)
            lo = "%012.6f" % (abs(int(tr["lon"])) * 100 + (abs(tr["lon"]) % 1) * 60)
            body = "PUBX,00,%s,%s,S,%s,E,%.3f,G3,2.1,3.0,%.3f,%.2f,0.010,,0.92,1.19,0.77,14,0,0" % (
                fmt_time(when), la, lo, tr["alt"] + 22.3, tr["speed"] * 3.6, tr["course"])
        else:
            tow = ((when.weekday() + 1) % 7) * 86400 + when.hour * 3600 + when.minute * 60 + when.second + 18
            body = "PUBX,04,%s,%s,%d.00,2425,18,1930035,-2660.664,43," % (fmt_time(when), fmt_date(when), tow)
        extras.append(["PUBX", sentence(body), CRLF, k, "pubx"])
    for body in ("GNXYZ,1,2,3", "GPQQQ,A,,17.5,M", "GNFOO,080000.00,BAR", "IIZZZ,7,,,"):
        extras.append(["UNKNOWN", sentence(body), CRLF, None, "unknown_sentence"])
    for e in extras:
        if e[3] is not None:  # PUBX: after the GGA of its epoch
            idx = next(i for i, x in enumerate(entries) if x[3] == e[3] and x[0] == "GGA") + 1
        else:
            idx = 10 + pick.randrange(len(entries) - 20)
        entries.insert(idx, e)
    for cat in ("binary_garbage", "overlong", "blank", "pubx", "unknown_sentence"):
        counts[cat] = sum(1 for e in extras if e[4] == cat)
    # terminators: one intact RMC with LF only; one intact GSA followed by a GSV with CR only
    rmc_ok = [e for e in entries if e[0] == "RMC" and e[4] == "ok" and e[3] not in touched and 3 <= e[3] < 297]
    lf = pick.choice(rmc_ok)
    lf[2] = "\n"
    gsa_ok = [entries[i] for i in range(len(entries) - 1)
              if entries[i][0] == "GSA" and entries[i][4] == "ok" and entries[i + 1][0] == "GSV"
              and entries[i + 1][4] == "ok" and entries[i][3] != lf[3]]
    cr = pick.choice(gsa_ok)
    cr[2] = "\r"
    counts["lf_only"] = 1
    counts["cr_only"] = 1

    data = "".join(e[1] + e[2] for e in entries).encode("latin-1")
    # expectations, computed from the entries
    rmc_intact = {e[3] for e in entries if e[0] == "RMC" and e[4] == "ok"}
    gga_intact = {e[3] for e in entries if e[0] == "GGA" and e[4] == "ok"}
    valid = sorted(rmc_intact & gga_intact)
    invalid = []
    for k in range(n_epochs):
        if k in valid:
            continue
        bad_kinds = [(e[0], e[4]) for e in entries if e[3] == k and e[0] in ("RMC", "GGA") and e[4] != "ok"]
        invalid.append({"epoch": k, "time": fmt_time(start + dt.timedelta(seconds=k)),
                        "damaged": ["%s:%s" % b for b in bad_kinds]})
    midnight = 150
    physical_lines = len(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")) - 1
    expect = {
        "file": "dirty.nmea",
        "start": "2026-06-30T23:57:30Z",
        "end": (start + dt.timedelta(seconds=n_epochs - 1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rate_hz": 1,
        "epochs": n_epochs,
        "valid_epoch_definition": "an epoch (one UTC second) whose GNRMC line and GNGGA line are both intact: "
                                  "complete, correct checksum, not injected; all epochs of this file have a fix "
                                  "(RMC status A, GGA quality 1), so valid epochs = valid fix epochs",
        "valid_fix_epochs": len(valid),
        "valid_fix_epochs_before_midnight": sum(1 for k in valid if k < midnight),
        "valid_fix_epochs_after_midnight": sum(1 for k in valid if k >= midnight),
        "intact_rmc_lines": len(rmc_intact),
        "intact_gga_lines": len(gga_intact),
        "invalid_epochs": invalid,
        "injected": counts,
        "date_rollover": {"last_time_before": "235959.00", "date_before": "300626",
                          "first_time_after": "000000.00", "date_after": "010726", "epoch_index": midnight},
        "terminators": {"lf_only_line": lf[1][:17] + "...", "cr_only_line": cr[1][:17] + "...",
                        "note": "all other lines end in CRLF; the CR-only GSA line is followed by a GSV line, "
                                "so a reader splitting on LF only merges those two and still sees every RMC/GGA intact"},
        "physical_lines_split_on_cr_lf_crlf": physical_lines,
        "bytes": len(data),
    }
    return data, expect


# --------------------------------------------------------------------------------------------------
# long: big benchmark input, RMC+GGA only
# --------------------------------------------------------------------------------------------------

def gen_long(path, hours, rate, seed, start):
    rng = random.Random(seed)
    n = int(round(hours * 3600 * rate))
    dt_ = 1.0 / rate
    lat, lon, alt = 48.13710, 11.57540, 519.0   # Munich Marienplatz; wanders from there
    heading = 0.7  # math angle
    v, kappa = 0.0, 0.0
    mode_left, vtarget, stop_left = 0.0, 0.0, 10.0
    next_stop = 60.0
    t0 = start
    day_secs = t0.hour * 3600 + t0.minute * 60 + t0.second
    day = t0.date()
    date_s = day.strftime("%d%m%y")
    decimals = 3 if rate > 1 else 2
    out = open(path, "w", encoding="ascii", newline="")
    buf = []
    nsv, hdop = 16, 0.9
    lat_r = math.radians(lat)
    ms = 0
    step_ms = int(round(1000 / rate))
    for k in range(n):
        tsec = day_secs + ms / 1000.0
        if tsec >= 86400:
            day_secs -= 86400
            tsec -= 86400
            day = day + dt.timedelta(days=1)
            date_s = day.strftime("%d%m%y")
        isec = int(tsec)
        hh, rem = divmod(isec, 3600)
        mm, ss = divmod(rem, 60)
        frac = int(round((tsec - isec) * 10 ** decimals))
        tm = "%02d%02d%02d.%0*d" % (hh, mm, ss, decimals, frac)
        # motion: regimes of city / rural / highway driving, stops in the city
        mode_left -= dt_
        if mode_left <= 0:
            r = rng.random()
            vtarget = (50 if r < 0.45 else 80 if r < 0.7 else 110) / 3.6
            mode_left = 120 + rng.random() * 900
            next_stop = 30 + rng.random() * 150 if vtarget < 15 else 1e9
        next_stop -= dt_
        if next_stop <= 0:
            stop_left = 10 + rng.random() * 40
            next_stop = 60 + rng.random() * 150 if vtarget < 15 else 1e9
        if stop_left > 0:
            goal = 0.0
            if v < 0.01:
                stop_left -= dt_
        else:
            goal = vtarget * (1.0 + 0.03 * math.sin(k * dt_ / 47.0) + 0.015 * math.sin(k * dt_ / 13.0))
        v += max(-2.2 * dt_, min(1.4 * dt_, goal - v))
        v = max(0.0, v)
        # curvature random walk bounded by lateral acceleration
        kappa += rng.gauss(0, 0.0004 if vtarget < 15 else 0.00005) * math.sqrt(dt_) - kappa * 0.05 * dt_
        kmax = 2.0 / max(v * v, 4.0)
        kappa = max(-kmax, min(kmax, kappa))
        heading += kappa * v * dt_
        d = v * dt_
        lat_r += d * math.sin(heading) / EARTH_R
        lon += math.degrees(d * math.cos(heading) / (EARTH_R * math.cos(lat_r)))
        lat = math.degrees(lat_r)
        alt += d * 0.002 * math.sin(k / 5000.0) + rng.gauss(0, 0.02)
        if k % (10 * rate if rate >= 1 else 1) == 0:
            nsv = max(12, min(24, nsv + int(round(rng.gauss(0, 0.6)))))
            hdop = max(0.6, min(1.5, 0.45 + 9.0 / nsv + rng.gauss(0, 0.05)))
        la, lh = fmt_lat(lat)
        lo, loh = fmt_lon(lon)
        kn = v * KNOTS_PER_MPS
        course = "%.2f" % ((90.0 - math.degrees(heading)) % 360.0) if v > 0.05 else ""
        b1 = "GNRMC,%s,A,%s,%s,%s,%s,%.3f,%s,%s,,,A,V" % (tm, la, lh, lo, loh, kn, course, date_s)
        b2 = "GNGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,47.5,M,," % (tm, la, lh, lo, loh, nsv, hdop, alt)
        buf.append("$%s*%02X\r\n$%s*%02X\r\n" % (b1, reduce(xor, b1.encode(), 0), b2, reduce(xor, b2.encode(), 0)))
        if len(buf) >= 4096:
            out.write("".join(buf))
            buf.clear()
        ms += step_ms
    out.write("".join(buf))
    out.close()
    return n


# --------------------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------------------

def generate_all():
    drive, dtruth, dinfos, _ = gen_drive()
    fixl, _ = gen_fix_loss()
    dirty, expect = gen_dirty()
    return {
        "drive-multignss-1hz.nmea": drive,
        "stationary-jitter.nmea": gen_stationary(),
        "fix-loss.nmea": fixl,
        "dirty.nmea": dirty,
        "dirty.expect.json": (json.dumps(expect, indent=2) + "\n").encode(),
    }


def split_lines(data):
    """Lines split on CRLF, CR or LF (a tolerant reader)."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")[:-1]


def intact(line):
    """The NMEA payload fields of a complete sentence with a correct checksum, else None."""
    try:
        s = line.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not s.startswith("$") or len(s) < 4 or s[-3] != "*":
        return None
    body = s[1:-3]
    try:
        if int(s[-2:], 16) != checksum(body):
            return None
    except ValueError:
        return None
    return body.split(",")


def rmc_epochs(data):
    out = []
    for line in split_lines(data):
        f = intact(line)
        if f and f[0].endswith("RMC"):
            out.append(f)
    return out


def check():
    failures = []

    def fail(msg):
        failures.append(msg)
        print("FAIL", msg)

    files = {}
    for name in ("drive-multignss-1hz.nmea", "stationary-jitter.nmea", "fix-loss.nmea", "dirty.nmea", "dirty.expect.json"):
        with open(os.path.join(FIXTURES, name), "rb") as f:
            files[name] = f.read()
    regen = generate_all()
    for name, data in regen.items():
        if files[name] != data:
            fail("%s: regeneration differs from the committed file" % name)
    for name in ("drive-multignss-1hz.nmea", "stationary-jitter.nmea", "fix-loss.nmea"):
        data = files[name]
        if len(data) > 2_500_000:
            fail("%s: %d bytes" % (name, len(data)))
        if data.count(b"\r\n") != data.count(b"\n") or data.count(b"\r\n") != data.count(b"\r"):
            fail("%s: a line does not end in CRLF" % name)
        lines = data.split(b"\r\n")[:-1]
        bad = [l for l in lines if intact(l) is None or len(l) > 82]
        if bad:
            fail("%s: %d lines with bad checksum/format/length, first %r" % (name, len(bad), bad[0]))
        print("ok %-26s %5d lines, %7d bytes, all checksums correct, CRLF, <= 82 chars" % (name, len(lines), len(data)))
    # drive plausibility
    rmcs = rmc_epochs(files["drive-multignss-1hz.nmea"])
    ggas = [intact(l) for l in files["drive-multignss-1hz.nmea"].split(b"\r\n") if l.startswith(b"$GNGGA")]
    if len(rmcs) != 1320 or len(ggas) != 1320:
        fail("drive: %d RMC, %d GGA epochs" % (len(rmcs), len(ggas)))
    nsv = [int(g[7]) for g in ggas]
    hd = [float(g[8]) for g in ggas]
    if min(nsv) < 12 or max(nsv) > 24:
        fail("drive: satellites used %d..%d" % (min(nsv), max(nsv)))
    if min(hd) < 0.6 or max(hd) > 1.5:
        fail("drive: HDOP %.2f..%.2f" % (min(hd), max(hd)))
    worst_speed = worst_course = 0.0
    for a, b in zip(rmcs, rmcs[1:]):
        la1, lo1 = parse_lat(a[3], a[4]), parse_lon(a[5], a[6])
        la2, lo2 = parse_lat(b[3], b[4]), parse_lon(b[5], b[6])
        dist = haversine(la1, lo1, la2, lo2)
        vmean = (float(a[7]) + float(b[7])) / 2 / KNOTS_PER_MPS
        worst_speed = max(worst_speed, abs(dist - vmean))
        if vmean > 5 and a[8] and b[8]:
            brg = bearing(la1, lo1, la2, lo2)
            cmean = (float(a[8]) + angle_diff(float(b[8]), float(a[8])) / 2) % 360
            worst_course = max(worst_course, abs(angle_diff(brg, cmean)))
    if worst_speed > 2.5 or worst_course > 10:
        fail("drive: speed vs displacement off by %.2f m/s, course vs bearing by %.1f deg" % (worst_speed, worst_course))
    kn = [float(r[7]) for r in rmcs]
    print("ok drive: sats used %d..%d, HDOP %.2f..%.2f, max speed %.1f km/h, |displacement - speed| <= %.2f m/s, "
          "|bearing - course| <= %.1f deg" % (min(nsv), max(nsv), min(hd), max(hd), max(kn) * 1.852, worst_speed, worst_course))
    # stationary
    rmcs = rmc_epochs(files["stationary-jitter.nmea"])
    pts = [(parse_lat(r[3], r[4]), parse_lon(r[5], r[6])) for r in rmcs]
    c = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))
    spread = max(haversine(c[0], c[1], p[0], p[1]) for p in pts)
    if len(rmcs) != 600 or spread > 8:
        fail("stationary: %d epochs, spread %.1f m" % (len(rmcs), spread))
    print("ok stationary: %d epochs, max distance from centroid %.1f m" % (len(rmcs), spread))
    # fix loss
    rmcs = rmc_epochs(files["fix-loss.nmea"])
    status = "".join(r[2] for r in rmcs)
    want = "A" * TUNNEL[0] + "V" * (TUNNEL[1] - TUNNEL[0]) + "A" * (480 - TUNNEL[1])
    if status != want:
        fail("fix-loss: RMC status sequence unexpected")
    print("ok fix-loss: %d epochs, no fix for epochs %d..%d" % (len(rmcs), TUNNEL[0], TUNNEL[1] - 1))
    # dirty: recount with a tolerant reader
    expect = json.loads(files["dirty.expect.json"])
    lines = split_lines(files["dirty.nmea"])
    rmc_t, gga_t = set(), set()
    for line in lines:
        f = intact(line)
        if f and len(line) <= 82 and f[0] == "GNRMC":
            rmc_t.add(f[1])
        if f and len(line) <= 82 and f[0] == "GNGGA":
            gga_t.add(f[1])
    got = len(rmc_t & gga_t)
    blank = sum(1 for l in lines if l == b"")
    garbage = sum(1 for l in lines if b"\x00" in l)
    overlong = sum(1 for l in lines if len(l) > 200)
    pubx = sum(1 for l in lines if l.startswith(b"$PUBX") and intact(l))
    if (got, blank, garbage, overlong, pubx, len(lines)) != (
            expect["valid_fix_epochs"], expect["injected"]["blank"], expect["injected"]["binary_garbage"],
            expect["injected"]["overlong"], expect["injected"]["pubx"], expect["physical_lines_split_on_cr_lf_crlf"]):
        fail("dirty: recount %r disagrees with dirty.expect.json" % ((got, blank, garbage, overlong, pubx, len(lines)),))
    print("ok dirty: recount agrees with dirty.expect.json (valid fix epochs %d of %d)" % (got, expect["epochs"]))
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("generate", help="regenerate the committed fixtures (the default)")
    sub.add_parser("check", help="verify the committed fixtures")
    lp = sub.add_parser("long", help="a big RMC+GGA log for benchmarks")
    lp.add_argument("--hours", type=float, default=8.0)
    lp.add_argument("--rate", type=float, default=10.0, help="epochs per second (Hz)")
    lp.add_argument("--output", required=True)
    lp.add_argument("--seed", type=int, default=8)
    lp.add_argument("--start", default="2026-03-14T08:00:00Z", help="UTC start, e.g. 2026-03-14T08:00:00Z")
    args = ap.parse_args(argv)
    if args.cmd == "check":
        return check()
    if args.cmd == "long":
        start = dt.datetime.strptime(args.start, "%Y-%m-%dT%H:%M:%SZ")
        n = gen_long(args.output, args.hours, args.rate, args.seed, start)
        print("wrote %s: %d epochs at %g Hz" % (args.output, n, args.rate))
        return 0
    os.makedirs(FIXTURES, exist_ok=True)
    for name, data in generate_all().items():
        with open(os.path.join(FIXTURES, name), "wb") as f:
            f.write(data)
        print("wrote Fixtures/%s (%d bytes)" % (name, len(data)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
