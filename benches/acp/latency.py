"""Latency from a chunk written by the fake agent to its line on a pipe.

    latency.py --label NAME [--stdin FILE] -- COMMAND...

Starts COMMAND with its stdout on a pipe (and FILE on its stdin, else
/dev/null), reads lines as they come and, for every `agent_message_chunk`
(oneworks' event, or the fake's raw ACP notification) whose text is a
CLOCK_MONOTONIC time in ns, takes the difference to the moment the line was
read. Same machine, same clock. Prints a JSON summary (µs).
"""
import argparse
import json
import os
import subprocess
import sys
import time


def text_of(message):
    if message.get("type") == "agent_message_chunk":
        return message.get("text")
    update = (message.get("params") or {}).get("update") or {}
    if update.get("sessionUpdate") == "agent_message_chunk":
        return (update.get("content") or {}).get("text")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", required=True)
    parser.add_argument("--stdin")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    stdin = open(args.stdin, "rb") if args.stdin else subprocess.DEVNULL
    clock = time.CLOCK_MONOTONIC
    samples = []
    with subprocess.Popen(args.command, stdin=stdin, stdout=subprocess.PIPE, bufsize=0) as child:
        reader = os.fdopen(child.stdout.fileno(), "rb", buffering=1 << 16, closefd=False)
        while True:
            line = reader.readline()
            now = time.clock_gettime_ns(clock)
            if not line:
                break
            try:
                text = text_of(json.loads(line))
            except ValueError:
                continue
            if text and text.isdigit():
                samples.append((now - int(text)) / 1000)
        status = child.wait()
    if status != 0 or not samples:
        sys.exit(f"latency: `{args.command[0]}` exited {status} with {len(samples)} samples")
    samples.sort()

    def pct(p):
        return samples[min(len(samples) - 1, int(round(p / 100 * (len(samples) - 1))))]

    json.dump({"label": args.label, "count": len(samples), "p50": pct(50), "p90": pct(90),
               "p99": pct(99), "max": samples[-1], "mean": sum(samples) / len(samples)},
              sys.stdout)


if __name__ == "__main__":
    main()
