#!/usr/bin/env python3
"""Drives benches/serve.sh: SESSIONS supervised sessions of the fake TUI,
one `oneworks session serve`, STREAMS open `GET /events` streams, then:

  idle     serve's CPU (/proc/PID/stat utime+stime) over IDLE seconds with
           every stream open, and its RSS (VmRSS, VmHWM);
  browser  a request line appended to a session's recorder → its card
           element in headless Chromium's DOM (a MutationObserver stamps
           Date.now() when `article[data-card=ID]` first appears), over
           REQUESTS requests spread over the sessions, each resolved by a
           response line before the next;
  floods   a second serve of the same project under `ulimit -n 256`
           (its bounds), one flood at a time: 300 idle sockets, 500
           slow-loris heads (a byte per socket every 0.5 s for 12 s), 100
           POSTs to answer links announcing 1.9 MB each, 1.8 MB sent, held.
           For each: the slowest authenticated GET /api/sessions during the
           flood, how long until serve closed every flood socket, serve's
           peak RSS (VmHWM). `--floods 0` skips them.

Usage: drive.py --oneworks BIN --env0 FILE --project DIR --sessions N
                --streams N --requests N --idle-seconds N --floods 0|1 --out FILE
"""

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

DEADLINE = 60
WARMUP = 5


def log(message):
    print(f"[serve-bench] {message}", file=sys.stderr, flush=True)


def fail(message):
    log(f"error: {message}")
    sys.exit(1)


def rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def request_line(request_id, title):
    msg = {"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission",
           "params": {"sessionId": "bench",
                      "toolCall": {"toolCallId": f"call-{request_id}", "title": title},
                      "options": [{"optionId": "allow_once", "kind": "allow_once", "name": "Yes"},
                                  {"optionId": "reject_once", "kind": "reject_once", "name": "No"}]}}
    return (json.dumps({"ts": rfc3339(), "dir": "in", "msg": json.dumps(msg)}) + "\n").encode()


def response_line(request_id):
    msg = {"jsonrpc": "2.0", "id": request_id,
           "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}}
    return (json.dumps({"ts": rfc3339(), "dir": "out", "msg": json.dumps(msg)}) + "\n").encode()


def ticks(pid):
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def wait(what, check):
    deadline = time.monotonic() + DEADLINE
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def token_of(url):
    """The printed URL's token: in its fragment (`#token=`) or its query."""
    for sep in ("#token=", "?token="):
        if sep in url:
            base, token = url.split(sep, 1)
            return base.rstrip("/"), token.split("&")[0]
    fail(f"no token in {url}")


def authenticated_get(base, token, path="/api/sessions", timeout=DEADLINE):
    """Seconds until an authenticated GET on a fresh connection answered 200."""
    start = time.monotonic()
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        response.read()
        if response.status != 200:
            fail(f"{path} answered {response.status}")
    return time.monotonic() - start


def closed(sock):
    sock.setblocking(False)  # also drops a send timeout
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def flood_figures(oneworks, env, project, public_url):
    """Each flood against its own serve under `ulimit -n 256`."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    figures = {}
    for kind in ("idle", "slow-loris", "held-body"):
        serve = subprocess.Popen(["sh", "-c", 'ulimit -n 256 && exec "$0" "$@"', oneworks,
                                  "session", "serve", "--json", "--public-url", public_url],
                                 env=env, cwd=project, stdout=subprocess.PIPE)
        try:
            base, token = token_of(json.loads(serve.stdout.readline())["url"])
            host = base.split("//", 1)[1]
            address = (host.rsplit(":", 1)[0], int(host.rsplit(":", 1)[1]))
            authenticated_get(base, token)
            sockets, worst = [], 0.0
            started = time.monotonic()
            if kind == "idle":
                sockets = [socket.create_connection(address) for _ in range(300)]
                worst = authenticated_get(base, token, timeout=10)
            elif kind == "slow-loris":
                head = f"GET /api/sessions HTTP/1.1\r\nHost: {host}\r\nX-Padding: {'a' * 64}".encode()
                for _ in range(500):
                    sock = socket.create_connection(address)
                    sock.sendall(head[:1])
                    sockets.append(sock)
                sent = 1
                while time.monotonic() - started < 12:
                    for sock in sockets:
                        try:
                            sock.sendall(head[sent:sent + 1])
                        except OSError:
                            pass
                    sent = min(sent + 1, len(head) - 1)
                    worst = max(worst, authenticated_get(base, token, timeout=10))
                    time.sleep(0.5)
            else:
                chunk = b"a" * 1800000
                for index in range(100):
                    sock = socket.create_connection(address)
                    sock.settimeout(2)
                    path = "/a/x/y" if index % 2 == 0 else f"/a/kiro_s0_0123456789abcdef/{'ab' * 32}"
                    sock.sendall((f"POST {path} HTTP/1.1\r\nHost: {host}\r\n"
                                  "Content-Type: application/x-www-form-urlencoded\r\n"
                                  "Content-Length: 1900000\r\n\r\n").encode())
                    try:
                        sock.sendall(chunk)
                    except OSError:
                        pass
                    sockets.append(sock)
                worst = authenticated_get(base, token, timeout=10)
            wait_closed = time.monotonic() + DEADLINE
            while not all(closed(sock) for sock in sockets):
                if time.monotonic() > wait_closed:
                    fail(f"{kind}: serve kept flood sockets open")
                time.sleep(0.1)
            all_closed = time.monotonic() - started
            after = authenticated_get(base, token)
            figures[kind] = {"worst_answer_s": round(worst, 3), "after_s": round(after, 3),
                             "all_closed_s": round(all_closed, 1),
                             "peak_rss_kib": status_kib(serve.pid, "VmHWM")}
            log(f"flood {kind}: {figures[kind]}")
            for sock in sockets:
                sock.close()
        finally:
            serve.terminate()
            serve.wait(timeout=DEADLINE)
    return figures


class WebDriver:
    def __init__(self, url):
        self.url = url
        self.session = None

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=DEADLINE) as response:
            return json.load(response)["value"]

    def start(self, profile):
        args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={profile}"]
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "args": args, "binary": "/usr/bin/chromium"}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def goto(self, url):
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def run(self, script, *args):
        return self.call("POST", f"/session/{self.session}/execute/sync",
                         {"script": script, "args": list(args)})

    def quit(self):
        if self.session:
            self.call("DELETE", f"/session/{self.session}")


# Card ids carry a random part per card instance, so a pending card is
# found by its title (each request's title is unique in the run).
OBSERVER = """
window.__seen = {};
function stamp() {
  document.querySelectorAll('article[data-card]').forEach(function (a) {
    var title = a.querySelector('.title');
    var key = title ? title.textContent : '';
    if (!(key in window.__seen)) window.__seen[key] = Date.now();
  });
}
new MutationObserver(stamp).observe(document.body, {childList: true, subtree: true});
stamp();
"""


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--oneworks", "--env0", "--project", "--out"):
        parser.add_argument(flag, required=True)
    for flag in ("--sessions", "--streams", "--requests", "--idle-seconds", "--floods"):
        parser.add_argument(flag, type=int, required=True)
    args = parser.parse_args()
    with open(args.env0, "rb") as handle:
        env = dict(item.decode().split("=", 1) for item in handle.read().split(b"\0") if item)
    names = [f"s{index}" for index in range(args.sessions)]
    for name in names:
        subprocess.run([args.oneworks, "session", "start", "kiro", "--detach", "--name", name],
                       env=env, cwd=args.project, check=True, stdout=subprocess.DEVNULL)
    recorders = {}
    for name in names:
        with open(os.path.join(args.project, ".oneworks", "sessions", name, "supervisor.json")) as h:
            recorders[name] = os.path.join(os.path.dirname(json.load(h)["approvals"]), "recorder.jsonl")
    serve = subprocess.Popen([args.oneworks, "session", "serve", "--json"], env=env,
                             cwd=args.project, stdout=subprocess.PIPE)
    result = {"sessions": args.sessions, "streams": args.streams}
    driver = None
    try:
        url = json.loads(serve.stdout.readline())["url"]
        base, token = token_of(url)
        port = int(base.rsplit(":", 1)[1])
        bearer = f"Bearer {token}"

        def api(path):
            request = urllib.request.Request(base + path, headers={"Authorization": bearer})
            with urllib.request.urlopen(request, timeout=DEADLINE) as response:
                return json.load(response)

        wait("every session running", lambda: sum(
            s["state"] == "running" for s in api("/api/sessions")) == args.sessions)
        streams = []
        for _ in range(args.streams):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: {bearer}\r\n\r\n".encode())
            if b" 200 " not in sock.recv(4096):
                fail("an event stream was refused")
            streams.append(sock)

        def drain():
            while True:
                for sock in list(streams):
                    sock.setblocking(False)
                    try:
                        sock.recv(65536)
                    except (BlockingIOError, OSError):
                        pass
                time.sleep(0.2)
        threading.Thread(target=drain, daemon=True).start()

        log(f"idle: {args.idle_seconds} s with {args.streams} streams and {args.sessions} sessions")
        hz = os.sysconf("SC_CLK_TCK")
        t0, w0 = ticks(serve.pid), time.monotonic()
        time.sleep(args.idle_seconds)
        t1, w1 = ticks(serve.pid), time.monotonic()
        result["idle_cpu_percent"] = 100.0 * (t1 - t0) / hz / (w1 - w0)
        result["idle_seconds"] = round(w1 - w0, 1)
        result["rss_kib"] = status_kib(serve.pid, "VmRSS")
        result["threads"] = len(os.listdir(f"/proc/{serve.pid}/task"))

        chromedriver = shutil.which("chromedriver") or fail("chromedriver missing")
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        driver_port = probe.getsockname()[1]
        probe.close()
        driver = subprocess.Popen([chromedriver, f"--port={driver_port}"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait("chromedriver", lambda: socket.socket().connect_ex(("127.0.0.1", driver_port)) == 0)
        web = WebDriver(f"http://127.0.0.1:{driver_port}")
        profile = tempfile.mkdtemp(prefix="serve-bench-chromium-")
        web.start(profile)
        web.goto(url)
        web.run(OBSERVER)
        latencies = []
        log(f"browser: {args.requests} requests (+{WARMUP} warm-up)")
        for index in range(WARMUP + args.requests):
            name = names[index % len(names)]
            request_id = f"web-{index}"
            card = f"Running: echo {index}"
            fd = os.open(recorders[name], os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
            start = time.time() * 1000
            os.write(fd, request_line(request_id, card))
            seen = wait(f"card {card} in the DOM",
                        lambda: web.run("return window.__seen[arguments[0]] || null;", card))
            os.write(fd, response_line(request_id))
            os.close(fd)
            wait(f"card {card} resolved", lambda: web.run(
                "var want = arguments[0];"
                " return !Array.prototype.some.call(document.querySelectorAll('article[data-card] .title'),"
                " function (t) { return t.textContent === want; });", card))
            if index >= WARMUP:
                latencies.append(seen - start)
        web.quit()
        result["browser_ms"] = latencies
        result["rss_hwm_kib"] = status_kib(serve.pid, "VmHWM")
        if args.floods:
            result["floods"] = flood_figures(args.oneworks, env, args.project,
                                             "https://phone.example/ow")
    finally:
        if driver:
            driver.kill()
        serve.terminate()
        serve.wait(timeout=DEADLINE)
        for name in names:
            subprocess.run([args.oneworks, "session", "stop", name], env=env, cwd=args.project,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)
    latencies = sorted(result["browser_ms"])
    def pct(p):
        return latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))]
    print(f"| measure | value | goal |\n|---|---|---|")
    print(f"| recorder line → card in Chromium's DOM, p50 / p95 / max ({len(latencies)} requests, {args.sessions} sessions) "
          f"| {pct(50):.0f} / {pct(95):.0f} / {latencies[-1]:.0f} ms | p95 ≤ 50 ms |")
    print(f"| serve RSS with {args.sessions} sessions and {args.streams} open event streams (idle / peak) "
          f"| {result['rss_kib'] / 1024:.1f} / {result['rss_hwm_kib'] / 1024:.1f} MiB | ≤ 20 MiB |")
    print(f"| serve idle CPU over {result['idle_seconds']} s ({args.streams} streams open) "
          f"| {result['idle_cpu_percent']:.3f} % of a core | ≤ 0.1 % |")
    if "floods" in result:
        print("\n| flood (serve under `ulimit -n 256`) | slowest authenticated answer during | "
              "every flood socket closed after | authenticated answer after | serve peak RSS | goal |")
        print("|---|---|---|---|---|---|")
        what = {"idle": "300 idle sockets, no bytes",
                "slow-loris": "500 slow-loris heads, a byte each per 0.5 s",
                "held-body": "100 link POSTs announcing 1.9 MB, 1.8 MB sent, held"}
        for kind, figure in result["floods"].items():
            print(f"| {what[kind]} | {figure['worst_answer_s'] * 1000:.0f} ms | {figure['all_closed_s']:.1f} s "
                  f"| {figure['after_s'] * 1000:.0f} ms | {figure['peak_rss_kib'] / 1024:.1f} MiB | "
                  "answered within seconds, < 64 MiB |")


if __name__ == "__main__":
    main()
