#!/usr/bin/env python3
"""A loopback Telegram Bot API server for tests (Python standard library only).

Written from the published contract (https://core.telegram.org/bots/api): the live-location methods
sendLocation, editMessageLiveLocation and stopMessageLiveLocation, their parameters and limits, the
response object ({"ok", "result"} or {"ok": false, "error_code", "description", "parameters"}), and
the documented flood limits (about one message a second in a chat, 20 a minute in a group).

    telegram-bot-api.py --token TOKEN --records FILE [--port N] [--chats ID,ID] [--script TOKENS]
                        [--live-period-scale X] [--first-message-id N] [--error-description TEXT]
                        [--tls-cert PEM --tls-key PEM]

Prints "listening PORT" on stdout once it accepts connections (port 0 picks a free one). Binds
127.0.0.1 only. With --tls-cert and --tls-key (PEM files) it serves HTTPS. Requests go to
/bot<TOKEN>/<method> (method names are case-insensitive, as the Bot API's); parameters come from
the query string, a JSON body or a form body.

The contract, as enforced here:
  - a wrong token: 401 Unauthorized; an unknown method: 404 Not Found.
  - --chats: the chats the bot is in (default: any); another chat_id: 400 "chat not found".
  - sendLocation: chat_id, latitude (-90..90), longitude (-180..180); live_period 60..86400 or
    0x7FFFFFFF; horizontal_accuracy 0..1500; heading 1..360. Returns the Message with a new
    message_id (from --first-message-id, default 1, then +1).
  - editMessageLiveLocation: chat_id, message_id, latitude, longitude (+ horizontal_accuracy,
    heading, live_period). Unknown message: 400 "message to edit not found". A message that is not
    live, whose live_period has passed (scaled by --live-period-scale, e.g. 0.01 makes 900 s last
    9 s) or that was stopped: 400 "message can't be edited". live_period (Bot API 7.3): the new
    period, seconds from the message's sending; 0x7FFFFFFF for ever, else it must extend the
    current one (be longer), by at most a day, and end within the next 90 days: otherwise 400
    "wrong live period specified"; absent: the period stays. The same location again with no new
    live_period: 400 "message is not modified: ...".
  - stopMessageLiveLocation: chat_id, message_id; a message no longer live: 400 "message can't be
    edited".
  - flood control per chat, for every call that changes a message: less than 1 s after the last
    one in a private chat (chat_id > 0), or more than 20 in the last 60 s in a group or channel
    (chat_id < 0 or @username): 429 "Too Many Requests: retry after N" with
    parameters.retry_after = N.

--script: comma-separated answers used one per request in arrival order, then "auto" for all:
    auto            the contract above
    STATUS          e.g. 500, 502: {"ok": false, "error_code": STATUS, "description": ...}; the
                    description is --error-description's TEXT when given (any characters: a
                    hostile server's), else "Scripted error STATUS"
    429:N           flood control with retry_after N, whatever the real rate
    close           closes the connection without answering

Each record (one JSON line): {"method", "params" (every value as text), "status", "description",
"message_id" (of the message concerned, if any), "token" ("auto" or the script token), "received"
(Unix seconds, float)}.
"""
import argparse
import json
import math
import threading
import time
from urllib.parse import parse_qsl, urlsplit

from loopback_server import QuietHandler, Records, ResponseScript, serve

NOT_MODIFIED = ("Bad Request: message is not modified: specified new message content and reply markup "
                "are exactly the same as a current content and reply markup of the message")
LIVE_FOREVER = 0x7FFFFFFF


class ApiError(Exception):
    def __init__(self, code, description, parameters=None):
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad(description):
    return ApiError(400, "Bad Request: " + description)


class State:
    def __init__(self, args):
        self.token = args.token
        self.chats = set(c for c in args.chats.split(",") if c) if args.chats else None
        self.script = ResponseScript(args.script, "auto")
        self.scale = args.live_period_scale
        self.error_description = args.error_description
        self.next_message_id = args.first_message_id
        self.messages = {}  # (chat, message_id) -> dict
        self.flood = {}  # chat -> list of accepted call times
        self.records = Records(args.records)
        # One call at a time: messages, flood control and the records change together.
        self.lock = threading.Lock()

    # -- parameters ----------------------------------------------------------------------------

    @staticmethod
    def chat_key(params):
        if "chat_id" not in params:
            raise bad("chat_id is empty")
        return str(params["chat_id"])

    def check_chat(self, chat):
        if self.chats is not None and chat not in self.chats:
            raise bad("chat not found")

    @staticmethod
    def number(params, name, low, high, required=True, integer=False):
        if name not in params:
            if required:
                raise bad(f"{name} is empty")
            return None
        try:
            value = int(params[name]) if integer else float(params[name])
        except (TypeError, ValueError):
            raise bad(f"wrong {name} specified")
        if not (low <= value <= high) or (isinstance(value, float) and not math.isfinite(value)):
            raise bad(f"wrong {name} specified")
        return value

    def location(self, params):
        location = {
            "latitude": self.number(params, "latitude", -90, 90),
            "longitude": self.number(params, "longitude", -180, 180),
        }
        accuracy = self.number(params, "horizontal_accuracy", 0, 1500, required=False)
        if accuracy is not None:
            location["horizontal_accuracy"] = accuracy
        heading = self.number(params, "heading", 1, 360, required=False, integer=True)
        if heading is not None:
            location["heading"] = heading
        return location

    # -- flood control -------------------------------------------------------------------------

    def flood_check(self, chat, now):
        """Raises 429 when a call now would exceed the chat's limit; else counts it."""
        times = [t for t in self.flood.get(chat, []) if now - t < 60]
        group = chat.startswith("-") or chat.startswith("@")
        if group:
            if len(times) >= 20:
                wait = 60 - (now - times[-20])
                self.flood[chat] = times
                raise flood(wait)
        elif times and now - times[-1] < 1.0:
            self.flood[chat] = times
            raise flood(1.0 - (now - times[-1]))
        times.append(now)
        self.flood[chat] = times

    # -- methods -------------------------------------------------------------------------------

    def message_object(self, chat, message):
        chat_type = "channel" if chat.startswith("@") else ("supergroup" if chat.startswith("-") else "private")
        chat_object = {"id": chat, "type": chat_type} if chat.startswith("@") else {"id": int(chat), "type": chat_type}
        location = dict(message["location"])
        if message["live_period"] is not None:
            location["live_period"] = message["live_period"]
        return {"message_id": message["message_id"], "date": int(message["date"]), "chat": chat_object,
                "location": location}

    def send_location(self, params, now):
        chat = self.chat_key(params)
        self.check_chat(chat)
        location = self.location(params)
        live_period = self.number(params, "live_period", 0, LIVE_FOREVER, required=False, integer=True)
        if live_period is not None and live_period != LIVE_FOREVER and not (60 <= live_period <= 86400):
            raise bad("wrong live period specified")
        self.flood_check(chat, now)
        message = {"message_id": self.next_message_id, "date": now, "live_period": live_period,
                   "location": location, "stopped": False}
        self.next_message_id += 1
        self.messages[(chat, message["message_id"])] = message
        return message["message_id"], self.message_object(chat, message)

    def editable(self, params, now):
        chat = self.chat_key(params)
        self.check_chat(chat)
        message_id = self.number(params, "message_id", 1, 2**31 - 1, integer=True)
        message = self.messages.get((chat, message_id))
        if message is None:
            raise bad("message to edit not found")
        live = message["live_period"]
        expired = live is not None and live != LIVE_FOREVER and now >= message["date"] + live * self.scale
        if live is None or message["stopped"] or expired:
            raise bad("message can't be edited")
        return chat, message_id, message

    def edit(self, params, now):
        chat, message_id, message = self.editable(params, now)
        location = self.location(params)
        live_period = self.number(params, "live_period", 0, LIVE_FOREVER, required=False, integer=True)
        if live_period is not None and live_period != LIVE_FOREVER:
            current = message["live_period"]
            ends = message["date"] + live_period * self.scale
            if not (current != LIVE_FOREVER and current < live_period <= current + 86400
                    and ends <= now + 90 * 86400 * self.scale):
                raise bad("wrong live period specified")
        if location == message["location"] and live_period is None:
            raise bad(NOT_MODIFIED[len("Bad Request: "):])
        self.flood_check(chat, now)
        message["location"] = location
        if live_period is not None:
            message["live_period"] = live_period
        return message_id, self.message_object(chat, message)

    def stop(self, params, now):
        chat, message_id, message = self.editable(params, now)
        self.flood_check(chat, now)
        message["stopped"] = True
        return message_id, self.message_object(chat, message)


def flood(wait):
    seconds = max(1, math.ceil(wait))
    return ApiError(429, f"Too Many Requests: retry after {seconds}", {"retry_after": seconds})


METHODS = {"sendlocation": State.send_location, "editmessagelivelocation": State.edit,
           "stopmessagelivelocation": State.stop}


class Handler(QuietHandler):
    state = None

    def do_GET(self):
        self.handle_call(b"")

    def do_POST(self):
        self.handle_call(self.read_body())

    def params(self, url, body):
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
        if body and content_type == "application/json":
            decoded = json.loads(body)
            if not isinstance(decoded, dict):
                raise bad("JSON object expected")
            params.update(decoded)
        elif body and content_type == "application/x-www-form-urlencoded":
            params.update(parse_qsl(body.decode(), keep_blank_values=True))
        elif body:
            raise bad("unsupported content type " + content_type)
        return params

    def handle_call(self, body):
        state = self.state
        url = urlsplit(self.path)
        parts = url.path.split("/")
        now = time.time()
        with state.lock:
            token = state.script.next()
            method = parts[2] if len(parts) == 3 else ""
            entry = {"method": method, "params": {}, "status": 0, "description": "", "message_id": None,
                     "token": token, "received": now}
            if token == "close":
                state.records.write(entry)
                self.close_connection = True
                return
            try:
                try:
                    params = self.params(url, body)
                except (ValueError, UnicodeDecodeError):
                    raise bad("can't parse JSON object")
                entry["params"] = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
                if len(parts) != 3 or parts[1] != "bot" + state.token:
                    raise ApiError(401, "Unauthorized") if parts[1:2] and parts[1].startswith("bot") \
                        else ApiError(404, "Not Found")
                handler = METHODS.get(method.lower())
                if handler is None:
                    raise ApiError(404, "Not Found")
                if token != "auto":
                    status, _, after = token.partition(":")
                    if status == "429":
                        raise flood(float(after or "1"))
                    raise ApiError(int(status), state.error_description or "Scripted error " + status)
                message_id, result = handler(state, params, now)
                entry["message_id"] = message_id
                reply = {"ok": True, "result": result}
                entry["status"] = 200
            except ApiError as error:
                reply = {"ok": False, "error_code": error.code, "description": error.description}
                if error.parameters:
                    reply["parameters"] = error.parameters
                entry["status"] = error.code
                entry["description"] = error.description
            state.records.write(entry)
        self.reply(entry["status"], json.dumps(reply).encode(), "application/json")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--token", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--chats", default="")
    parser.add_argument("--script", default="")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--live-period-scale", type=float, default=1.0)
    parser.add_argument("--first-message-id", type=int, default=1)
    parser.add_argument("--error-description", default="")
    args = parser.parse_args()
    Handler.state = State(args)
    serve(Handler, args.port, args.tls_cert, args.tls_key)


if __name__ == "__main__":
    main()
