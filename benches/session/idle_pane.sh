#!/usr/bin/env bash
# Idle CPU of a supervisor that reads the agent's pane (goal:
# ≤ 0.1 % of a core while nothing happens), on the fake
# `kiro-cli chat --tui` with `paneFallback: on` in real tmux:
#
#   bash benches/session/idle_pane.sh
#
# Two sessions, one after the other, each left alone for BENCH_IDLE_SECONDS
# (60) after a 3 s settle, the supervisor's utime+stime read from
# /proc/PID/stat before and after:
#   - `control`: as shipped (the pane looked at when tmux control mode
#     says it changed);
#   - `polling`: the same build with its control-mode client killed, so it
#     falls back to reading the pane every `pollMs` (what every release
#     before did).
#
# Knobs: BENCH_IDLE_SECONDS (60), ONEWORKS_BIN_DIR (a folder with
# `oneworks` and `fake-kiro-cli` built with `--features fakes`, e.g.
# target/debug; else a release build), BENCH_KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IDLE_SECONDS=${BENCH_IDLE_SECONDS:-60}
[[ $IDLE_SECONDS =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_IDLE_SECONDS must be a positive whole number" >&2; exit 1; }
BENCH_NAME=idle-pane
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"
command -v tmux >/dev/null 2>&1 || die "tmux is required (apt-get install tmux)"

if [[ -n ${ONEWORKS_BIN_DIR:-} ]]; then
    BIN=$ONEWORKS_BIN_DIR/oneworks FAKE=$ONEWORKS_BIN_DIR/fake-kiro-cli
    BUILD=$(basename "$ONEWORKS_BIN_DIR")
else
    build_release --features fakes
    BUILD=release
fi
[[ -x $BIN && -x $FAKE ]] || die "no oneworks / fake-kiro-cli in $(dirname "$BIN")"

work_folder
mkdir -p "$WORK/home" "$WORK/run" "$WORK/bin" "$WORK/project/.oneworks" "$WORK/markers"
chmod 700 "$WORK/run"
ENV=(env -i "HOME=$WORK/home" "PATH=$WORK/bin:/usr/bin:/bin" "LANG=C.UTF-8"
    "XDG_CONFIG_HOME=$WORK/home/.config" "XDG_DATA_HOME=$WORK/home/.local/share"
    "XDG_CACHE_HOME=$WORK/home/.cache" "XDG_RUNTIME_DIR=$WORK/run"
    "ONEWORKS_HOME=$WORK/ow" "ONEWORKS_CACHE_DIR=$WORK/ow-cache"
    "ONEWORKS_KIRO_MANIFEST_URL=http://127.0.0.1:9/unused.json")
printf 'adapters:\n  kiro:\n    cli:\n      source: system\n    approvals:\n      paneFallback: "on"\n' \
    >"$WORK/project/.oneworks/config.yaml"
# One box, behind a marker nobody touches: the TUI waits for input.
python3 - "$WORK" >"$WORK/bin/kiro-cli.script.json" <<'PY'
import json, os, sys
work = sys.argv[1]
json.dump({"versionOutput": "kiro-cli 2.15.1", "versionExit": 0,
           "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]", "acpHelpExit": 0,
           "tui": {"requests": [{"id": "r1", "title": "Running: pwd",
                                 "waitFor": os.path.join(work, "markers", "never")}]}}, sys.stdout)
PY
printf '#!/bin/sh\nexec %q --fake-script %q "$@"\n' "$FAKE" "$WORK/bin/kiro-cli.script.json" >"$WORK/bin/kiro-cli"
chmod 755 "$WORK/bin/kiro-cli"
OW() { (cd "$WORK/project" && "${ENV[@]}" "$BIN" "$@"); }

ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
control_client() { # the supervisor's `tmux -C` child
    local pid
    for pid in $(ps -o pid= --ppid "$1"); do
        tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- ' -C ' && { echo "$pid"; return; }
    done
}

for mode in control polling; do
    name=idle-$mode
    OW session start kiro --detach --name "$name" >/dev/null 2>&1 || die "session start failed"
    record=$WORK/project/.oneworks/sessions/$name/supervisor.json
    pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$record")
    sleep 3
    client=$(control_client "$pid")
    [[ -n $client ]] || die "$mode: the supervisor runs no control-mode client"
    if [[ $mode == polling ]]; then
        kill -KILL "$client"
        sleep 1
        [[ -z $(control_client "$pid") ]] || die "the control-mode client is still there"
    fi
    t0=$(ticks "$pid") w0=$(date +%s.%N)
    sleep "$IDLE_SECONDS"
    t1=$(ticks "$pid") w1=$(date +%s.%N)
    OW session stop "$name" >/dev/null 2>&1 || die "session stop failed"
    awk -v m="$mode" -v b="$BUILD" -v t0="$t0" -v t1="$t1" -v w0="$w0" -v w1="$w1" 'BEGIN {
        printf "%-8s %s build: supervisor %d ticks (10 ms) in %.1f s idle = %.3f %% of a core\n",
            m, b, t1 - t0, w1 - w0, (t1 - t0) / (w1 - w0)
    }'
done
log "load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores, $(tmux -V)"
