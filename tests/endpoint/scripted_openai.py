#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server for kbench's tests (loopback only).

    scripted_openai.py --script SCRIPT.json --log REQUESTS.jsonl --port-file PORT

It listens on 127.0.0.1 (a free port, written to --port-file once listening), answers
POST /v1/chat/completions from the script, and appends every request it got, as one JSON line,
to --log on its arrival: {"index", "path", "headers", "body", "in_flight", "arrived"} ("in_flight":
requests not yet answered when this one arrived, itself included; asserted by the concurrency test).

The script is a JSON object:
  "responses": [ACTION, ...]   taken in arrival order, one per request
  "routes": [{"match": TEXT, "action": ACTION}]
                               before that: the first route whose TEXT is in the last user
                               message answers (responses are not consumed)
  "default": ACTION            once responses run out (else: 500)
  "stop_after": N              exit after N requests (a deliberate "killed" endpoint)
An ACTION is an object:
  "status" (200), "headers" ({}), "delay_s" (0: seconds before answering),
  "drop" (false: close the connection without a response),
  "raw_body" (sent as is, instead of a JSON reply),
  "content" (text of each choice; "{choice}" and "{request}" are replaced by the choice's and
  the request's index), "content_file" (content read from this file),
  "choices" (how many choices at most: fewer than the request's n tests the fallback; default n),
  "usage" ({"prompt_tokens": 11, "completion_tokens": 7} by default), "error" (an OpenAI error
  message; with a 4xx/5xx status).
The process stops by itself after --max-seconds (default 600) so a crashed test leaves nothing.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class State:
    def __init__(self, script, log_path):
        self.script = script
        self.log_path = log_path
        self.lock = threading.Lock()
        self.count = 0
        self.in_flight = 0


def last_user_text(body):
    for message in reversed(body.get("messages", []) if isinstance(body, dict) else []):
        if message.get("role") == "user":
            return str(message.get("content", ""))
    return ""


def choose_action(state, index, body):
    script = state.script
    text = last_user_text(body)
    for route in script.get("routes", []):
        if route["match"] in text:
            return route["action"]
    responses = script.get("responses", [])
    if index < len(responses):
        return responses[index]
    return script.get("default", {"status": 500, "error": "script exhausted"})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        state = self.server.state
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        # Logged on arrival, before the answer: a client that has its reply finds its request
        # in the log.
        with state.lock:
            index = state.count
            state.count += 1
            state.in_flight += 1
            record = {"index": index, "path": self.path, "headers": dict(self.headers.items()),
                      "body": body, "in_flight": state.in_flight, "arrived": time.time()}
            with open(state.log_path, "a") as log:
                log.write(json.dumps(record) + "\n")
        self.answered = False
        try:
            self.answer(state, index, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test, a killed run)
        finally:
            self.mark_answered(state)
            stop_after = state.script.get("stop_after")
            if stop_after is not None and state.count >= stop_after:
                threading.Thread(target=self.server.shutdown, daemon=True).start()

    def mark_answered(self, state):
        # Out of flight before the first byte of the answer leaves: a client that has its reply
        # may send its next request before this thread runs again, and must not find this one
        # still counted (a 4th "in flight" under a limit of 3 on a loaded machine).
        if not self.answered:
            self.answered = True
            with state.lock:
                state.in_flight -= 1

    def answer(self, state, index, body):
        action = choose_action(state, index, body)
        if action.get("delay_s"):
            time.sleep(float(action["delay_s"]))
        self.mark_answered(state)
        if action.get("drop"):
            self.close_connection = True
            self.connection.close()
            return
        status = int(action.get("status", 200))
        if "raw_body" in action:
            payload = action["raw_body"].encode()
        elif status >= 400:
            payload = json.dumps({"error": {"message": action.get("error", "scripted error"),
                                            "type": "scripted", "code": status}}).encode()
        else:
            n = body.get("n", 1) if isinstance(body, dict) else 1
            count = min(n, int(action.get("choices", n)))
            content = action.get("content", "")
            if "content_file" in action:
                with open(action["content_file"]) as f:
                    content = f.read()
            choices = []
            for i in range(count):
                text = None if content is None else content.replace("{choice}", str(i)).replace("{request}", str(index))
                choices.append({"index": i, "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop"})
            usage = action.get("usage", {"prompt_tokens": 11, "completion_tokens": 7,
                                         "completion_tokens_details": {"reasoning_tokens": 2},
                                         "prompt_tokens_details": {"cached_tokens": 3}})
            payload = json.dumps({"id": f"chatcmpl-{index}", "object": "chat.completion",
                                  "model": body.get("model", "") if isinstance(body, dict) else "",
                                  "choices": choices, "usage": usage}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in action.get("headers", {}).items():
            self.send_header(name, str(value))
        self.end_headers()
        self.wfile.write(payload)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--script", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--max-seconds", type=float, default=600)
    args = parser.parse_args()
    with open(args.script) as f:
        script = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(script, args.log)
    timer = threading.Timer(args.max_seconds, server.shutdown)
    timer.daemon = True
    timer.start()
    temp = args.port_file + ".tmp"
    with open(temp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(temp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
