#!/usr/bin/env python3
"""Renders the agents part of benches/session.sh (one `TUI-BENCH {json}`
line per real agent, printed by the ignored `measure` tests of
tests/it/tui_real/) as markdown and rewrites the generated part of
BENCHMARKS.md between the session-agents-bench markers.

Every figure is checked for sense before anything is written: a negative
or absurd time or percentage fails the bench, not the reader.

Usage: agents_report.py LINES_FILE META_JSON [BENCHMARKS_MD]
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_doc import write_section  # noqa: E402

START = "<!-- session-agents-bench:start -->"
END = "<!-- session-agents-bench:end -->"
HEADING = "## Supervised TUI sessions of the real agents"

# Goals. The figure here is box on screen → card, for
# every signal: the pane's goal is 300 ms. A hook's or a recorder's own goal
# (signal → card ≤ 20 ms) is for the time from the agent's signal to the
# card, measured where the signal can be timed (the fake Kiro's hook log:
# `session::hook::signal_to_card_latency`; the recorder: the kiro part).
BOX_TO_CARD_GOAL_MS = 300.0

# A failed measure's row quotes the test's panic text: outside text, so
# control characters and escape sequences are dropped and anything that may
# be a credential is masked before it reaches BENCHMARKS.md — the value of
# any credential-shaped variable set here, and any key-shaped token.
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|AUTH)", re.I)
KEY_SHAPE = re.compile(r"\b(sk|ghp|gho|ghu|github_pat|xox[bp]|AKIA|AIza)[-_A-Za-z0-9]{12,}")
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\-_]|[\x00-\x1f\x7f-\x9f]")


def printable_why(text, environ=os.environ):
    """The panic text of a failed measure, safe to print in a table cell."""
    text = ESCAPES.sub(" ", str(text))
    for name, value in environ.items():
        if SECRET_NAME.search(name) and len(value) >= 8:
            text = text.replace(value, "[redacted]")
    text = KEY_SHAPE.sub("[redacted]", text)
    return " ".join(text.split()).replace("|", "\\|")
IDLE_PERCENT = 0.1


def sane_ms(value, what):
    if value is None:
        return None
    if not isinstance(value, (int, float)) or value != value or value < 0 or value > 600_000:
        raise SystemExit(f"[session-bench] nonsense figure for {what}: {value!r}")
    return float(value)


def sane_percent(value, what):
    if not isinstance(value, (int, float)) or value != value or value < 0 or value > 400:
        raise SystemExit(f"[session-bench] nonsense CPU figure for {what}: {value!r}")
    return float(value)


def rows(lines_path):
    found = []
    with open(lines_path) as handle:
        for line in handle:
            if line.startswith("TUI-BENCH "):
                found.append(json.loads(line[len("TUI-BENCH "):]))
            elif line.startswith("TUI-BENCH-FAILED "):
                failed = json.loads(line[len("TUI-BENCH-FAILED "):])
                failed["failed"] = True
                found.append(failed)
    if not found:
        raise SystemExit("[session-bench] no TUI-BENCH line: did the measure tests run?")
    return found


def fmt(value):
    return "–" if value is None else f"{value:.0f}"


def render(found, meta):
    out = [
        START,
        "",
        f"Measured {meta.get('date', '?')} at {meta.get('commit', '?')} on {meta.get('nproc', '?')} cores "
        f"(load {meta.get('load_before', '?')} before), release build, each agent's real TUI in "
        "`session start`'s private tmux against the loopback fake model. "
        "Reproduce: `bash tests/fixtures/fetch.sh && BENCH_PARTS=agents bash benches/session.sh`.",
        "",
        "| agent | signal | rounds | box → card p50 / p95 / max (ms) | goal p95 | answer accept p50 / max (ms) | decline p50 / max (ms) | supervisor idle CPU | agent idle CPU |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in found:
        agent = row["agent"]
        if row.get("failed"):
            why = printable_why(row.get("why", "")) or "see the bench's output"
            out.append(f"| {agent} | – | – | **measure failed**: {why} | | | | | |")
            continue
        card = row["box_to_card_ms"]
        p50, p95, top = (sane_ms(card[k], f"{agent} box→card {k}") for k in ("p50", "p95", "max"))
        accept = row.get("accept_ms") or {}
        decline = row.get("decline_ms") or {}
        a50, amax = sane_ms(accept.get("p50"), f"{agent} accept"), sane_ms(accept.get("max"), f"{agent} accept")
        d50, dmax = sane_ms(decline.get("p50"), f"{agent} decline"), sane_ms(decline.get("max"), f"{agent} decline")
        sup = sane_percent(row["supervisor_cpu_percent"], f"{agent} supervisor")
        own = sane_percent(row["agent_cpu_percent"], f"{agent} agent")
        goal = BOX_TO_CARD_GOAL_MS
        met = "✓" if p95 <= goal else "✗"
        idle_met = "✓" if sup <= IDLE_PERCENT else "✗"
        if row.get("control_mode") is False:
            idle_met += " (polling: control mode ended)"
        out.append(
            f"| {agent} | {row['signal']} | {row['rounds']} | {fmt(p50)} / {fmt(p95)} / {fmt(top)} | ≤ {goal:.0f} {met} "
            f"| {fmt(a50)} / {fmt(amax)} | {fmt(d50)} / {fmt(dmax)} | {sup:.3f} % {idle_met} | {own:.2f} % |"
        )
    out += [
        "",
        "Box → card: from the first capture showing the box's question to the pending card on "
        "`session approvals --watch` (0 when the card came first: Claude's hook fires as it draws "
        "its box; the hook's own signal → card time is measured by "
        "`cargo test --features fakes session::hook::signal_to_card_latency -- --nocapture`, goal ≤ 20 ms). Answer: `session answer` until it returned (keys delivered, "
        "the settle and render gaps of the agent's data included). Idle CPU: over the idle "
        "seconds after the rounds, the supervisor alone (goal ≤ 0.1 % of a core) and the agent's "
        "process tree (not ours to keep low).",
        "",
        END,
    ]
    return "\n".join(out)


def main():
    lines_path, meta_path = sys.argv[1], sys.argv[2]
    doc = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
    block = render(rows(lines_path), meta)
    print(block)
    if doc:
        write_section(doc, HEADING, START, END, block)


if __name__ == "__main__":
    main()
