#!/usr/bin/env bash
# Structured-run benchmarks (`oneworks run kiro --json` over ACP).
#
#   bash benches/acp.sh
#
# Builds `cargo build --release --features fakes` (oneworks and the fake
# `kiro-cli`, whose `acp` script streams chunks), then measures in this one run:
#   1. throughput: N `agent_message_chunk` notifications (BENCH_N, default
#      200,000) from the fake through `oneworks run kiro --json --prompt x
#      >/dev/null`, against the very same bytes (captured once from the fake)
#      through `jq -c . >/dev/null` and a plain Python parse-and-print loop;
#   2. peak RSS (`/usr/bin/time -f %M`) at 20,000, 200,000 and 2,000,000
#      messages;
#   3. latency from a chunk written by the fake (its text is the
#      CLOCK_MONOTONIC time of the write, in ns) to its event line read from
#      oneworks' stdout by a Python reader (same machine, same clock), p50 and
#      p99, with the fake piped straight into the same reader as the floor.
# Prints a markdown section and rewrites the generated part of BENCHMARKS.md
# (between the `acp-bench` markers) — only from a committed tree: with
# uncommitted changes to src/, Cargo.*, manifests/ or benches/ it prints the
# section and leaves BENCHMARKS.md alone.
#
# Knobs (environment): BENCH_RUNS (default 10), BENCH_WARMUP (2),
# BENCH_N (200000), BENCH_RSS_RUNS (3), BENCH_LATENCY_COUNT (3000),
# BENCH_LATENCY_INTERVAL_US (1000), BENCH_NO_DOC=1 (do not touch
# BENCHMARKS.md), BENCH_PROFILE=1 (also `perf record` one throughput run and
# print its top symbols), BENCH_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/acp
RUNS=${BENCH_RUNS:-10}
WARMUP=${BENCH_WARMUP:-2}
N=${BENCH_N:-200000}
RSS_RUNS=${BENCH_RSS_RUNS:-3}
LAT_COUNT=${BENCH_LATENCY_COUNT:-3000}
LAT_INTERVAL=${BENCH_LATENCY_INTERVAL_US:-1000}
RSS_SIZES=(20000 200000 2000000)
# What one chunk says: a sentence-sized piece of model output.
TEXT='The quick brown fox jumps over the lazy dog. '

BENCH_NAME=acp-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

SECONDS=0
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

# --- tools -------------------------------------------------------------------
need jq jq || die "jq is required (apt-get install jq)"
need hyperfine hyperfine || die "hyperfine is required (apt-get install hyperfine or cargo install hyperfine)"
need python3 python3 || die "python3 is required"
[[ -x /usr/bin/time ]] || need /usr/bin/time time || die "/usr/bin/time (package time) is required"

# --- build -------------------------------------------------------------------
build_release --features fakes
[[ -x $FAKE ]] || die "no fake agent at $FAKE"

# --- work folder and the product's environment ----------------------------------
work_folder

mkdir -p "$WORK/home" "$WORK/run" "$WORK/bin" "$WORK/project/.oneworks" "$WORK/scripts" "$WORK/results"
chmod 700 "$WORK/run"
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/home/.local/share
export XDG_CACHE_HOME=$WORK/home/.cache XDG_RUNTIME_DIR=$WORK/run
export ONEWORKS_HOME=$WORK/ow ONEWORKS_CACHE_DIR=$WORK/ow-cache
export PATH=$WORK/bin:$PATH
unset ONEWORKS_CONFIG ONEWORKS_KIRO_ADAPTER_FILE RUST_LOG
printf 'adapters:\n  kiro:\n    cli:\n      source: system\n' >"$WORK/project/.oneworks/config.yaml"

# The fake's script per scenario; `kiro-cli` on PATH is a wrapper naming it.
script() { # script NAME TURN_JSON
    python3 - "$WORK/scripts/$1.json" "$2" <<'PY'
import json, sys
json.dump({"versionOutput": "kiro-cli 2.15.1", "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]",
           "acp": {"turn": json.loads(sys.argv[2])}}, open(sys.argv[1], "w"))
PY
}
chunks() { printf '[{"chunks":{"count":%d,"text":"%s"}}]' "$1" "$TEXT"; }
use_script() { # use_script NAME: point `kiro-cli` at this scenario
    printf '#!/bin/sh\nexec %q --fake-script %q "$@"\n' "$FAKE" "$WORK/scripts/$1.json" >"$WORK/bin/kiro-cli"
    chmod +x "$WORK/bin/kiro-cli"
}
for size in "$N" "${RSS_SIZES[@]}"; do script "chunks-$size" "$(chunks "$size")"; done
script stamped "$(printf '[{"stamped":{"count":%d,"intervalMicros":%d}}]' "$LAT_COUNT" "$LAT_INTERVAL")"
cd "$WORK/project"
RUN="$BIN run kiro --json --prompt x"
# A credential in the environment, as in CI: every event then passes a
# scrubber with real patterns instead of the empty one.
BENCH_KEY=bench-kiro-key-0123456789abcdef

# What oneworks says to the agent, so the fake alone can replay a turn.
CLIENT_LINES='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}
{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"fake-session-1","prompt":[{"type":"text","text":"x"}]}}'
printf '%s\n' "$CLIENT_LINES" >"$WORK/client.jsonl"

# --- correctness before timing (not timed) --------------------------------------
use_script "chunks-$N"
"$FAKE" --fake-script "$WORK/scripts/chunks-$N.json" acp --agent oneworks <"$WORK/client.jsonl" >"$WORK/capture.jsonl"
CAPTURE_LINES=$(wc -l <"$WORK/capture.jsonl")
CAPTURE_BYTES=$(stat -c %s "$WORK/capture.jsonl")
[[ $CAPTURE_LINES -eq $((N + 3)) ]] || die "the capture has $CAPTURE_LINES lines, expected $((N + 3))"
$RUN >"$WORK/events.jsonl" 2>"$WORK/run.err" || { cat "$WORK/run.err" >&2; die "oneworks run failed"; }
python3 - "$WORK/events.jsonl" "$N" "$TEXT" <<'PY' || die "unexpected oneworks events"
import json, sys
path, n, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
kinds = {}
for line in open(path):
    event = json.loads(line)
    kinds[event["type"]] = kinds.get(event["type"], 0) + 1
    if event["type"] == "agent_message_chunk":
        assert event["text"] == text, event
    if event["type"] == "turn_end":
        assert event["stopReason"] == "end_turn", event
assert kinds.get("agent_message_chunk") == n and kinds.get("turn_end") == 1, kinds
PY
EVENT_BYTES=$(stat -c %s "$WORK/events.jsonl")
jq -c . <"$WORK/capture.jsonl" | cmp -s - "$WORK/capture.jsonl" || log "note: jq -c output differs from its input (key order or spacing)"

# --- 1. throughput ------------------------------------------------------------------
cp "$HERE/parse_print.py" "$WORK/parse_print.py"
HF=(hyperfine --style basic --shell=bash --runs "$RUNS" --warmup "$WARMUP")
busy_seconds() { awk '/^cpu / {printf "%.2f", ($2+$3+$4+$7+$8+$9)/100}' /proc/stat; }
own_seconds() { # this shell's waited children (hyperfine and all it ran)
    times >"$WORK/times"
    awk 'NR==2 {split($1,u,"m"); split($2,s,"m"); printf "%.2f", u[1]*60+u[2]+s[1]*60+s[2]}' "$WORK/times"
}
log "timing throughput: $N chunks x $RUNS runs (+$WARMUP warmup)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy0=$(busy_seconds) wall0=$(date +%s.%N); own_seconds >"$WORK/own0"
"${HF[@]}" --export-json "$WORK/results/throughput.json" \
    -n "oneworks run kiro --json" "$RUN >/dev/null" \
    -n "oneworks run kiro --json, KIRO_API_KEY set" "KIRO_API_KEY=$BENCH_KEY $RUN >/dev/null" \
    -n "jq -c ." "jq -c . <$WORK/capture.jsonl >/dev/null" \
    -n "python parse-and-print loop" "python3 $WORK/parse_print.py <$WORK/capture.jsonl >/dev/null" \
    -n "floor: the fake agent alone" "$FAKE --fake-script $WORK/scripts/chunks-$N.json acp --agent oneworks <$WORK/client.jsonl >/dev/null" \
    >&2
busy1=$(busy_seconds) wall1=$(date +%s.%N); own_seconds >"$WORK/own1"
OTHER_CPU=$(awk -v b0="$busy0" -v b1="$busy1" -v o0="$(cat "$WORK/own0")" -v o1="$(cat "$WORK/own1")" -v w0="$wall0" -v w1="$wall1" \
    'BEGIN {x=((b1-b0)-(o1-o0))/(w1-w0); if (x<0) x=0; printf "%.2f", x}')

# --- 2. peak RSS ------------------------------------------------------------------------
: >"$WORK/results/rss.tsv"
for size in "${RSS_SIZES[@]}"; do
    use_script "chunks-$size"
    log "peak RSS at $size chunks (max of $RSS_RUNS runs)"
    peak=0
    for _ in $(seq "$RSS_RUNS"); do
        /usr/bin/time -f %M -o "$WORK/rss" $RUN >/dev/null 2>"$WORK/run.err" || { cat "$WORK/run.err" >&2; die "oneworks run failed at $size chunks"; }
        kib=$(tail -n1 "$WORK/rss")
        (( kib > peak )) && peak=$kib
    done
    printf 'oneworks\t%s\t%s\n' "$size" "$peak" >>"$WORK/results/rss.tsv"
done
/usr/bin/time -f %M -o "$WORK/rss" jq -c . <"$WORK/capture.jsonl" >/dev/null
printf 'jq\t%s\t%s\n' "$N" "$(tail -n1 "$WORK/rss")" >>"$WORK/results/rss.tsv"

# --- 3. latency ------------------------------------------------------------------------
use_script stamped
log "latency: $LAT_COUNT stamped chunks, one every ${LAT_INTERVAL}us"
python3 "$HERE/latency.py" --label oneworks -- $RUN >"$WORK/results/latency-oneworks.json"
python3 "$HERE/latency.py" --label floor --stdin "$WORK/client.jsonl" -- \
    "$FAKE" --fake-script "$WORK/scripts/stamped.json" acp --agent oneworks >"$WORK/results/latency-floor.json"
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- optional profile ---------------------------------------------------------------------
if [[ ${BENCH_PROFILE:-0} = 1 ]] && command -v perf >/dev/null; then
    use_script "chunks-$N"
    log "perf record of one throughput run"
    if perf record -q -F 2000 -o "$WORK/perf.data" $RUN >/dev/null 2>"$WORK/perf.err"; then
        perf report -i "$WORK/perf.data" --stdio --no-children -g none --comm oneworks --percent-limit 1.5 2>/dev/null \
            | grep -E '^ +[0-9]' | head -40 >&2 || true
    else
        log "perf record failed"; cat "$WORK/perf.err" >&2
    fi
fi

# --- report ---------------------------------------------------------------------------------
OTHER=$(ps -eo comm= | grep -cE '^(rustc|cargo|clippy-driver|cc1|cc1plus|ld|rust-lld)$' || true)
python3 - "$WORK/results/meta.json" <<PY
import json, sys
json.dump({
    "nproc": "$(nproc)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "kernel": "$(uname -sr)",
    "mem_gib": round($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576, 1),
    "tools": """hyperfine $(hyperfine --version | awk '{print $2}'), $(jq --version), Python $(python3 -c 'import platform; print(platform.python_version())')""",
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null || echo '+dirty')",
    "n": $N, "runs": $RUNS, "warmup": $WARMUP, "rss_runs": $RSS_RUNS,
    "latency_count": $LAT_COUNT, "latency_interval_us": $LAT_INTERVAL,
    "capture_bytes": $CAPTURE_BYTES, "event_bytes": $EVENT_BYTES, "text": """$TEXT""",
    "load_start": "$START_LOAD", "load_before": "$LOAD_BEFORE", "load_after": "$LOAD_AFTER",
    "other_compilers": $OTHER, "other_cpu": $OTHER_CPU,
    "date": "$(date -u +%Y-%m-%dT%H:%MZ)",
}, open(sys.argv[1], "w"), indent=1)
PY
DOC=$ROOT/BENCHMARKS.md
[[ -n ${BENCH_NO_DOC:-} ]] && DOC=
if [[ -n $DOC ]] && [[ -n $(git -C "$ROOT" status --porcelain -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null) ]]; then
    log "the tree has uncommitted changes to src/, Cargo.*, manifests/ or benches/: printing the section only"
    log "(commit first, or set BENCH_NO_DOC=1, to measure a dirty tree on purpose)"
    DOC=
fi
python3 "$HERE/report.py" "$WORK/results" "$DOC"
log "done in ${SECONDS}s"
