"""Times follow-up turns of a kept session, for the kept-sessions benchmark
(benches/kept.sh). Two modes:

  kept_turns.py world PID OUT
      reads the agent process PID (the agent a kept session's owner
      started) from /proc: its program (the script its interpreter runs
      when it was started through a `#!` line, as oneworks spawns it), its
      arguments, environment and folder, into OUT (JSON), the shape
      first_message.py's captures have.

  kept_turns.py rounds PLAN OUT_DIR
      the timed rounds. PLAN (JSON, written by kept.sh) names the oneworks
      binary, its cleared environment, the project, the kept session, the
      captured worlds of (b), (b2) and (c), acpx and the number of
      rounds. Before timing, untimed: a minimal ACP client starts the
      agent in world (b), another in world (b2), each `initialize`,
      `session/new` and two prompts (the kept session
      had its `--keep` turn and one follow-up; acpx gets `sessions new` and
      two prompts, which start its queue owner); then RUNS rounds: the
      four follow-ups (follow, direct, acpx, control) in an order
      rotated each round, then the two first turns (keep, oneshot), alternated; before
      each, untimed, the warm agents are let settle (no CPU used for
      200 ms, at most 5 s):

        follow   `oneworks run ADAPTER --session S --prompt P --json`
                 spawn → first `agent_message_chunk` event, spawn → exit
        direct   the held client: `session/prompt` written → first
                 `agent_message_chunk` update, → the prompt's answer
        control  the same on a second held agent (world (b2)): an A/A
                 control, what two identical agents differ by
        acpx     `acpx --agent CMD --format json prompt -s S P`
                 spawn → first `agent_message_chunk` line, spawn → exit
        keep     `oneworks run ADAPTER --session F --keep 10m --prompt P
                 --json` (a first turn that keeps its agent), spawn → first
                 chunk, spawn → exit; then `session stop F`, untimed
        oneshot  `oneworks run ADAPTER --prompt P --json`, the same spans

      One JSON line per turn in OUT_DIR/NAME.jsonl; OUT_DIR/facts.json
      the checks and memory read after the rounds: the kept agent's pid
      before and after (one agent for every follow-up), its turn count,
      the acpx agents before and after, VmRSS/VmHWM of the owner, of acpx's
      queue owner, and of each agent's process tree.

Every turn must end well (exit 0, `turn_end`/`end_turn`, the fake model's
text received); anything else stops the benchmark with the turn's stderr.
"""

import json
import os
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

DEADLINE = 180.0
TEXT = "Hello from the fake model."


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 1)


def fail(message):
    sys.exit(f"kept_turns: {message}")


def drain(stream, sink):
    def loop():
        for line in iter(stream.readline, b""):
            sink.append(line)
    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def killer(child):
    def expire():
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            child.kill()
    timer = threading.Timer(DEADLINE, expire)
    timer.daemon = True
    timer.start()
    return timer


# --- /proc -------------------------------------------------------------------

def read_status(pid):
    """VmRSS and VmHWM of PID, in KiB."""
    fields = {}
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    fields[name] = int(value.split()[0])
    except OSError:
        return None
    return fields


def tree(pid):
    """PID and its descendants, each with VmRSS and VmHWM (KiB): Qwen Code
    is three node processes (`cli-entry.js` starts `cli.js`, which starts
    itself again), and the one that answers is the last."""
    rows, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        status = read_status(current)
        if status is None:
            continue
        try:
            # Empty for a process that has just ended (a zombie).
            argv = cmdline(current) or [""]
        except OSError:
            argv = [""]
        script = next((part for part in argv[1:] if part.endswith(".js")), None)
        rows.append(dict(pid=current, argv=[os.path.basename(part) for part in (argv[0], script) if part],
                         **status))
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    todo.extend(int(child) for child in handle.read().split())
        except OSError:
            pass
    return dict(processes=rows, VmRSS=sum(r.get("VmRSS", 0) for r in rows),
                VmHWM=sum(r.get("VmHWM", 0) for r in rows))


def cpu_ticks(roots):
    """CPU time (clock ticks) used so far by the processes under `roots`."""
    total = 0
    for root in roots:
        for row in tree(root)["processes"]:
            try:
                with open(f"/proc/{row['pid']}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except (OSError, ValueError, IndexError):
                continue
    return total


def settle(roots, limit=5.0):
    """Waits (untimed) until the warm agents are quiet: Qwen Code goes on
    after a turn's answer (a prompt suggestion from the model, its chat
    record), which would otherwise run on into the next contender's time.
    Quiet: no CPU tick used over 200 ms; at most `limit` seconds. Returns
    how long it waited."""
    start = time.monotonic()
    before = cpu_ticks(roots)
    while time.monotonic() - start < limit:
        time.sleep(0.2)
        now = cpu_ticks(roots)
        if now == before:
            break
        before = now
    return time.monotonic() - start


def environ(pid):
    with open(f"/proc/{pid}/environ", "rb") as handle:
        pairs = [item.split(b"=", 1) for item in handle.read().split(b"\0") if b"=" in item]
    return {k.decode(): v.decode() for k, v in pairs}


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return [part.decode() for part in handle.read().split(b"\0")[:-1]]


def parent(pid):
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def world(pid, out):
    argv, env = cmdline(pid), environ(pid)
    program, args = argv[0], argv[1:]
    # Started through `#!/usr/bin/env node`: the kernel ran the interpreter
    # with the script as its first argument; oneworks spawned the script.
    if args and os.path.isfile(args[0]):
        with open(args[0], "rb") as handle:
            if handle.read(2) == b"#!":
                program, args = args[0], args[1:]
    captured = dict(program=program, args=args, env=env, cwd=os.readlink(f"/proc/{pid}/cwd"),
                    argv=argv, pid=pid)
    with open(out, "w") as handle:
        json.dump(captured, handle, indent=1)


def acpx_owner_of(agents):
    """acpx's queue owner: the parent of its agent."""
    return parent(next(iter(agents)))


def agents_in(home, script=None):
    """Pids of the processes whose HOME is `home` (acpx's queue owner and
    its agents, which inherit it); with `script`, those that run it (the
    agents)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if environ(int(entry)).get("HOME") == home and (script is None or any(
                    os.path.basename(part) == script for part in cmdline(int(entry))[1:2])):
                found.add(int(entry))
        except OSError:
            continue
    return found


# --- a fresh private HOME, as oneworks gives every agent process ---------------

def agent_env(captured, home_in):
    env = dict(captured["env"])
    beside = os.path.dirname(env["HOME"]) if env.get("HOME") else None
    home = tempfile.mkdtemp(prefix="bench-home-", dir=beside if beside and os.path.isdir(beside) else home_in)
    os.chmod(home, 0o700)
    env["HOME"] = home
    if "TMPDIR" in env:
        tmp = os.path.join(home, "tmp")
        os.mkdir(tmp, 0o700)
        env["TMPDIR"] = tmp
    return env, home


# --- (b) the minimal client holding the agent's stdio -----------------------------

class Held:
    def __init__(self, captured, home_in):
        self.env, self.home = agent_env(captured, home_in)
        self.cwd = captured["cwd"]
        self.child = subprocess.Popen([captured["program"], *captured["args"]], cwd=self.cwd, env=self.env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      process_group=0)
        self.lines = queue.Queue()
        self.errors = []
        drain(self.child.stderr, self.errors)
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        self.session = None

    def _read(self):
        for line in iter(self.child.stdout.readline, b""):
            self.lines.put((line, time.monotonic()))
        self.lines.put((None, time.monotonic()))

    def send(self, message):
        self.child.stdin.write((json.dumps(message) + "\n").encode())
        self.child.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait_for(self, request_id):
        """(result, when it came, when the first agent_message_chunk came, text)"""
        first, text = None, []
        while True:
            try:
                line, now = self.lines.get(timeout=DEADLINE)
            except queue.Empty:
                fail(f"the held agent did not answer #{request_id} within {DEADLINE} s")
            if line is None:
                fail(f"the held agent exited ({self.child.wait()}) before answering #{request_id}\n"
                     + b"".join(self.errors[-30:]).decode("utf-8", "replace"))
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "method" in message and "id" in message:
                if message["method"] == "session/request_permission":
                    self.send({"jsonrpc": "2.0", "id": message["id"], "result": {"outcome": {"outcome": "cancelled"}}})
                else:
                    self.send({"jsonrpc": "2.0", "id": message["id"],
                               "error": {"code": -32601, "message": "method not found"}})
                continue
            if message.get("method") == "session/update":
                update = message.get("params", {}).get("update", {})
                if update.get("sessionUpdate") == "agent_message_chunk":
                    first = first or now
                    text.append((update.get("content") or {}).get("text") or "")
                continue
            if message.get("id") == request_id:
                if "error" in message:
                    fail(f"#{request_id} failed: {json.dumps(message['error'])[:400]}")
                return message.get("result") or {}, now, first, "".join(text)

    def open(self):
        init = self.call("initialize", {"protocolVersion": 1,
                                        "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False},
                                                               "terminal": False},
                                        "clientInfo": {"name": "minimal-acp-client", "version": "0"}})
        self.wait_for(init)
        new = self.call("session/new", {"cwd": self.cwd, "mcpServers": []})
        answer, _, _, _ = self.wait_for(new)
        self.session = answer.get("sessionId") or fail(f"no sessionId: {answer}")

    def prompt(self, text):
        t0 = time.monotonic()
        turn = self.call("session/prompt", {"sessionId": self.session, "prompt": [{"type": "text", "text": text}]})
        answer, at, first, said = self.wait_for(turn)
        stop = answer.get("stopReason")
        if stop != "end_turn" or first is None or said != TEXT:
            fail(f"direct: stopReason {stop}, first chunk {first}, text {said!r}")
        return dict(sent_ms=0.0, first_ms=ms(first - t0), answer_ms=ms(at - t0), total_ms=ms(at - t0),
                    stop_reason=stop)

    def close(self, grace_ms):
        self.child.stdin.close()
        try:
            self.child.wait(grace_ms / 1000)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.child.pid, signal.SIGTERM)
                self.child.wait(3)
            except (OSError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.child.pid, signal.SIGKILL)
                except OSError:
                    pass
                self.child.wait()
        shutil.rmtree(self.home, ignore_errors=True)


# --- (a), (c) and the first turns: a spawned command ------------------------------

def oneworks_line(line):
    """What one `--json` event line is: ("chunk", text), ("sent", None) for
    `session_started` (emitted just before the prompt is written to the
    agent), ("answer", None) for `turn_end`, or None."""
    event = json.loads(line)
    kind = event.get("type")
    if kind == "agent_message_chunk":
        return "chunk", event.get("text") or ""
    return {"session_started": ("sent", None), "turn_end": ("answer", None)}.get(kind)


def acpx_line(line):
    """The same for acpx --format json, which prints the ACP messages both
    ways, one a line: its own `session/prompt`, the chunks, the answer."""
    message = json.loads(line)
    update = (message.get("params") or {}).get("update") or {}
    if message.get("method") == "session/update" and update.get("sessionUpdate") == "agent_message_chunk":
        return "chunk", (update.get("content") or {}).get("text") or ""
    if message.get("method") == "session/prompt":
        return "sent", None
    if "stopReason" in (message.get("result") or {}):
        return "answer", None
    return None


TICK = os.sysconf("SC_CLK_TCK")


def newest(script):
    """The start (seconds since boot) of the newest process whose first
    argument is `script` (the agent's program as its interpreter runs it)."""
    found = None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = cmdline(int(entry))
            if len(argv) < 2 or os.path.basename(argv[1]) != script:
                continue
            with open(f"/proc/{entry}/stat") as handle:
                start = int(handle.read().rsplit(")", 1)[1].split()[19]) / TICK
        except (OSError, ValueError, IndexError):
            continue
        found = start if found is None else max(found, start)
    return found


def spawned(name, command, env, cwd, read, stdin=subprocess.PIPE, agent=None):
    """Spawns COMMAND and times, from the spawn, the lines `read` names
    (the prompt sent, the first message chunk, the prompt's answer) and
    the exit (stdout closed and the process reaped). With `agent` (the
    agent's script), also when the newest agent process was started,
    read from /proc after the first chunk (a clock tick coarse)."""
    boot0 = time.clock_gettime(time.CLOCK_BOOTTIME)
    t0 = time.monotonic()
    child = subprocess.Popen(command, env=env, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, process_group=0)
    timer = killer(child)
    errors, lines = [], []
    drain(child.stderr, errors)
    marks, said = {}, []
    for line in child.stdout:
        now = time.monotonic()
        lines.append(line)
        try:
            what = read(line)
        except ValueError:
            continue
        if what is None:
            continue
        if what[0] == "chunk":
            said.append(what[1])
            if agent and "chunk" not in marks:
                started = newest(agent)
                marks["agent"] = None if started is None else started - boot0
        marks.setdefault(what[0], now)
    status = child.wait()
    end = time.monotonic()
    timer.cancel()
    if child.stdin:
        child.stdin.close()
    problems = []
    if status != 0:
        problems.append(f"exit {status}")
    problems.extend(f"no {what} line" for what in ("sent", "chunk", "answer") if what not in marks)
    if "".join(said) != TEXT:
        problems.append(f"text {''.join(said)!r}")
    if problems:
        fail(f"{name}: {'; '.join(problems)}\nstdout (last lines):\n"
             + b"".join(lines[-10:]).decode("utf-8", "replace")
             + "\nstderr:\n" + b"".join(errors[-30:]).decode("utf-8", "replace"))
    row = dict(sent_ms=ms(marks["sent"] - t0), first_ms=ms(marks["chunk"] - t0),
               answer_ms=ms(marks["answer"] - t0), total_ms=ms(end - t0), status=status)
    if agent:
        row["agent_started_ms"] = ms(marks.get("agent"))
    return row, lines


def turn_end_last(name, lines):
    events = [json.loads(line) for line in lines if line.strip()]
    if not events or events[-1].get("type") != "turn_end" or events[-1].get("stopReason") != "end_turn":
        fail(f"{name}: the last event is not turn_end/end_turn: {events[-1:] if events else 'none'}")


def kept_row(plan, name):
    done = subprocess.run([plan["bin"], "session", "list", "--json"], env=plan["env"], cwd=plan["project"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        fail(f"session list: {done.stderr.decode('utf-8', 'replace')}")
    for row in json.loads(done.stdout):
        if row.get("name") == name and row.get("kind") == "kept":
            return row
    fail(f"session list shows no kept session `{name}`: {done.stdout!r}")


def rounds(plan_path, out):
    with open(plan_path) as handle:
        plan = json.load(handle)
    ours = {}
    try:
        timed(plan, out, ours)
    finally:
        for name in ("held", "control"):
            if name in ours:
                ours[name].close(float(plan["grace_ms"]))
        if "acpx_home" in ours:
            acpx_home = ours["acpx_home"]
            # acpx's queue owner and its agent: started by this run (their
            # HOME is the one made for it), ended by pid.
            for pid in agents_in(acpx_home):
                try:
                    os.kill(pid, signal.SIGTERM)
                except OSError:
                    pass
            shutil.rmtree(acpx_home, ignore_errors=True)


def timed(plan, out, ours):
    """The rounds; what it starts that outlives a turn goes into `ours`."""
    env, project, bin_ = plan["env"], plan["project"], plan["bin"]
    adapter, prompt, runs = plan["adapter"], plan["prompt"], int(plan["runs"])

    def record(name, row):
        with open(os.path.join(out, name + ".jsonl"), "a") as handle:
            handle.write(json.dumps(row) + "\n")

    # (b): the held client, its agent started and warmed before timing.
    with open(plan["direct_world"]) as handle:
        held = ours["held"] = Held(json.load(handle), plan["work"])
    with open(plan["control_world"]) as handle:
        control = ours["control"] = Held(json.load(handle), plan["work"])
    # (c): acpx on the same agent program, argv, environment and world.
    with open(plan["acpx_world"]) as handle:
        acpx_world = json.load(handle)
    acpx_env, acpx_home = agent_env(acpx_world, plan["work"])
    ours["acpx_home"] = acpx_home
    script = os.path.basename(acpx_world["program"])
    for client in (held, control):
        client.open()
        for _ in range(2):
            client.prompt(prompt)

    agent_command = shlex.join([acpx_world["program"], *acpx_world["args"]])
    acpx = [*plan["acpx"], "--agent", agent_command, "--cwd", acpx_world["cwd"], "--format", "json"]
    made = subprocess.run([*acpx, "sessions", "new", "--name", plan["session"]], env=acpx_env,
                          cwd=acpx_world["cwd"], stdin=subprocess.DEVNULL, capture_output=True, check=False)
    if made.returncode != 0:
        fail(f"acpx sessions new: {made.stdout[-2000:]!r} {made.stderr[-2000:]!r}")
    acpx_prompt = [*acpx, "prompt", "-s", plan["session"], prompt]
    for _ in range(2):
        spawned("acpx (warm-up)", acpx_prompt, acpx_env, acpx_world["cwd"], acpx_line, subprocess.DEVNULL)
    acpx_agents = agents_in(acpx_home, script)
    if len(acpx_agents) != 1:
        fail(f"acpx: {len(acpx_agents)} agents run in its HOME after the warm-up, not 1: {acpx_agents}")

    # (a): the kept session had its `--keep` turn; one follow-up more, untimed.
    follow = [bin_, "run", adapter, "--session", plan["session"], "--prompt", prompt, "--json"]
    _, lines = spawned("follow-up (warm-up)", follow, env, project, oneworks_line)
    turn_end_last("follow-up (warm-up)", lines)
    before = kept_row(plan, plan["session"])
    owner_before = read_status(before["pid"])

    keep = [bin_, "run", adapter, "--session", plan["first_session"], "--keep", "10m", "--prompt", prompt, "--json"]
    oneshot = [bin_, "run", adapter, "--prompt", prompt, "--json"]
    stop = [bin_, "session", "stop", plan["first_session"]]

    warm = [held.child.pid, control.child.pid, before["pid"], acpx_owner_of(acpx_agents)]
    settled = []

    def contender(name):
        settled.append(settle(warm))
        if name in ("direct", "control"):
            return (held if name == "direct" else control).prompt(prompt)
        if name == "acpx":
            row, _ = spawned(name, acpx_prompt, acpx_env, acpx_world["cwd"], acpx_line, subprocess.DEVNULL)
            return row
        command = dict(follow=follow, keep=keep, oneshot=oneshot)[name]
        row, lines = spawned(name, command, env, project, oneworks_line,
                             agent=script if name in ("keep", "oneshot") else None)
        turn_end_last(name, lines)
        if name == "keep":
            stopped = subprocess.run(stop, env=env, cwd=project, capture_output=True, check=False)
            if stopped.returncode != 0:
                fail(f"session stop: {stopped.stderr.decode('utf-8', 'replace')}")
        return row

    # The four follow-ups rotated (each first in every fourth round), then
    # the two first turns alternated.
    follow_ups, firsts = ["follow", "direct", "acpx", "control"], ["keep", "oneshot"]
    for round_ in range(runs):
        turn = round_ % len(follow_ups)
        order = (follow_ups[turn:] + follow_ups[:turn]
                 + (firsts if round_ % 2 == 0 else firsts[::-1]))
        said = []
        for name in order:
            row = contender(name)
            row["round"] = round_ + 1
            record(name, row)
            said.append(f"{name} {row['total_ms']:.0f} ms (first chunk {row['first_ms']:.0f})")
        print(f"round {round_ + 1}/{runs}: " + ", ".join(said), file=sys.stderr, flush=True)

    after = kept_row(plan, plan["session"])
    acpx_after = agents_in(acpx_home, script)
    acpx_agent = next(iter(acpx_after), None)
    acpx_owner = parent(acpx_agent) if acpx_agent else None
    facts = dict(
        owner_pid=after["pid"], agent_before=before["agentPid"], agent_after=after["agentPid"],
        turns_before=before["turns"], turns_after=after["turns"],
        owner_before=owner_before, owner_after=read_status(after["pid"]),
        owner_argv=cmdline(after["pid"])[1:4],
        agent=tree(after["agentPid"]),
        held_agent=tree(held.child.pid),
        control_agent=tree(control.child.pid),
        acpx_agents_before=sorted(acpx_agents), acpx_agents_after=sorted(acpx_after),
        acpx_owner=read_status(acpx_owner) if acpx_owner else None,
        acpx_owner_argv=cmdline(acpx_owner)[1:4] if acpx_owner else None,
        acpx_agent=tree(acpx_agent) if acpx_agent else None,
        acpx_command=agent_command,
        settled_ms=[ms(value) for value in settled],
    )
    with open(os.path.join(out, "facts.json"), "w") as handle:
        json.dump(facts, handle, indent=1)
    problems = []
    if before["agentPid"] != after["agentPid"]:
        problems.append(f"the kept agent changed: {before['agentPid']} → {after['agentPid']}")
    if after["turns"] - before["turns"] != runs:
        problems.append(f"the kept session ran {after['turns'] - before['turns']} turns, not {runs}")
    if acpx_after != acpx_agents:
        problems.append(f"acpx's agents changed: {sorted(acpx_agents)} → {sorted(acpx_after)}")
    if problems:
        fail("; ".join(problems))


def main(argv):
    mode = argv[1] if len(argv) > 1 else ""
    if mode == "world" and len(argv) == 4:
        world(int(argv[2]), argv[3])
    elif mode == "rounds" and len(argv) == 4:
        rounds(argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
