"""A loopback fake model API for the overhead benchmark (benches/real-agents.sh,
BENCH_PARTS=overhead): the three wire formats the real agents speak —
OpenAI chat completions (`…/chat/completions`), OpenAI responses
(`…/responses`), Anthropic messages (`…/messages`) — streamed (SSE) when the
request asks `stream: true` (or when its body cannot be read, e.g. a
compressed one: the agents that compress also stream), one JSON document
otherwise. Every answer is plain text, TEXT, and a normal stop: no tool
call, so the first thing an agent shows is an `agent_message_chunk`.
`GET …/models` lists the model, `…/count_tokens` counts 12.

The shapes follow tests/it/support/fake_model (the Rust fake the real-agent
tests use), trimmed to text. One thread per connection; every answer
carries `Connection: close`. Each request is appended to LOG as one JSON
line (method, path, wire, streamed, whether a body was read), so the
benchmark can check that the agent did talk to it.

    python3 fake_model.py PORT_FILE LOG [PORT]

binds 127.0.0.1:PORT (default 0, any free port) and writes the port to
PORT_FILE once it listens.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TEXT = "Hello from the fake model."
MODEL = "fake-model"
CREATED = 1767225600
LOCK = threading.Lock()


def pieces(text):
    size = max(1, -(-len(text) // 3))
    return [text[i:i + size] for i in range(0, len(text), size)]


def usage_chat():
    return {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}


def usage_responses():
    return {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 17}


def response_object(rid, status, output):
    return {"id": f"resp_{rid}", "object": "response", "created_at": CREATED, "status": status,
            "model": MODEL, "output": output, "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [], "usage": usage_responses() if status == "completed" else None,
            "error": None, "incomplete_details": None}


def response_item(rid, done):
    return {"type": "message", "id": f"msg_{rid}", "role": "assistant",
            "status": "completed" if done else "in_progress",
            "content": [{"type": "output_text", "text": TEXT, "annotations": []}] if done else []}


def document(wire, rid):
    if wire == "chat":
        return {"id": f"chatcmpl-{rid}", "object": "chat.completion", "created": CREATED, "model": MODEL,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": TEXT},
                             "finish_reason": "stop"}], "usage": usage_chat()}
    if wire == "responses":
        return response_object(rid, "completed", [response_item(rid, True)])
    return {"id": f"msg_{rid}", "type": "message", "role": "assistant", "model": MODEL,
            "content": [{"type": "text", "text": TEXT}], "stop_reason": "end_turn",
            "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 5}}


def events(wire, rid, body):
    out = []
    if wire == "chat":
        def chunk(delta, finish=None):
            return ("", {"id": f"chatcmpl-{rid}", "object": "chat.completion.chunk", "created": CREATED,
                         "model": MODEL, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        out.append(chunk({"role": "assistant", "content": ""}))
        out.extend(chunk({"content": piece}) for piece in pieces(TEXT))
        out.append(chunk({}, "stop"))
        options = body.get("stream_options") if isinstance(body, dict) else None
        if body is None or (isinstance(options, dict) and options.get("include_usage")):
            out.append(("", {"id": f"chatcmpl-{rid}", "object": "chat.completion.chunk", "created": CREATED,
                             "model": MODEL, "choices": [], "usage": usage_chat()}))
        out.append(("", "[DONE]"))
    elif wire == "responses":
        sequence = 0

        def event(kind, value):
            nonlocal sequence
            value = dict(value, type=kind, sequence_number=sequence)
            sequence += 1
            out.append((kind, value))
        started = response_object(rid, "in_progress", [])
        event("response.created", {"response": started})
        event("response.in_progress", {"response": started})
        item = f"msg_{rid}"
        event("response.output_item.added", {"output_index": 0, "item": response_item(rid, False)})
        part = lambda text: {"type": "output_text", "text": text, "annotations": []}
        event("response.content_part.added", {"item_id": item, "output_index": 0, "content_index": 0, "part": part("")})
        for piece in pieces(TEXT):
            event("response.output_text.delta", {"item_id": item, "output_index": 0, "content_index": 0,
                                                 "delta": piece, "logprobs": []})
        event("response.output_text.done", {"item_id": item, "output_index": 0, "content_index": 0,
                                            "text": TEXT, "logprobs": []})
        event("response.content_part.done", {"item_id": item, "output_index": 0, "content_index": 0, "part": part(TEXT)})
        done = response_item(rid, True)
        event("response.output_item.done", {"output_index": 0, "item": done})
        event("response.completed", {"response": response_object(rid, "completed", [done])})
    else:
        def event(kind, value):
            out.append((kind, dict(value, type=kind)))
        event("message_start", {"message": {"id": f"msg_{rid}", "type": "message", "role": "assistant",
                                            "model": MODEL, "content": [], "stop_reason": None,
                                            "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 1}}})
        event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
        for piece in pieces(TEXT):
            event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": piece}})
        event("content_block_stop", {"index": 0})
        event("message_delta", {"delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                "usage": {"output_tokens": 5}})
        event("message_stop", {})
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    counter = 0

    def log_message(self, *args):
        pass

    def send(self, code, content_type, payload):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()
        self.close_connection = True

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            raw = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    break
                raw += self.rfile.read(size)
                self.rfile.readline()
        else:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "")
        if encoding == "gzip":
            import gzip
            raw = gzip.decompress(raw)
        elif encoding:
            return None
        try:
            value = json.loads(raw) if raw else {}
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def record(self, **fields):
        with LOCK:
            with open(LOG, "a") as log:
                log.write(json.dumps(dict(method=self.command, path=self.path, **fields)) + "\n")

    def do_GET(self):
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            self.record(wire="meta")
            listing = {"object": "list", "data": [{"id": MODEL, "object": "model", "type": "model", "created": 0,
                                                   "created_at": "2026-01-01T00:00:00Z", "owned_by": "fake",
                                                   "display_name": MODEL}],
                       "has_more": False, "first_id": MODEL, "last_id": MODEL}
            return self.send(200, "application/json", json.dumps(listing).encode())
        self.record(wire=None)
        self.send(404, "application/json", b'{"error":{"message":"not found"}}')

    def do_POST(self):
        path = self.path.split("?")[0]
        body = self.body()
        if path.endswith("/count_tokens"):
            self.record(wire="meta")
            return self.send(200, "application/json", b'{"input_tokens":12}')
        wire = ("chat" if path.endswith("/chat/completions") else
                "responses" if path.endswith("/responses") else
                "messages" if path.endswith("/messages") else None)
        if wire is None:
            self.record(wire=None)
            return self.send(404, "application/json", b'{"error":{"message":"not found"}}')
        with LOCK:
            Handler.counter += 1
            rid = Handler.counter
        streamed = body is None or body.get("stream") is True
        self.record(wire=wire, streamed=streamed, readable=body is not None)
        if streamed:
            text = "".join((f"event: {name}\n" if name else "") +
                           f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
                           for name, data in events(wire, rid, body))
            return self.send(200, "text/event-stream", text.encode())
        self.send(200, "application/json", json.dumps(document(wire, rid)).encode())


if __name__ == "__main__":
    port_file, LOG = sys.argv[1], sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[3]) if len(sys.argv) > 3 else 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    import os
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()
