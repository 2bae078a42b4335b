#!/usr/bin/env bash
# Shutdown benchmark: how long
# `oneworks run kiro --json` takes from the end of the turn to its own exit.
#
#   bash benches/shutdown.sh
#
# Builds `cargo build --release --features fakes` (oneworks and the fake
# `kiro-cli`). The fake writes the CLOCK_MONOTONIC time just before it sends
# the answer that ends the turn (`turnEndStampFile`); a Python driver
# (benches/shutdown/measure.py) takes the same clock when waitpid() returns
# for oneworks and subtracts. Three agents:
#   1. one that exits on stdin EOF (the common case): target < 50 ms, p50
#      and p95 over BENCH_RUNS runs;
#   2. one that keeps running after EOF but ends on SIGTERM: ≈ the adapter's
#      grace (`acp.stopGraceMs` in manifests/kiro.yaml);
#   3. one that ignores EOF and SIGTERM, with a child that does too: ≈ the
#      grace + the SIGTERM wait, then SIGKILL to the group.
# Prints a markdown section and rewrites the generated part of BENCHMARKS.md
# (between the `shutdown-bench` markers) — only from a committed tree: with
# uncommitted changes to src/, Cargo.*, manifests/ or benches/ it prints the
# section and leaves BENCHMARKS.md alone.
#
# Knobs (environment): BENCH_RUNS (default 50), BENCH_WARMUP (3),
# BENCH_STAY_RUNS (5), BENCH_STUBBORN_RUNS (3), BENCH_NO_DOC=1 (do not touch
# BENCHMARKS.md), BENCH_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/shutdown
RUNS=${BENCH_RUNS:-50}
WARMUP=${BENCH_WARMUP:-3}
STAY_RUNS=${BENCH_STAY_RUNS:-5}
STUBBORN_RUNS=${BENCH_STUBBORN_RUNS:-3}

BENCH_NAME=shutdown-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

SECONDS=0
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

need python3 python3 || die "python3 is required"
GRACE_MS=$(sed -n 's/^ *stopGraceMs: *\([0-9]*\).*/\1/p' "$ROOT/manifests/kiro.yaml")
[[ -n $GRACE_MS ]] || die "no acp.stopGraceMs in manifests/kiro.yaml"

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

STAMP=$WORK/turn-end.ns
script() { # script NAME EXTRA_ACP_JSON
    python3 - "$WORK/scripts/$1.json" "$2" "$STAMP" <<'PY'
import json, sys
acp = {"turn": [{"text": "done"}], "turnEndStampFile": sys.argv[3]}
acp.update(json.loads(sys.argv[2]))
json.dump({"versionOutput": "kiro-cli 2.15.1", "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]",
           "acp": acp}, open(sys.argv[1], "w"))
PY
}
use_script() { # use_script NAME: point `kiro-cli` at this scenario
    printf '#!/bin/sh\nexec %q --fake-script %q "$@"\n' "$FAKE" "$WORK/scripts/$1.json" >"$WORK/bin/kiro-cli"
    chmod +x "$WORK/bin/kiro-cli"
}
script eof '{}'
script stay '{"stayAfterEof": true}'
script stubborn "{\"stayAfterEof\": true, \"ignoreSigterm\": true, \"heldChildPidFile\": \"$WORK/held.pid\"}"
cd "$WORK/project"
RUN=("$BIN" run kiro --json --prompt x)
measure() { # measure NAME RUNS WARMUP
    use_script "$1"
    log "$1: $2 runs (+$3 warmup)"
    python3 "$HERE/measure.py" --label "$1" --runs "$2" --warmup "$3" --stamp "$STAMP" -- "${RUN[@]}" \
        >"$WORK/results/$1.json"
}

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
measure eof "$RUNS" "$WARMUP"
LOAD_AFTER_EOF=$(cut -d' ' -f1-3 /proc/loadavg)
measure stay "$STAY_RUNS" 0
measure stubborn "$STUBBORN_RUNS" 0
held=$(cat "$WORK/held.pid" 2>/dev/null || true)
if [[ -n $held ]] && [[ -d /proc/$held ]] && ! grep -q ') Z' "/proc/$held/stat" 2>/dev/null; then
    die "the stubborn agent's child $held outlived the run"
fi
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report ---------------------------------------------------------------------------------
OTHER=$(ps -eo comm= | grep -cE '^(rustc|cargo|clippy-driver|cc1|cc1plus|ld|rust-lld)$' || true)
python3 - "$WORK/results/meta.json" <<PY
import json, sys
json.dump({
    "nproc": "$(nproc)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "kernel": "$(uname -sr)",
    "mem_gib": round($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576, 1),
    "python": "$(python3 -c 'import platform; print(platform.python_version())')",
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null || echo '+dirty')",
    "grace_ms": $GRACE_MS,
    "load_start": "$START_LOAD", "load_before": "$LOAD_BEFORE", "load_after_eof": "$LOAD_AFTER_EOF",
    "load_after": "$LOAD_AFTER", "other_compilers": $OTHER,
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
