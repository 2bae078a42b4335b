#!/usr/bin/env python3
"""Runs the hostile inputs of benches/bounds.sh against the release binary
and records each one's peak RSS and outcome in RESULTS/cases.json.

Usage: drive.py --oneworks BIN --fake FAKE --work WORK --env0 FILE
                --stderr-bytes N --stdout-bytes N --reply-bytes N
                --recorder-bytes N --recorder-mode sparse|stream

Peak RSS of a run is `ru_maxrss` from wait4 (oneworks and the fake agent it
reaped: the larger of the two) and, for oneworks alone, the last VmHWM read
from /proc while it ran (polled every 10 ms). The supervisor's is its
VmHWM after the next approval became a card.
"""

import argparse
import json
import os
import subprocess
import threading
import time

BLOCK = 1 << 20


def read_env(path):
    env = {}
    for item in open(path, "rb").read().split(b"\0"):
        if item:
            key, _, value = item.decode().partition("=")
            env[key] = value
    return env


def vm_hwm_kib(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class Run:
    """One `oneworks` process with its peak RSS watched."""

    def __init__(self, args, env, cwd, stdin=subprocess.DEVNULL):
        self.proc = subprocess.Popen(args, env=env, cwd=cwd, stdin=stdin,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.hwm = 0
        self.stdout, self.stderr = [], []
        self.started = time.monotonic()
        self.done = False
        for stream, sink in ((self.proc.stdout, self.stdout), (self.proc.stderr, self.stderr)):
            threading.Thread(target=self._drain, args=(stream, sink), daemon=True).start()
        threading.Thread(target=self._watch, daemon=True).start()

    def _drain(self, stream, sink):
        for line in stream:
            sink.append(line)

    def _watch(self):
        while not self.done:
            kib = vm_hwm_kib(self.proc.pid)
            if kib:
                self.hwm = max(self.hwm, kib)
            time.sleep(0.01)

    def wait_for_event(self, kind, deadline=120):
        end = time.monotonic() + deadline
        seen = 0
        while time.monotonic() < end:
            while seen < len(self.stdout):
                line = self.stdout[seen]
                seen += 1
                try:
                    if json.loads(line).get("type") == kind:
                        return
                except ValueError:
                    pass
            time.sleep(0.01)
        raise SystemExit(f"no `{kind}` event within {deadline} s")

    def finish(self, deadline=1800):
        end = time.monotonic() + deadline
        while True:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > end:
                self.proc.kill()
                raise SystemExit("oneworks did not finish")
            time.sleep(0.01)
        self.done = True
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        time.sleep(0.05)  # let the drain threads see the end of the pipes
        return {
            "code": self.proc.returncode,
            "maxrss_kib": usage.ru_maxrss,
            "vmhwm_kib": self.hwm,
            "seconds": round(time.monotonic() - self.started, 2),
            "stderr": b"".join(self.stderr).decode(errors="replace")[-2000:],
            "events": [json.loads(line).get("type") for line in self.stdout if line.strip().startswith(b"{")],
            "diagnostics": [json.loads(line).get("message") for line in self.stdout
                            if line.strip().startswith(b"{") and json.loads(line).get("type") == "diagnostic"],
        }


def fake_script(work, fake, turn, requests=None):
    """Points `kiro-cli` at a script whose ACP turn is `turn`."""
    script = {
        "versionOutput": "kiro-cli 2.15.1",
        "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]",
        "acp": {"turn": turn},
        "tui": {"requests": requests or []},
    }
    path = os.path.join(work, "scripts", f"script-{time.monotonic_ns()}.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    json.dump(script, open(path, "w"))
    wrapper = os.path.join(work, "bin", "kiro-cli")
    with open(wrapper + ".tmp", "w") as handle:
        handle.write(f"#!/bin/sh\nexec '{fake}' --fake-script '{path}' \"$@\"\n")
    os.chmod(wrapper + ".tmp", 0o755)
    os.replace(wrapper + ".tmp", wrapper)


def check(case, ok, why):
    case["ok"] = bool(ok)
    if not ok:
        case["problem"] = why
    return case


def main():
    parser = argparse.ArgumentParser()
    for name in ("oneworks", "fake", "work", "env0", "recorder-mode"):
        parser.add_argument(f"--{name}", required=True)
    for name in ("stderr-bytes", "stdout-bytes", "reply-bytes", "recorder-bytes"):
        parser.add_argument(f"--{name}", type=int, required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    env = read_env(args.env0)
    project = os.path.join(args.work, "project")
    run = [args.oneworks, "run", "kiro", "--json", "--prompt", "x"]
    cases = []

    def log(text):
        print(f"\033[1m[bounds-bench]\033[0m {text}", file=os.sys.stderr, flush=True)

    log("baseline: a plain turn")
    fake_script(args.work, args.fake, [{"text": "hello"}])
    result = Run(run, env, project).finish()
    cases.append(check({"name": "baseline: a plain turn", "input": "—", **result},
                       result["code"] == 0, "the plain run failed"))

    log(f"agent stderr: one line of {args.stderr_bytes:,} bytes")
    fake_script(args.work, args.fake, [{"flood": {"bytes": args.stderr_bytes}},
                                       {"stderr": "after the flood"}, {"text": "done"}])
    result = Run(run, env, project).finish()
    cases.append(check({"name": "agent stderr line", "input": f"{args.stderr_bytes:,} bytes, no newline until the end",
                        **result},
                       result["code"] == 0 and f"skipped a line of {args.stderr_bytes} bytes" in result["stderr"],
                       "no exit 0 with the skip warning"))

    log(f"agent stdout: one line of {args.stdout_bytes:,} bytes")
    fake_script(args.work, args.fake, [{"flood": {"bytes": args.stdout_bytes, "stdout": True}}, {"text": "done"}])
    result = Run(run, env, project).finish()
    cases.append(check({"name": "agent stdout (JSON-RPC) line", "input": f"{args.stdout_bytes:,} bytes", **result},
                       result["code"] == 0 and f"skipped a line of {args.stdout_bytes} bytes" in result["stderr"],
                       "no exit 0 with the skip warning"))

    log(f"stdin reply: one line of {args.reply_bytes:,} bytes, then a valid reply")
    options = [{"optionId": "yes", "name": "Yes", "kind": "allow_once"},
               {"optionId": "no", "name": "No", "kind": "reject_once"}]
    fake_script(args.work, args.fake, [{"permission": {"id": "p1", "title": "Run ls", "kind": "execute",
                                                       "options": options}}, {"text": "done"}])
    proc = Run(run, env, project, stdin=subprocess.PIPE)
    proc.wait_for_event("permission_request")
    head = b'{"id":"p1","reply":"'
    proc.proc.stdin.write(head)
    left = args.reply_bytes - len(head) - 2
    block = b"1" * BLOCK
    while left > 0:
        piece = block if left >= BLOCK else block[:left]
        proc.proc.stdin.write(piece)
        left -= len(piece)
    proc.proc.stdin.write(b'"}\n{"id":"p1","reply":"Yes"}\n')
    proc.proc.stdin.close()
    result = proc.finish()
    cases.append(check({"name": "`--json` stdin reply line", "input": f"{args.reply_bytes:,} bytes, then a valid reply",
                        **result},
                       result["code"] == 0 and any(f"{args.reply_bytes} bytes" in (note or "") for note in result["diagnostics"]),
                       "no exit 0 with the over-the-limit diagnostic"))

    log("--prompt-file /dev/zero, and --prompt-file - from /dev/zero")
    fake_script(args.work, args.fake, [{"text": "never"}])
    for label, extra, stdin in (("`--prompt-file /dev/zero`", ["--prompt-file", "/dev/zero"], subprocess.DEVNULL),
                                ("`--prompt-file -` < /dev/zero", ["--prompt-file", "-"], open("/dev/zero", "rb"))):
        command = [args.oneworks, "run", "kiro"] + extra
        result = Run(command, env, project, stdin=stdin).finish()
        cases.append(check({"name": label, "input": "endless zeros", **result},
                           result["code"] == 2 and "1 MiB" in result["stderr"], "no exit 2 naming the 1 MiB limit"))

    log(f"recorder: {args.recorder_bytes:,} bytes appended ({args.recorder_mode}), then an approval")
    marker = os.path.join(args.work, "markers", "after")
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    fake_script(args.work, args.fake, [], [{"id": "r1", "title": "Running: pwd", "waitFor": marker}])
    ow = lambda *words: subprocess.run([args.oneworks, *words], env=env, cwd=project, capture_output=True, text=True)
    started = ow("session", "start", "kiro", "--detach", "--name", "bounds")
    if started.returncode != 0:
        raise SystemExit(f"session start failed: {started.stderr}")
    try:
        record = json.load(open(os.path.join(project, ".oneworks", "sessions", "bounds", "supervisor.json")))
        supervisor = record["pid"]
        recorder = os.path.join(os.path.dirname(record["approvals"]), "recorder.jsonl")
        before = vm_hwm_kib(supervisor)
        clock = time.monotonic()
        # One line of `recorder_bytes` (its newline included), so the
        # approval the fake appends next is a line of its own.
        if args.recorder_mode == "sparse":
            with open(recorder, "r+b") as handle:
                handle.truncate(os.path.getsize(recorder) + args.recorder_bytes - 1)
            with open(recorder, "ab") as handle:
                handle.write(b"\n")
        else:
            with open(recorder, "ab") as handle:
                block, left = b"x" * BLOCK, args.recorder_bytes - 1
                while left > 0:
                    piece = block if left >= BLOCK else block[:left]
                    handle.write(piece)
                    left -= len(piece)
                handle.write(b"\n")
        open(marker, "w").close()
        card = None
        while time.monotonic() - clock < 1800:
            listed = ow("session", "approvals", "bounds", "--json")
            cards = json.loads(listed.stdout or "[]") if listed.returncode == 0 else []
            card = next((c for c in cards if c.get("state") == "pending"), None)
            if card:
                break
            time.sleep(0.2)
        seconds = round(time.monotonic() - clock, 2)
        hwm = vm_hwm_kib(supervisor)
        log_text = open(os.path.join(project, ".oneworks", "sessions", "bounds", "supervisor.log")).read()
        case = {"name": "recorder append (supervisor)",
                "input": f"{args.recorder_bytes:,} bytes ({'sparse: truncate to a larger size' if args.recorder_mode == 'sparse' else 'streamed x bytes'}), then an approval",
                "code": 0 if card else 1, "maxrss_kib": hwm, "vmhwm_kib": hwm, "before_kib": before,
                "seconds": seconds, "stderr": log_text[-2000:]}
        cases.append(check(case, card is not None and f"skipped a recorder line of {args.recorder_bytes - 1} bytes" in log_text,
                           "no card after the append, or no skip warning"))
    finally:
        ow("session", "stop", "bounds")
    json.dump({"cases": cases}, open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
