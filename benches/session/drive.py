#!/usr/bin/env python3
"""Drives one running supervised session for benches/session.sh and writes
the raw measurements as JSON.

Phases, in this order (the idle one first, so no delivery thread of a
later phase is alive while it is measured):
  idle      the supervisor's CPU over --idle-seconds with nothing happening;
  recorder  a request line appended to the recorder → its card line on
            `session approvals NAME --watch --json` (one card at a time: a
            response line resolves each as answered_in_terminal first);
  answer    `session answer NAME CARD accept|decline` → the Enter reaching
            the fake TUI (its keyTimes log, CLOCK_MONOTONIC ns);
  refs      reference costs: process start, a list round trip, one
            `tmux capture-pane`;
and the supervisor's VmHWM/VmRSS at the end.

All times are CLOCK_MONOTONIC (time.monotonic_ns), the clock the fake TUI
stamps its keys with. Every wait has a deadline: a lost card fails the run
instead of hanging it.
"""

import argparse
import json
import os
import re
import select
import subprocess
import sys
import time

DEADLINE = 30.0  # seconds for any single condition
WARMUP = 10  # recorder requests not counted


def now():
    return time.monotonic_ns()


def fail(message):
    print(f"[session-bench] error: {message}", file=sys.stderr)
    sys.exit(1)


class Session:
    def __init__(self, args):
        self.args = args
        with open(args.env0, "rb") as handle:
            pairs = [item.split(b"=", 1) for item in handle.read().split(b"\0") if item]
        self.env = {key.decode(): value.decode() for key, value in pairs}
        root = os.path.join(args.project, ".oneworks", "sessions", args.name)
        with open(os.path.join(root, "supervisor.json")) as handle:
            self.record = json.load(handle)
        self.pid = self.record["pid"]
        self.runtime = os.path.dirname(self.record["approvals"])
        self.recorder = os.path.join(self.runtime, "recorder.jsonl")
        self.tmux_socket = self.record["tmux"]
        with open(f"/proc/{self.pid}/cmdline", "rb") as handle:
            if b"supervise" not in handle.read():
                fail(f"pid {self.pid} is not the supervisor")
        self.key_times = os.path.join(args.work, "key-times.log")
        self.markers = os.path.join(args.work, "markers")

    def command(self, *words):
        return [self.args.oneworks, *words]

    def run(self, *words, check=True):
        done = subprocess.run(self.command(*words), env=self.env, cwd=self.args.project,
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        if check and done.returncode != 0:
            fail(f"`oneworks {' '.join(words)}` exited {done.returncode}: {done.stderr.decode(errors='replace')}")
        return done

    def cards(self):
        return json.loads(self.run("session", "approvals", self.args.name, "--json").stdout)

    def tmux(self, *words):
        return subprocess.run(["tmux", "-S", self.tmux_socket, "-f", "/dev/null", "-u", *words],
                              env=self.env, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)

    def capture(self):
        return self.tmux("capture-pane", "-p", "-J", "-t", "oneworks").stdout.decode(errors="replace")


# --- the supervisor's CPU and memory --------------------------------------------

def proc_ticks(pid):
    """utime + stime of the whole process, in clock ticks (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def proc_tasks(pid):
    """(on-CPU ns summed over live threads, context switches, thread count)."""
    total_ns = switches = threads = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as handle:
                total_ns += int(handle.read().split()[0])
            with open(f"/proc/{pid}/task/{task}/status") as handle:
                for line in handle:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        switches += int(line.split()[1])
            threads += 1
        except FileNotFoundError:
            pass
    return total_ns, switches, threads


def proc_status(pid, field):
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1])  # kB
    return None


def session_processes(record):
    """The session's other processes: the tmux server and the fake TUI."""
    return {"tmux server": record["tmuxPid"], "fake kiro-cli TUI": record["panePid"]}


def idle(session, seconds):
    hz = os.sysconf("SC_CLK_TCK")
    time.sleep(3)  # let start-up finish (the supervisor's first reads, tmux)
    others = session_processes(session.record)
    ticks0 = proc_ticks(session.pid)
    ns0, switches0, _ = proc_tasks(session.pid)
    others0 = {name: proc_ticks(pid) for name, pid in others.items()}
    wall0 = now()
    time.sleep(seconds)
    wall1 = now()
    ticks1 = proc_ticks(session.pid)
    ns1, switches1, threads = proc_tasks(session.pid)
    others1 = {name: proc_ticks(pid) for name, pid in others.items()}
    wall = (wall1 - wall0) / 1e9
    return {
        "seconds": wall,
        "hz": hz,
        "ticks": ticks1 - ticks0,
        "cpu_ms_stat": (ticks1 - ticks0) * 1000 / hz,
        "cpu_ms_schedstat": (ns1 - ns0) / 1e6,
        "wakeups": switches1 - switches0,
        "threads": threads,
        "others_cpu_ms": {name: (others1[name] - others0[name]) * 1000 / hz for name in others},
        "vm_hwm_kib": proc_status(session.pid, "VmHWM"),
        "vm_rss_kib": proc_status(session.pid, "VmRSS"),
    }


# --- the watch stream ----------------------------------------------------------

class Watch:
    """`session approvals NAME --watch --json`, read line by line."""

    def __init__(self, session):
        self.process = subprocess.Popen(
            session.command("session", "approvals", session.args.name, "--watch", "--json"),
            env=session.env, cwd=session.args.project, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0)
        self.fd = self.process.stdout.fileno()
        self.buffer = b""

    def next_card(self, deadline):
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                fail("the watch ended")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def wait(self, test, what):
        """Reads cards until one passes `test`; returns (card, monotonic ns)."""
        deadline = time.monotonic() + DEADLINE
        while True:
            card = self.next_card(deadline)
            if card is None:
                fail(f"no card line {what} within {DEADLINE:.0f} s")
            if test(card):
                return card, now()

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


# --- recorder lines --------------------------------------------------------------

def rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def request_line(request_id, title):
    msg = {
        "jsonrpc": "2.0", "id": request_id, "method": "session/request_permission",
        "params": {
            "sessionId": "bench",
            "toolCall": {"toolCallId": f"call-{request_id}", "title": title},
            "options": [
                {"optionId": "allow_once", "kind": "allow_once", "name": "Yes"},
                {"optionId": "allow_always", "kind": "allow_always", "name": "Trust"},
                {"optionId": "reject_once", "kind": "reject_once", "name": "No"},
            ],
        },
    }
    return (json.dumps({"ts": rfc3339(), "dir": "in", "msg": json.dumps(msg)}) + "\n").encode()


def response_line(request_id):
    msg = {"jsonrpc": "2.0", "id": request_id,
           "result": {"outcome": {"outcome": "selected", "optionId": "allow_once"}}}
    return (json.dumps({"ts": rfc3339(), "dir": "out", "msg": json.dumps(msg)}) + "\n").encode()


def recorder(session, count):
    fd = os.open(session.recorder, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
    # One card before the watch starts: the watch prints it at once, which
    # proves it is subscribed before the first timed request.
    os.write(fd, request_line("rec-primer", "Running: echo primer"))
    deadline = time.monotonic() + DEADLINE
    while not any(card["title"] == "Running: echo primer" for card in session.cards()):
        if time.monotonic() > deadline:
            fail("the primer request got no card")
        time.sleep(0.05)
    os.write(fd, response_line("rec-primer"))
    watch = Watch(session)
    watch.wait(lambda card: card["title"] == "Running: echo primer"
               and card["state"] == "answered_in_terminal", "for the primer")
    park, resolve = [], []
    for index in range(WARMUP + count):
        request_id = f"rec-{index}"
        title = f"Running: echo rec {index}"
        line = request_line(request_id, title)
        start = now()
        os.write(fd, line)
        card, seen = watch.wait(lambda card: card["title"] == title and card["state"] == "pending",
                                f"for request {request_id}")
        line = response_line(request_id)
        start_resolve = now()
        os.write(fd, line)
        _, resolved = watch.wait(lambda c: c["id"] == card["id"] and c["state"] == "answered_in_terminal",
                                 f"resolving request {request_id}")
        if index >= WARMUP:
            park.append((seen - start) / 1e6)
            resolve.append((resolved - start_resolve) / 1e6)
    os.close(fd)
    return watch, {"park_ms": park, "resolve_ms": resolve, "warmup": WARMUP}


# --- answers --------------------------------------------------------------------

def key_times(session):
    try:
        with open(session.key_times) as handle:
            rows = [line.split() for line in handle if line.strip()]
    except FileNotFoundError:
        return []
    return [(int(ns), name) for ns, name in rows]


def gaps(path):
    text = open(path).read()
    def number(key):
        match = re.search(rf"^\s*{key}:\s*(\d+)", text, re.M)
        if not match:
            fail(f"no {key} in {path}")
        return int(match.group(1))
    return number("renderGapMs"), number("settleMs")


def answers(session, watch, action, count):
    expected = ["Enter"] if action == "accept" else ["Down", "Down", "Enter"]
    final = "accepted" if action == "accept" else "declined"
    kind = "accept" if action == "accept" else "decline"
    runs = []
    for index in range(1, count + 1):
        request_id = f"{kind}-{index}"
        title = f"Running: echo {request_id}"
        open(os.path.join(session.markers, request_id), "w").close()
        card, _ = watch.wait(lambda c: c["title"] == title and c["state"] == "pending",
                             f"for request {request_id}")
        # A person reads the card after the prompt is drawn; the recorder
        # line comes first, so wait for the pane too.
        deadline = time.monotonic() + DEADLINE
        while True:
            pane = session.capture()
            if "requires approval" in pane and f"echo {request_id}" in pane:
                break
            if time.monotonic() > deadline:
                fail(f"the prompt of {request_id} never showed:\n{pane}")
            time.sleep(0.01)
        before = len(key_times(session))
        start = now()
        done = subprocess.run(session.command("session", "answer", session.args.name, card["id"], action),
                              env=session.env, cwd=session.args.project, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=120)
        exited = now()
        if done.returncode != 0:
            fail(f"answer {action} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
        deadline = time.monotonic() + DEADLINE
        while len(key_times(session)) < before + len(expected):
            if time.monotonic() > deadline:
                fail(f"the fake TUI did not get {expected} for {request_id}")
            time.sleep(0.005)
        keys = key_times(session)[before:]
        if [name for _, name in keys] != expected:
            fail(f"the fake TUI got {keys} for {request_id}, expected {expected}")
        watch.wait(lambda c: c["id"] == card["id"] and c["state"] == final, f"confirming {request_id}")
        runs.append({
            "keys_ms": [(ns - start) / 1e6 for ns, _ in keys],
            "exit_ms": (exited - start) / 1e6,
        })
    return runs


# --- references -----------------------------------------------------------------

def timed(times, run):
    samples = []
    for _ in range(times):
        start = now()
        run()
        samples.append((now() - start) / 1e6)
    return samples


def references(session):
    return {
        "oneworks --version (process start-up)":
            timed(20, lambda: session.run("--version")),
        "oneworks session approvals NAME --json (start-up + one socket round trip)":
            timed(20, lambda: session.run("session", "approvals", session.args.name, "--json")),
        "tmux capture-pane -p -J (one call; the bridge makes 2 per accept)":
            timed(20, session.capture),
    }


def main():
    parser = argparse.ArgumentParser()
    for flag in ("oneworks", "env0", "name", "project", "work", "adapter", "out"):
        parser.add_argument(f"--{flag}", required=True)
    for flag in ("requests", "accepts", "declines", "idle-seconds"):
        parser.add_argument(f"--{flag}", type=int, required=True)
    args = parser.parse_args()
    session = Session(args)
    log = lambda text: print(f"\033[1m[session-bench]\033[0m {text}", file=sys.stderr)
    log(f"idle: supervisor pid {session.pid} for {args.idle_seconds} s")
    result = {"idle": idle(session, args.idle_seconds)}
    log(f"recorder → card: {args.requests} requests (+{WARMUP} warm-up)")
    watch, result["recorder"] = recorder(session, args.requests)
    render_gap, settle = gaps(args.adapter)
    result["gaps"] = {"render_gap_ms": render_gap, "settle_ms": settle}
    log(f"answer → Enter: {args.accepts} accepts, {args.declines} declines")
    result["accept"] = answers(session, watch, "accept", args.accepts)
    result["decline"] = answers(session, watch, "decline", args.declines)
    watch.close()
    log("references")
    result["refs"] = references(session)
    result["end"] = {
        "vm_hwm_kib": proc_status(session.pid, "VmHWM"),
        "vm_rss_kib": proc_status(session.pid, "VmRSS"),
        "threads": proc_tasks(session.pid)[2],
    }
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
