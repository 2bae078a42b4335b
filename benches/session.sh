#!/usr/bin/env bash
# Supervised TUI session benchmarks (`oneworks session …`).
#
#   bash benches/session.sh
#
# Builds `cargo build --release --features fakes` once, starts one supervised
# session of the fake `kiro-cli chat --tui` in a private tmux server (real
# tmux, the built-in adapter data, so the default key gaps), and measures:
#
#   1. idle: the supervisor's CPU over 60 idle seconds (/proc/PID/stat
#      utime+stime, and the threads' schedstat in ns), then later its peak
#      RSS (VmHWM);
#   2. recorder → card: a request line appended to the recorder
#      (KIRO_ACP_RECORD_PATH) until its card line arrives on
#      `oneworks session approvals NAME --watch --json`, over 200 requests,
#      one card at a time (each resolved in the terminal by a response line
#      before the next request);
#   3. answer → key: `oneworks session answer NAME CARD accept` until the
#      Enter reaches the fake TUI (its `keyTimes` log, CLOCK_MONOTONIC), split
#      into the deliberate waiting (settle, render gaps from
#      manifests/kiro.yaml) and everything else; the same for `decline` (Down,
#      Down, Enter with the trust row).
#
# Prints a markdown table and rewrites the generated part of BENCHMARKS.md
# (between the `session-bench` markers), only from a committed tree.
#
# The agents part (BENCH_PARTS=agents): every real agent's TUI
# (tests/it/tui_real/, their packages fetched by tests/fixtures/fetch.sh)
# in a release build, one ignored `measure` test per agent: box on screen →
# card, answer → delivered per verdict, idle CPU of the supervisor and of
# the agent; the rows go between the `session-agents-bench` markers.
#
# Knobs (environment): BENCH_PARTS ("kiro agents"), BENCH_AGENTS ("gemini
# qwen copilot opencode codex claude"), BENCH_REQUESTS (200), BENCH_ACCEPTS (20),
# BENCH_DECLINES (10), BENCH_IDLE_SECONDS (60), BENCH_NO_DOC=1 (do not touch
# BENCHMARKS.md), BENCH_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/session
REQUESTS=${BENCH_REQUESTS:-200}
ACCEPTS=${BENCH_ACCEPTS:-20}
DECLINES=${BENCH_DECLINES:-10}
IDLE_SECONDS=${BENCH_IDLE_SECONDS:-60}

for knob in "$REQUESTS" "$ACCEPTS" "$IDLE_SECONDS"; do
    [[ $knob =~ ^[1-9][0-9]*$ ]] || { echo "[session-bench] error: BENCH_REQUESTS, BENCH_ACCEPTS and BENCH_IDLE_SECONDS must be positive whole numbers" >&2; exit 1; }
done
[[ $DECLINES =~ ^[0-9]+$ ]] || { echo "[session-bench] error: BENCH_DECLINES must be a whole number" >&2; exit 1; }

BENCH_NAME=session-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

SECONDS=0
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
PARTS=${BENCH_PARTS:-kiro agents}
for part in $PARTS; do
    [[ $part == kiro || $part == agents ]] || die "BENCH_PARTS: unknown part \`$part\` (kiro, agents)"
done

# --- the real agents' TUIs ----------------------------------------------------
if [[ " $PARTS " == *" agents "* ]]; then
    command -v tmux >/dev/null 2>&1 || die "tmux is required (apt-get install tmux)"
    AGENTS_OUT=$(mktemp "${TMPDIR:-/tmp}/oneworks-session-agents.XXXXXX")
    export ONEWORKS_BENCH_IDLE_SECONDS=$IDLE_SECONDS
    log "real agents' TUIs: cargo test --release --features fakes -- --ignored --exact tui_real::AGENT::measure (one at a time)"
    (cd "$ROOT" && cargo test --release --features fakes --no-run --quiet) || die "the release test build failed"
    AGENTS_FAILED=()
    for agent in ${BENCH_AGENTS:-gemini qwen copilot opencode codex claude}; do
        log "  $agent"
        ONE_OUT=$AGENTS_OUT.$agent
        # Gemini replays a recorded turn (tests/it/gemini/measure.rs); the
        # others run against the fake model (tests/it/tui_real/).
        test_path=tui_real::$agent::measure
        [[ $agent == gemini ]] && test_path=gemini::measure::measure
        if (cd "$ROOT" && cargo test --release --features fakes --quiet -- --ignored --exact --nocapture "$test_path") >"$ONE_OUT" 2>&1; then
            grep '^TUI-BENCH ' "$ONE_OUT" | tee -a "$AGENTS_OUT" >&2
        else
            # A failed measure is a row that says so, not a missing one; the
            # bench still fails at the end.
            AGENTS_FAILED+=("$agent")
            why=$(grep -m1 -E "panicked at|timed out" -A2 "$ONE_OUT" | tr '\n' ' ' | cut -c1-300)
            python3 -c 'import json,sys; print("TUI-BENCH-FAILED " + json.dumps({"agent": sys.argv[1], "why": sys.argv[2]}))' "$agent" "$why" | tee -a "$AGENTS_OUT" >&2
            log "  $agent: the measure failed (output kept: $ONE_OUT)"
            continue
        fi
        rm -f "$ONE_OUT"
    done
    AGENTS_META=$AGENTS_OUT.meta.json
    python3 - "$AGENTS_META" <<PY
import json, sys
json.dump({"nproc": "$(nproc)", "commit": "$(git -C "$ROOT" rev-parse --short HEAD)$([[ -z $(git -C "$ROOT" status --porcelain -- src manifests tests/it/tui_real) ]] || echo '+dirty')",
           "load_before": "$START_LOAD", "date": "$(date -u +%Y-%m-%dT%H:%MZ)"}, open(sys.argv[1], "w"))
PY
    AGENTS_DOC=$ROOT/BENCHMARKS.md
    [[ -n ${BENCH_NO_DOC:-} ]] && AGENTS_DOC=
    python3 "$HERE/agents_report.py" "$AGENTS_OUT" "$AGENTS_META" "$AGENTS_DOC"
    rm -f "$AGENTS_OUT" "$AGENTS_META"
    [[ ${#AGENTS_FAILED[@]} -eq 0 ]] || die "a measure failed: ${AGENTS_FAILED[*]} (its row says so)"
fi
if [[ " $PARTS " != *" kiro "* ]]; then
    log "done in ${SECONDS}s"
    exit 0
fi

# --- tools -------------------------------------------------------------------
command -v tmux >/dev/null 2>&1 || die "tmux is required (apt-get install tmux)"
command -v python3 >/dev/null 2>&1 || die "python3 is required"

# --- build -------------------------------------------------------------------
build_release --features fakes
[[ -x $FAKE ]] || die "no fake kiro-cli at $FAKE"

# --- work folder, the product's environment -----------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oneworks-session-bench.XXXXXX")
WORK=$(cd "$WORK" && pwd -P)
NAME=bench
STARTED=
OW=
cleanup() {
    local status=$?
    if [[ -n $STARTED && -n $OW ]]; then
        "$OW" session stop "$NAME" >/dev/null 2>&1 || log "session stop failed (see $WORK/project/.oneworks/sessions/$NAME/supervisor.log)"
    fi
    if [[ -z ${BENCH_KEEP:-} ]]; then rm -rf "$WORK"; else log "kept $WORK"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$WORK/home" "$WORK/run" "$WORK/bin" "$WORK/project/.oneworks" "$WORK/markers" "$WORK/results"
chmod 700 "$WORK/run"
# Only what `oneworks` needs; no proxy, no user tmux.conf, no inherited
# recorder path (the supervisor sets its own anyway).
ENV=(env -i "HOME=$WORK/home" "PATH=$WORK/bin:/usr/bin:/bin" "LANG=C.UTF-8"
    "XDG_CONFIG_HOME=$WORK/home/.config" "XDG_DATA_HOME=$WORK/home/.local/share"
    "XDG_CACHE_HOME=$WORK/home/.cache" "XDG_RUNTIME_DIR=$WORK/run"
    "ONEWORKS_HOME=$WORK/ow" "ONEWORKS_CACHE_DIR=$WORK/ow-cache"
    "ONEWORKS_KIRO_MANIFEST_URL=http://127.0.0.1:9/unused.json")
printf 'adapters:\n  kiro:\n    cli:\n      source: system\n' >"$WORK/project/.oneworks/config.yaml"

# The fake kiro-cli: a wrapper beside its script. Its TUI shows
# one scripted request per marker file, for the answer benchmark.
python3 "$HERE/fake_script.py" "$WORK" "$ACCEPTS" "$DECLINES" >"$WORK/bin/kiro-cli.script.json"
printf '#!/bin/sh\nexec %q --fake-script %q "$@"\n' "$FAKE" "$WORK/bin/kiro-cli.script.json" >"$WORK/bin/kiro-cli"
chmod 755 "$WORK/bin/kiro-cli"

# Every oneworks command of the benchmark runs through this wrapper: the
# environment above, in the project folder.
OW=$WORK/oneworks
printf '#!/bin/bash\ncd %q && exec %s%q "$@"\n' "$WORK/project" "$(printf '%q ' "${ENV[@]}")" "$BIN" >"$OW"
chmod 755 "$OW"
# The driver runs the binary itself (no shell in the timed path) with
# exactly this environment.
"${ENV[@]}" /usr/bin/env -0 >"$WORK/env0"

# --- start one session -------------------------------------------------------
log "starting session \`$NAME\` (fake kiro-cli chat --tui in $(tmux -V))"
"$OW" session start kiro --detach --name "$NAME" >&2 || die "session start failed"
STARTED=1

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
busy_seconds() { awk '/^cpu / {printf "%.2f", ($2+$3+$4+$7+$8+$9)/100}' /proc/stat; }
busy0=$(busy_seconds) wall0=$(date +%s.%N)
python3 "$HERE/drive.py" \
    --oneworks "$BIN" --env0 "$WORK/env0" --name "$NAME" --project "$WORK/project" --work "$WORK" \
    --requests "$REQUESTS" --accepts "$ACCEPTS" --declines "$DECLINES" \
    --idle-seconds "$IDLE_SECONDS" --adapter "$ROOT/manifests/kiro.yaml" \
    --out "$WORK/results/drive.json"
busy1=$(busy_seconds) wall1=$(date +%s.%N)
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
MACHINE_CPU=$(awk -v b0="$busy0" -v b1="$busy1" -v w0="$wall0" -v w1="$wall1" 'BEGIN {printf "%.2f", (b1-b0)/(w1-w0)}')

log "session stop"
"$OW" session stop "$NAME" >&2 || die "session stop failed"
STARTED=

# --- report ------------------------------------------------------------------
# Uncommitted (or untracked) changes to what the numbers depend on.
dirty() { git -C "$ROOT" status --porcelain -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null || echo unknown; }
OTHER=$(ps -eo comm= | grep -cE '^(rustc|cargo|clippy-driver|cc1|cc1plus|ld|rust-lld)$' || true)
python3 - "$WORK/results/meta.json" <<PY
import json, sys
json.dump({
    "nproc": "$(nproc)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "kernel": "$(uname -sr)",
    "mem_gib": round($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576, 1),
    "fs": "$(df -T "$WORK" | awk 'NR==2 {print $2}')",
    "tmux": "$(tmux -V)",
    "python": "$(python3 -c 'import platform; print(platform.python_version())')",
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$([[ -z $(dirty) ]] || echo '+dirty')",
    "load_start": "$START_LOAD", "load_before": "$LOAD_BEFORE", "load_after": "$LOAD_AFTER",
    "machine_cpu": $MACHINE_CPU,
    "other_compilers": $OTHER,
    "date": "$(date -u +%Y-%m-%dT%H:%MZ)",
}, open(sys.argv[1], "w"), indent=1)
PY
DOC=$ROOT/BENCHMARKS.md
[[ -n ${BENCH_NO_DOC:-} ]] && DOC=
if [[ -n $DOC && -n $(dirty) ]]; then
    log "the tree has uncommitted changes to src/, Cargo.*, manifests/ or benches/: printing the table only"
    log "(commit first, or set BENCH_NO_DOC=1, to measure a dirty tree on purpose)"
    DOC=
fi
python3 "$HERE/report.py" "$WORK/results" "$DOC"
log "done in ${SECONDS}s"
