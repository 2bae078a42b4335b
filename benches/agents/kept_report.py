"""The "Kept sessions" block of BENCHMARKS.md, from the files
benches/kept.sh left in its folder K:

  K/turns/NAME.jsonl      one line per timed turn (kept_turns.py rounds):
                          follow, direct, acpx, keep, oneshot
  K/turns/facts.json      pids, turn counts, VmRSS/VmHWM after the rounds
  K/bench.world.json      what the kept agent was started with (/proc)

    python3 kept_report.py K BENCHMARKS.md BENCHES_DIR
"""

import datetime
import json
import os
import sys

FOLLOW_GOAL_MS = 50
ACPX_GOAL = 0.3
OWNER_GOAL_KIB = 16 * 1024


def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def jsonl(path):
    with open(path) as handle:
        return [json.loads(line) for line in handle if line.strip()]


def cell(values):
    return f"{median(values):.0f} ms ({min(values):.0f}–{max(values):.0f})"


def mib(status, field):
    return "—" if not status else f"{status[field] / 1024:.1f}"


def signed(value):
    """+12 / -3 / +0 (never -0)."""
    whole = round(value)
    return f"{whole:+d}" if whole else "+0"


def verdict(met):
    return "met" if met else "**not met**"


def main(folder, doc, benches):
    e = os.environ
    turns = {name: jsonl(os.path.join(folder, "turns", name + ".jsonl"))
             for name in ("follow", "direct", "control", "acpx", "keep", "oneshot")}
    facts = json.load(open(os.path.join(folder, "turns", "facts.json")))
    world = json.load(open(os.path.join(folder, "bench.world.json")))
    first = {name: [r["first_ms"] for r in rows] for name, rows in turns.items()}
    total = {name: [r["total_ms"] for r in rows] for name, rows in turns.items()}
    by_round = {name: {r["round"]: r for r in rows} for name, rows in turns.items()}

    def paired(a, b, field):
        return [by_round[a][k][field] - by_round[b][k][field] for k in sorted(by_round[a]) if k in by_round[b]]

    def spread(values):
        return f"{signed(min(values))}…{signed(max(values))}"

    sent = [r["sent_ms"] for r in turns["follow"]]
    tail_a = [r["total_ms"] - r["answer_ms"] for r in turns["follow"]]
    # Verdicts on the per-round (paired) medians: the contenders of a round
    # run side by side, so what the machine's load does to a round cancels
    # in its differences; the difference of the medians is shown beside.
    a_b = paired("follow", "direct", "total_ms")
    a_b_first = paired("follow", "direct", "first_ms")
    b2_b = paired("control", "direct", "total_ms")
    ratios = [by_round["follow"][k]["total_ms"] / by_round["acpx"][k]["total_ms"]
              for k in sorted(by_round["follow"]) if k in by_round["acpx"]]
    owner = facts["owner_after"] or {}
    owner_rss = max(owner.get("VmRSS", 0), (facts["owner_before"] or {}).get("VmRSS", 0))
    keep_vs = paired("keep", "oneshot", "total_ms")
    keep_vs_first = paired("keep", "oneshot", "first_ms")
    goals = [
        (f"follow-up (a) − minimal client (b) ≤ +{FOLLOW_GOAL_MS} ms",
         f"**{signed(median(a_b))} ms** to the end ({spread(a_b)}; difference of the medians "
         f"{signed(median(total['follow']) - median(total['direct']))}); {signed(median(a_b_first))} ms to the first "
         f"chunk ({spread(a_b_first)}); oneworks' own parts of (a): spawn → prompt written {median(sent):.0f} ms, "
         f"answer → exit {median(tail_a):.0f} ms; A/A control (b2) − (b), two identical agents: "
         f"{signed(median(b2_b))} ms ({spread(b2_b)})",
         median(a_b) <= FOLLOW_GOAL_MS),
        (f"follow-up (a) ≤ {ACPX_GOAL} × acpx (c)",
         f"**{median(ratios):.3f}×** ({min(ratios):.2f}…{max(ratios):.2f}; ratio of the medians "
         f"{median(total['follow']) / median(total['acpx']):.3f}×: {median(total['follow']):.0f} vs "
         f"{median(total['acpx']):.0f} ms); to the first chunk "
         f"{median(first['follow']) / median(first['acpx']):.2f}×",
         median(ratios) <= ACPX_GOAL),
        ("the owner's RSS ≤ 16 MiB",
         f"**{owner_rss / 1024:.1f} MiB** VmRSS (peak VmHWM {mib(owner, 'VmHWM')} MiB)",
         owner_rss <= OWNER_GOAL_KIB),
        (f"a `--keep` first turn no slower than a one-shot run (both spans, within {FOLLOW_GOAL_MS} ms of noise)",
         f"**{signed(median(keep_vs))} ms** to the end ({spread(keep_vs)}; difference of the medians "
         f"{signed(median(total['keep']) - median(total['oneshot']))}), **{signed(median(keep_vs_first))} ms** to the "
         f"first chunk ({spread(keep_vs_first)}; difference of the medians "
         f"{signed(median(first['keep']) - median(first['oneshot']))})",
         median(keep_vs) <= FOLLOW_GOAL_MS and median(keep_vs_first) <= FOLLOW_GOAL_MS),
    ]
    agent_tree = (f"{len(facts['agent']['processes'])} processes, sums ("
                  + ", ".join(f"`{' '.join(p['argv'])}` {p['VmRSS'] / 1024:.0f}"
                              for p in facts['agent']['processes']) + ")")
    labels = dict(follow="(a) follow-up, kept session", direct="(b) minimal client holding the agent",
                  control="(b2) the same, a second agent (A/A control)",
                  acpx=f"(c) acpx {e.get('ACPX_VERSION', '?')}, warm queue owner",
                  keep="first turn, `--keep`", oneshot="first turn, one-shot")
    breakdown = []
    for name, label in labels.items():
        m = {field: median([r[field] for r in turns[name]])
             for field in ("sent_ms", "first_ms", "answer_ms", "total_ms")}
        tail = median([r["total_ms"] - r["answer_ms"] for r in turns[name]])
        started = [r["agent_started_ms"] for r in turns[name] if r.get("agent_started_ms") is not None]
        spawn = f"{median(started):.0f}" if started else "(warm)"
        breakdown.append(f"| {label} | {spawn} | {m['sent_ms']:.0f} | {m['first_ms']:.0f} | {m['answer_ms']:.0f} "
                         f"| {m['total_ms']:.0f} | {tail:.0f} |")
    knobs = "".join(f"{name}={e[name]} " for name in ("BENCH_KEPT_RUNS", "BENCH_KEPT_LOAD") if e.get(name))
    load = lambda text: text.split("load average:")[-1].strip()
    program = world["program"].split("/oneworks-home/")[-1]
    runs = e.get("RUNS", "?")
    same = facts["agent_before"] == facts["agent_after"]
    section = f"""Generated by `bash benches/kept.sh` on {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%MZ')}, release build of commit `{e.get('COMMIT', '?')}`; every number below comes from that one run.

The real `{e.get('PACKAGE', '?')}@{e.get('VERSION', '?')}` (installed by `oneworks adapter prepare qwen` from `{e.get('REG', '?')}`, on the managed Node {e.get('AGENT_NODE_VERSION', '?')} oneworks installs from the cached Node fixture served on loopback), talking to a loopback fake model (`benches/agents/fake_model.py`: OpenAI chat completions, streamed, plain text: every answer is text, no tool call; Qwen Code makes two or three requests of its own per turn). {runs} rounds (`benches/agents/kept_turns.py`): in each, the four follow-ups (a), (b), (c), (b2) in an order rotated each round, then the two first turns, their order alternated; before each turn, untimed, the warm agents are let settle (Qwen Code goes on after a turn's answer: a prompt-suggestion request, its chat record; settled = no CPU tick used by the warm agents' processes over 200 ms, median wait {median(facts.get('settled_ms') or [0]):.0f} ms, at most {max(facts.get('settled_ms') or [0]):.0f}); each turn is checked (exit 0, `turn_end`/`end_turn`, the fake model's text):

- **(a) follow-up of a kept session**: `oneworks run qwen --session bench --prompt hi --json`, from its spawn to its first `agent_message_chunk` event and to its exit; the session was started by `run qwen --session bench --keep 30m` and had one follow-up before timing (untimed). Every follow-up reached the same agent: pid {facts['agent_after']} before and after the rounds{'' if same else ' (**it changed**)'}, {facts['turns_after'] - facts['turns_before']} turns served in the rounds.
- **(b) a minimal ACP client holding the agent's stdio**: the same program, argv, environment and world as the kept agent — read from `/proc` of the agent a kept owner started (session `bench-direct`, then stopped; its world as oneworks wrote it), with a fresh private HOME — started, `initialize`d, `session/new` and two prompts before timing; from writing `session/prompt` to the first `agent_message_chunk` update and to the prompt's answer.
- **(b2) the A/A control**: the same client holding a second agent, started the same way in the world of another kept session (`bench-control`, its world as oneworks wrote it): two identical agents and clients, so (b2) − (b) shows how much two agents differ by themselves, the scale against which (a) − (b) is read.
- **(c) acpx {e.get('ACPX_VERSION', '?')}** (npm registry, on the same managed Node) with its warm queue owner: `acpx --agent '{os.path.basename(world['program'])} {' '.join(world['args'])}' --cwd PROJECT --format json prompt -s bench hi` (the full path of the same program, the same environment and world, read like (b)'s from session `bench-acpx`), after `sessions new --name bench` and two prompts that started its queue owner (default TTL 300 s); from its spawn to the first `agent_message_chunk` line and to its exit. One acpx agent served every prompt (pid {', '.join(map(str, facts['acpx_agents_after']))}).
- **first turn, `--keep`**: `oneworks run qwen --session bench-first --keep 10m --prompt hi --json` (then `session stop bench-first`, untimed) vs **first turn, one-shot**: `oneworks run qwen --prompt hi --json`; both from spawn to the first chunk and to exit (the one-shot's exit includes stopping its agent: stdin closed, stop grace {e.get('GRACE', '?')} ms; the `--keep` run leaves it to the owner).

| contender | to the first chunk, median (range) | to the end, median (range) |
|---|---:|---:|
| (a) follow-up of a kept session, spawn → … exit | {cell(first['follow'])} | {cell(total['follow'])} |
| (b) minimal client holding the agent, `session/prompt` → … answer | {cell(first['direct'])} | {cell(total['direct'])} |
| (b2) the same client holding a second agent started the same way (A/A control) | {cell(first['control'])} | {cell(total['control'])} |
| (c) acpx {e.get('ACPX_VERSION', '?')}, warm queue owner, spawn → … exit | {cell(first['acpx'])} | {cell(total['acpx'])} |
| first turn, `run --session F --keep 10m`, spawn → … exit | {cell(first['keep'])} | {cell(total['keep'])} |
| first turn, one-shot `run`, spawn → … exit | {cell(first['oneshot'])} | {cell(total['oneshot'])} |

Where the time goes, medians in ms from the spawn ((b): from writing `session/prompt`): the agent process started (first turns: the start time of the newest `cli-entry.js` process, read from `/proc` at the first chunk, 10 ms coarse), the prompt written to the agent (oneworks: its `session_started` event, emitted just before it writes the prompt; acpx: its own `session/prompt` line), the first chunk, the prompt's answer (oneworks: `turn_end`; acpx: the `session/prompt` result), the exit:

| contender | agent started | prompt written | first chunk | answer | exit | answer → exit |
|---|---:|---:|---:|---:|---:|---:|
""" + "\n".join(breakdown) + f"""

Goals, judged on the median of the per-round differences (ratios) — the contenders of a round run side by side, so load that drifts between rounds cancels — with their range and the difference of the medians beside:

| goal | measured | |
|---|---|---|
""" + "\n".join(f"| {goal} | {measured} | {verdict(met)} |" for goal, measured, met in goals) + f"""

Memory after the rounds, VmRSS / VmHWM (peak) from `/proc/PID/status`, MiB:

| process | VmRSS | VmHWM |
|---|---:|---:|
| oneworks' owner (`oneworks session keep`, pid from `session list --json`; before the rounds {mib(facts['owner_before'], 'VmRSS')}) | {mib(owner, 'VmRSS')} | {mib(owner, 'VmHWM')} |
| its agent, Qwen Code: {agent_tree} | {mib(facts['agent'], 'VmRSS')} | {mib(facts['agent'], 'VmHWM')} |
| the agent (b) holds, the same processes | {mib(facts['held_agent'], 'VmRSS')} | {mib(facts['held_agent'], 'VmHWM')} |
| the agent (b2) holds, the same processes | {mib(facts.get('control_agent'), 'VmRSS')} | {mib(facts.get('control_agent'), 'VmHWM')} |
| acpx's queue owner (`node … cli.js`, the same Node) | {mib(facts['acpx_owner'], 'VmRSS')} | {mib(facts['acpx_owner'], 'VmHWM')} |
| its agent, the same processes | {mib(facts['acpx_agent'], 'VmRSS')} | {mib(facts['acpx_agent'], 'VmHWM')} |

The agent: `{os.path.basename(world['program'])} {' '.join(world['args'])}` (`{program}` under `ONEWORKS_HOME`), {len(world['env'])} variables ({', '.join('`' + n + '`' for n in sorted(world['env']))}). The fake model answered {e.get('MODEL_REQUESTS', '?')} requests in all. Machine: {e.get('CPU', '?')}; system node {e.get('NODE_VERSION', '?')}. Load average at the script's start {load(e.get('START_LOAD', ''))}, before the rounds {load(e.get('LOAD_BEFORE', ''))} ({'after waiting ' + e['WAITED'] + ' s for it to fall below ' + e['BENCH_KEPT_LOAD'] + '; ' if e.get('BENCH_KEPT_LOAD') else ''}{e.get('BUSY_BEFORE', '').rstrip(', ') or 'no compiler or node running'}), after {load(e.get('LOAD_AFTER', ''))} ({e.get('BUSY_AFTER', '').rstrip(', ') or 'no compiler or node running'}).

Reproduce: `bash tests/fixtures/node/fetch.sh && {knobs}bash benches/kept.sh` (knobs: `BENCH_KEPT_RUNS`, `ONEWORKS_BIN`, `BENCH_ACPX_VERSION`, `BENCH_KEPT_LOAD`, `BENCH_NO_DOC=1`, `BENCH_KEEP=1`).
"""
    print(section)
    if e.get("BENCH_NO_DOC"):
        return
    sys.path.insert(0, benches)
    from bench_doc import write_section
    start, end = "<!-- kept-bench:start -->", "<!-- kept-bench:end -->"
    write_section(doc, "## Kept sessions", start, end, f"{start}\n{section}{end}")
    print(f"wrote the kept-sessions block of {doc}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
