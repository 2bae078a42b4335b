#!/usr/bin/env bash
# `oneworks session serve` benchmarks.
#
#   bash benches/serve.sh
#
# Builds `cargo build --release --features fakes` once, starts SESSIONS
# supervised sessions of the fake `kiro-cli chat --tui` (real tmux), one
# `session serve`, opens STREAMS `GET /events` streams, and measures (see
# benches/serve/drive.py): serve's idle CPU and RSS with every stream open,
# then recorder line → card element in headless Chromium's DOM (Debian's
# chromium + chromium-driver, installed when missing), then the floods of
# serve against a second serve under `ulimit -n 256` (idle sockets,
# slow-loris heads, held link bodies: the slowest authenticated answer
# during each, when serve closed every flood socket, serve's peak RSS).
# Prints markdown tables; BENCHMARKS.md's serve section is written by hand
# from them.
#
# Knobs (environment): BENCH_SESSIONS (10), BENCH_STREAMS (50),
# BENCH_REQUESTS (100), BENCH_IDLE_SECONDS (60), BENCH_FLOODS (1; 0 skips
# them), BENCH_KEEP=1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/serve
BENCH_NAME=serve-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

command -v tmux >/dev/null 2>&1 || die "tmux is required (apt-get install tmux)"
command -v python3 >/dev/null 2>&1 || die "python3 is required"
need chromium chromium || die "chromium is required"
need chromedriver chromium-driver || die "chromedriver is required"
build_release --features fakes
[[ -x $FAKE ]] || die "no fake kiro-cli at $FAKE"

work_folder

mkdir -p "$WORK/home" "$WORK/run" "$WORK/bin" "$WORK/project/.oneworks"
chmod 700 "$WORK/run"
ENV=(env -i "HOME=$WORK/home" "PATH=$WORK/bin:/usr/bin:/bin" "LANG=C.UTF-8"
    "XDG_CONFIG_HOME=$WORK/home/.config" "XDG_DATA_HOME=$WORK/home/.local/share"
    "XDG_CACHE_HOME=$WORK/home/.cache" "XDG_RUNTIME_DIR=$WORK/run"
    "ONEWORKS_HOME=$WORK/ow" "ONEWORKS_CACHE_DIR=$WORK/ow-cache"
    "ONEWORKS_KIRO_MANIFEST_URL=http://127.0.0.1:9/unused.json")
printf 'adapters:\n  kiro:\n    cli:\n      source: system\n' >"$WORK/project/.oneworks/config.yaml"
# The fake kiro-cli: a TUI that shows nothing by itself; the driver writes
# the recorder lines.
printf '{"versionOutput":"kiro-cli 2.15.1","versionExit":0,"acpHelpOutput":"Usage: kiro-cli acp [OPTIONS]","acpHelpExit":0,"tui":{}}\n' >"$WORK/bin/kiro-cli.script.json"
printf '#!/bin/sh\nexec %q --fake-script %q "$@"\n' "$FAKE" "$WORK/bin/kiro-cli.script.json" >"$WORK/bin/kiro-cli"
chmod 755 "$WORK/bin/kiro-cli"
"${ENV[@]}" /usr/bin/env -0 >"$WORK/env0"

log "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git -C "$ROOT" rev-parse --short HEAD)"
python3 "$HERE/drive.py" --oneworks "$BIN" --env0 "$WORK/env0" --project "$WORK/project" \
    --sessions "${BENCH_SESSIONS:-10}" --streams "${BENCH_STREAMS:-50}" \
    --requests "${BENCH_REQUESTS:-100}" --idle-seconds "${BENCH_IDLE_SECONDS:-60}" \
    --floods "${BENCH_FLOODS:-1}" \
    --out "$WORK/results.json"
log "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
