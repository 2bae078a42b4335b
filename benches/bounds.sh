#!/usr/bin/env bash
# Bounds benchmark: peak RSS of oneworks for
# each hostile input; every one must stay under 64 MiB.
#
#   bash benches/bounds.sh                       # full sizes (a few minutes)
#   BENCH_SMOKE=1 bash benches/bounds.sh         # small inputs, quick
#
# Builds `cargo build --release --features fakes` (oneworks and the fake
# `kiro-cli`), then, in a private world:
#   - `run kiro --json` whose agent writes one stderr line of
#     BENCH_STDERR_BYTES (600 MB) without a newline until its end, then a
#     normal line and a turn;
#   - the same with one stdout (JSON-RPC) line of BENCH_STDOUT_BYTES (600 MB);
#   - `run kiro --json` with a permission question, answered on stdin by one
#     reply line of BENCH_REPLY_BYTES (1.5 GB, streamed from the driver, no
#     file), then a valid reply;
#   - `run kiro --prompt-file /dev/zero`, and `--prompt-file -` < /dev/zero;
#   - a supervised session (fake TUI in a private tmux) whose recorder grows
#     by BENCH_RECORDER_BYTES (3 GB; BENCH_RECORDER_MODE=sparse, the default,
#     extends the file with a hole, `stream` writes the bytes), after which
#     the next approval must become a card; the supervisor's VmHWM.
# Each case also checks its outcome (exit code, diagnostic, card). Prints a
# markdown section and rewrites the generated part of BENCHMARKS.md (between
# the `bounds-bench` markers), only from a committed tree and at full sizes.
#
# Knobs: BENCH_STDERR_BYTES, BENCH_STDOUT_BYTES, BENCH_REPLY_BYTES,
# BENCH_RECORDER_BYTES, BENCH_RECORDER_MODE, BENCH_SMOKE=1 (10 MB inputs, 80 MB on stdout),
# BENCH_NO_DOC=1 (do not touch BENCHMARKS.md), BENCH_KEEP=1 (keep the work
# folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/bounds
SMALL=$((10 * 1000 * 1000))
# The stdout line must pass `maxMessageBytes` (16 MiB) to be skipped.
if [[ -n ${BENCH_SMOKE:-} ]]; then DEFAULTS=("$SMALL" 80000000 "$SMALL" "$SMALL")
else DEFAULTS=(600000000 600000000 1500000000 3000000000); fi
STDERR_BYTES=${BENCH_STDERR_BYTES:-${DEFAULTS[0]}}
STDOUT_BYTES=${BENCH_STDOUT_BYTES:-${DEFAULTS[1]}}
REPLY_BYTES=${BENCH_REPLY_BYTES:-${DEFAULTS[2]}}
RECORDER_BYTES=${BENCH_RECORDER_BYTES:-${DEFAULTS[3]}}
RECORDER_MODE=${BENCH_RECORDER_MODE:-sparse}

BENCH_NAME=bounds-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

for knob in "$STDERR_BYTES" "$STDOUT_BYTES" "$REPLY_BYTES" "$RECORDER_BYTES"; do
    [[ $knob =~ ^[1-9][0-9]*$ ]] || die "the BENCH_*_BYTES sizes must be positive whole numbers"
done
[[ $RECORDER_MODE = sparse || $RECORDER_MODE = stream ]] || die "BENCH_RECORDER_MODE is sparse or stream"
SECONDS=0

command -v tmux >/dev/null 2>&1 || die "tmux is required (apt-get install tmux)"
command -v python3 >/dev/null 2>&1 || die "python3 is required"

build_release --features fakes
[[ -x $FAKE ]] || die "no fake kiro-cli at $FAKE"

work_folder

mkdir -p "$WORK/home" "$WORK/run" "$WORK/bin" "$WORK/project/.oneworks" "$WORK/results"
chmod 700 "$WORK/run"
ENV=(env -i "HOME=$WORK/home" "PATH=$WORK/bin:/usr/bin:/bin" "LANG=C.UTF-8"
    "XDG_CONFIG_HOME=$WORK/home/.config" "XDG_DATA_HOME=$WORK/home/.local/share"
    "XDG_CACHE_HOME=$WORK/home/.cache" "XDG_RUNTIME_DIR=$WORK/run"
    "ONEWORKS_HOME=$WORK/ow" "ONEWORKS_CACHE_DIR=$WORK/ow-cache"
    "ONEWORKS_KIRO_MANIFEST_URL=http://127.0.0.1:9/unused.json")
"${ENV[@]}" /usr/bin/env -0 >"$WORK/env0"
printf 'adapters:\n  kiro:\n    cli:\n      source: system\n' >"$WORK/project/.oneworks/config.yaml"

START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
python3 "$HERE/drive.py" --oneworks "$BIN" --fake "$FAKE" --work "$WORK" --env0 "$WORK/env0" \
    --stderr-bytes "$STDERR_BYTES" --stdout-bytes "$STDOUT_BYTES" --reply-bytes "$REPLY_BYTES" \
    --recorder-bytes "$RECORDER_BYTES" --recorder-mode "$RECORDER_MODE" --out "$WORK/results/cases.json"
END_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

dirty() { git -C "$ROOT" status --porcelain -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null || echo unknown; }
REPRODUCE="bash benches/bounds.sh"
[[ -n ${BENCH_SMOKE:-} ]] && REPRODUCE="BENCH_SMOKE=1 $REPRODUCE"
python3 - "$WORK/results/meta.json" <<PY
import json, sys
json.dump({
    "nproc": "$(nproc)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "kernel": "$(uname -sr)",
    "mem_gib": round($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576, 1),
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$([[ -z $(dirty) ]] || echo '+dirty')",
    "load_start": "$START_LOAD", "load_end": "$END_LOAD",
    "date": "$(date -u +%Y-%m-%dT%H:%MZ)",
    "reproduce": "$REPRODUCE",
    "recorder_mode": "$RECORDER_MODE",
}, open(sys.argv[1], "w"), indent=1)
PY
DOC=$ROOT/BENCHMARKS.md
[[ -n ${BENCH_NO_DOC:-} ]] && DOC=
if [[ -n $DOC && -n ${BENCH_SMOKE:-} ]]; then
    log "smoke sizes: printing the section only"; DOC=
fi
if [[ -n $DOC && -n $(dirty) ]]; then
    log "the tree has uncommitted changes to src/, Cargo.*, manifests/ or benches/: printing the section only"
    log "(commit first, or set BENCH_NO_DOC=1, to measure a dirty tree on purpose)"
    DOC=
fi
python3 "$HERE/report.py" "$WORK/results" "$DOC"
log "done in ${SECONDS}s"
