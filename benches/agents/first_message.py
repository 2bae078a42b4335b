"""Times one turn to its first agent message, for the overhead benchmark
(benches/real-agents.sh, BENCH_PARTS=overhead). Three modes, one JSON line
on stdout each:

  first_message.py run OUT -- ONEWORKS… run AGENT --prompt P --json
      spawns `oneworks run … --json` and times spawn → the first
      `agent_message_chunk` event on its stdout (and → `session_started`),
      then reads to the end: exit 0 and `turn_end` required.

  first_message.py capture OUT CAPTURE -- ONEWORKS… -vv run AGENT …
      the same, and while the turn runs it reads the agent child oneworks
      started (its `started \\`PROGRAM ARGS\\`` debug line names the pid):
      /proc/PID/environ and /proc/PID/cwd, with the program and arguments,
      into CAPTURE (JSON). Not timed: `-vv` logs.

  first_message.py direct OUT CAPTURE PROMPT GRACE_MS
      the minimal ACP client: spawns the captured program with the captured
      arguments, environment and folder (HOME replaced by a fresh private
      folder beside the captured one, its TMPDIR by the folder `tmp` in
      it, as oneworks makes a fresh temp HOME
      for every agent process), in its own process group, stderr drained;
      sends `initialize` (oneworks' capabilities: no fs, no terminal),
      `session/new {cwd, mcpServers: []}`, `session/prompt`; times spawn →
      the first `session/update` `agent_message_chunk` (and → the
      `session/new` answer). After the prompt's answer it stops the agent
      as oneworks does: stdin closed, GRACE_MS (the adapter's
      `acp.stopGraceMs`), then SIGTERM to the group, 3 s, SIGKILL.

A permission request (there should be none: the fake model answers text
only) is answered `cancelled` in both, and counted.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = 180.0


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


def fail(message):
    sys.exit(f"first_message: {message}")


def drain(stream, sink, on_line=None):
    def loop():
        for line in iter(stream.readline, b""):
            sink.append(line)
            if on_line:
                on_line(line)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def watchdog(child, what):
    def expire():
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            child.kill()
    timer = threading.Timer(DEADLINE, expire)
    timer.daemon = True
    timer.start()
    return timer


def oneworks_turn(out, command, capture=None):
    started = {}
    found = threading.Event()

    def on_stderr(line):
        text = line.decode("utf-8", "replace")
        shown, pid = re.search(r"started `([^`]*)`", text), re.search(r"\bpid=(\d+)", text)
        if shown and pid:
            started[int(pid.group(1))] = (shown.group(1), time.monotonic())
            found.set()

    # `env -i NAME=VALUE… PROGRAM…`: the environment is given to Popen and
    # PROGRAM spawned itself, as the direct client spawns the agent (no
    # extra exec of env(1) in the timed span).
    env = None
    if command[:2] == ["env", "-i"]:
        env, command = {}, command[2:]
        while command and "=" in command[0] and not command[0].startswith("/"):
            name, value = command.pop(0).split("=", 1)
            env[name] = value
    t0_real = time.time_ns()
    t0 = time.monotonic()
    child = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, process_group=0)
    timer = watchdog(child, "oneworks run")
    spawned = None
    errors = []
    err_thread = drain(child.stderr, errors, on_stderr if capture else None)
    first = session = None
    types, asked, captured = [], 0, None
    for line in child.stdout:
        now = time.monotonic()
        try:
            event = json.loads(line)
        except ValueError:
            fail(f"not an event: {line[:200]!r}")
        kind = event.get("type")
        types.append(kind)
        if kind == "session_started" and session is None:
            session = now - t0
        if kind == "agent_message_chunk" and first is None:
            first = now - t0
            # Read after the time is taken: not in the measured span.
            spawned = home_marker(child.pid, t0_real)
            if capture:
                captured = read_child(child.pid, started, found)
        if kind == "permission_request":
            asked += 1
            child.stdin.write((json.dumps({"id": event["id"], "reply": "Reject once"}) + "\n").encode())
            child.stdin.flush()
    child.stdin.close()
    status = child.wait()
    end = time.monotonic() - t0
    timer.cancel()
    err_thread.join(5)
    problems = []
    if status != 0:
        problems.append(f"exit {status}")
    if first is None:
        problems.append("no agent_message_chunk")
    if not types or types[-1] != "turn_end":
        problems.append("turn_end is not the last event")
    if capture and captured is None:
        problems.append("could not read the agent child")
    result = dict(first_ms=ms(first), session_ms=ms(session), total_ms=ms(end), status=status,
                  permission_requests=asked, events=len(types), home_marker_ms=spawned)
    if capture and captured:
        captured["spawned_ms"] = ms(captured.pop("spawned_at") - t0)
        result["agent_spawned_ms"] = captured["spawned_ms"]
        with open(capture, "w") as handle:
            json.dump(captured, handle, indent=1)
    with open(out, "a") as handle:
        handle.write(json.dumps(result) + "\n")
    if problems:
        tail = b"".join(errors[-30:]).decode("utf-8", "replace")
        fail("oneworks run: " + "; ".join(problems) + f" (events: {types})\n{tail}")


def home_marker(parent, t0_real):
    """When oneworks created the agent's temp HOME, in ms after t0: the
    owner marker `HOME.owner` is created just before the HOME and the
    spawn, and never written, so its mtime is its creation —
    to the kernel's coarse file clock (a jiffy, 4 ms here: a lower bound).
    The agent is the child of `parent` whose HOME has such a marker."""
    try:
        tasks = os.listdir(f"/proc/{parent}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{parent}/task/{task}/children") as handle:
                children = handle.read().split()
        except OSError:
            continue
        for pid in children:
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    env = dict(item.split(b"=", 1) for item in handle.read().split(b"\0") if b"=" in item)
                marker = os.stat(env[b"HOME"].decode() + ".owner")
            except (OSError, KeyError):
                continue
            return round((marker.st_mtime_ns - t0_real) / 1e6, 1)
    return None


def read_child(parent, started, found):
    """The agent child of `parent` among the started lines, read from /proc."""
    found.wait(10)
    for _ in range(100):
        for pid, (display, at) in sorted(started.items()):
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
                if ppid != parent:
                    continue
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    pairs = [item.split(b"=", 1) for item in handle.read().split(b"\0") if b"=" in item]
                cwd = os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                continue
            words = display.split(" ")
            return dict(program=words[0], args=words[1:],
                        env={k.decode(): v.decode() for k, v in pairs}, cwd=cwd, spawned_at=at)
        time.sleep(0.05)
    return None


def direct_turn(out, capture, prompt, grace_ms):
    with open(capture) as handle:
        world = json.load(handle)
    env = dict(world["env"])
    home_parent = os.path.dirname(env["HOME"]) if env.get("HOME") else None
    home = tempfile.mkdtemp(prefix="direct-home-", dir=home_parent if home_parent and os.path.isdir(home_parent) else None)
    os.chmod(home, 0o700)
    env["HOME"] = home
    if "TMPDIR" in env:
        # oneworks gives each agent process a TMPDIR inside its temp HOME
        # (`HOME/tmp`, 0700): the captured one went with that HOME.
        tmp = os.path.join(home, "tmp")
        os.mkdir(tmp, 0o700)
        env["TMPDIR"] = tmp
    lines, errors = [], []
    got = threading.Condition()

    def on_line(line):
        with got:
            lines.append((line, time.monotonic()))
            got.notify_all()

    t0 = time.monotonic()
    child = subprocess.Popen([world["program"], *world["args"]], cwd=world["cwd"], env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             process_group=0)
    timer = watchdog(child, "the agent")
    drain(child.stderr, errors)
    drain(child.stdout, [], on_line)
    next_id = [0]
    read = [0]
    first = session_at = None
    asked = 0
    problems = []

    def send(message):
        child.stdin.write((json.dumps(message) + "\n").encode())
        child.stdin.flush()

    def call(method, params):
        next_id[0] += 1
        send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
        return next_id[0]

    def wait_for(request_id):
        nonlocal first, asked
        while True:
            with got:
                while read[0] >= len(lines):
                    if child.poll() is not None and read[0] >= len(lines):
                        fail(f"the agent exited ({child.returncode}) before answering #{request_id}\n"
                             + b"".join(errors[-30:]).decode("utf-8", "replace"))
                    got.wait(0.5)
                line, now = lines[read[0]]
                read[0] += 1
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "method" in message and "id" in message:
                if message["method"] == "session/request_permission":
                    asked += 1
                    send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "cancelled"}}})
                else:
                    send({"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "method not found"}})
                continue
            if message.get("method") == "session/update":
                update = message.get("params", {}).get("update", {})
                if update.get("sessionUpdate") == "agent_message_chunk" and first is None:
                    first = now - t0
                continue
            if message.get("id") == request_id:
                if "error" in message:
                    fail(f"#{request_id} failed: {json.dumps(message['error'])[:400]}")
                return message.get("result") or {}, now

    init = call("initialize", {"protocolVersion": 1,
                               "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                                      "terminal": False},
                               "clientInfo": {"name": "minimal-acp-client", "version": "0"}})
    answer, _ = wait_for(init)
    if answer.get("protocolVersion") != 1:
        problems.append(f"protocolVersion {answer.get('protocolVersion')}")
    new = call("session/new", {"cwd": world["cwd"], "mcpServers": []})
    answer, at = wait_for(new)
    session_at = at - t0
    session_id = answer.get("sessionId") or fail(f"no sessionId: {answer}")
    turn = call("session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": prompt}]})
    answer, _ = wait_for(turn)
    stop_reason = answer.get("stopReason")
    child.stdin.close()
    try:
        child.wait(grace_ms / 1000)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGTERM)
            child.wait(3)
        except (OSError, subprocess.TimeoutExpired):
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except OSError:
                pass
            child.wait()
    end = time.monotonic() - t0
    timer.cancel()
    shutil.rmtree(home, ignore_errors=True)
    if first is None:
        problems.append("no agent_message_chunk")
    if stop_reason != "end_turn":
        problems.append(f"stopReason {stop_reason}")
    with open(out, "a") as handle:
        handle.write(json.dumps(dict(first_ms=ms(first), session_ms=ms(session_at), total_ms=ms(end),
                                     status=child.returncode, stop_reason=stop_reason,
                                     permission_requests=asked)) + "\n")
    if problems:
        fail("direct: " + "; ".join(problems) + "\n" + b"".join(errors[-30:]).decode("utf-8", "replace"))


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "run" and argv[3] == "--":
        oneworks_turn(argv[2], argv[4:])
    elif mode == "capture" and argv[4] == "--":
        oneworks_turn(argv[2], argv[5:], capture=argv[3])
    elif mode == "direct" and len(argv) == 6:
        direct_turn(argv[2], argv[3], argv[4], float(argv[5]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
