#!/usr/bin/env bash
# The real Gemini CLI by hand (issue 14): the latest `@google/gemini-cli`
# from the npm registry the user's npm is configured with, installed by
# `oneworks adapter prepare gemini` (a fresh ONEWORKS_HOME each run), then
# the offline turn of tests/it/gemini_real.rs (`run gemini --json`, Gemini's
# own `--fake-responses-non-strict` replaying
# tests/fixtures/gemini-shell-turn.jsonl, the permission request answered
# `proceed_once`, a real `touch`). The install is timed in the same run
# against `npm install -g` of the same version (a temp prefix and cache) and
# against `curl | tee >(sha512sum) | tar xz` on the same tarball; the three
# take turns, BENCH_RUNS rounds (default 5), medians reported, with peak RSS
# (GNU time's %M: the largest single process, waited children included).
# Uses the network (the registry); writes the "Real agents" section of
# BENCHMARKS.md unless BENCH_NO_DOC is set.
#
#   bash benches/real-agents.sh
#   BENCH_RUNS=3 ONEWORKS_BIN=target/release/oneworks bash benches/real-agents.sh
#
# Knobs: BENCH_RUNS, ONEWORKS_BIN (time a binary already built, no cargo),
# BENCH_GEMINI_VERSION (an exact version instead of `latest`), BENCH_NO_DOC,
# BENCH_KEEP (keep the work folder), BENCH_PROFILE=1 (after the timing, one
# more cold prepare under `strace -f -c` and with `-v`, summarised).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_NAME=real-agents
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"
RUNS=${BENCH_RUNS:-5}
PACKAGE=@google/gemini-cli
DOC=$ROOT/BENCHMARKS.md

for tool in node npm curl python3 sha512sum tar; do
    command -v "$tool" >/dev/null || die "\`$tool\` is needed"
done
GNU_TIME=
if /usr/bin/time -f %M true >/dev/null 2>&1; then GNU_TIME=/usr/bin/time; fi

START_LOAD=$(uptime)
if [[ -n ${ONEWORKS_BIN:-} ]]; then
    BIN=$(cd "$(dirname "$ONEWORKS_BIN")" && pwd)/$(basename "$ONEWORKS_BIN")
    [[ -x $BIN ]] || die "ONEWORKS_BIN=$ONEWORKS_BIN is not an executable"
else
    build_release
fi
COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(cd "$ROOT" && git status --porcelain -- src Cargo.toml Cargo.lock manifests 2>/dev/null) ]]; then
    COMMIT="$COMMIT (+ uncommitted changes)"
fi
work_folder

# --- what to install ---------------------------------------------------------
# The registry npm is configured with (npm_config_registry, .npmrc, default),
# handed to oneworks explicitly so the three contenders read the same one.
REGISTRY=$(npm config get registry)
[[ $REGISTRY = */ ]] || REGISTRY=$REGISTRY/
VERSION=${BENCH_GEMINI_VERSION:-$(npm view "$PACKAGE" version --registry "$REGISTRY")}
npm view "$PACKAGE@$VERSION" dist engines --json --registry "$REGISTRY" >"$WORK/dist.json"
read -r TARBALL_URL INTEGRITY UNPACKED ENGINES < <(python3 - "$WORK/dist.json" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
dist = data.get("dist", data)
print(dist["tarball"], dist["integrity"], dist.get("unpackedSize", 0), (data.get("engines") or {}).get("node", "-").replace(" ", ""))
EOF
)
log "$PACKAGE@$VERSION from $REGISTRY ($TARBALL_URL)"

# Built-in adapter data with the replay arguments, exactly as tests/it/gemini_real.rs.
FIXTURE=$ROOT/tests/fixtures/gemini-shell-turn.jsonl
mkdir -p "$WORK/adapters"
python3 - "$ROOT/manifests/gemini.yaml" "$FIXTURE" "$WORK/adapters/gemini.yaml" <<'EOF'
import sys
builtin = open(sys.argv[1]).read()
replay = f'"-m", "gemini-2.5-flash", "--fake-responses-non-strict", "{sys.argv[2]}"'
data = builtin.replace('args: ["--acp"]', f'args: ["--acp", {replay}]', 1)
if data == builtin:
    sys.exit("the ACP argv moved in manifests/gemini.yaml")
open(sys.argv[3], "w").write(data)
EOF

# --- the contenders ----------------------------------------------------------
# measure NAME COMMAND…: runs COMMAND (output to $WORK/NAME.out/.err), appends
# "seconds peak_kib" to $WORK/NAME.times; a failure stops the benchmark.
measure() {
    local name=$1 start end rss=0
    shift
    sync
    start=$(date +%s.%N)
    if [[ -n $GNU_TIME ]]; then
        "$GNU_TIME" -f %M -o "$WORK/$name.rss" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || fail "$name" "$@"
    else
        "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || fail "$name" "$@"
    fi
    end=$(date +%s.%N)
    [[ -n $GNU_TIME ]] && rss=$(tail -n1 "$WORK/$name.rss")
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') $rss" >>"$WORK/$name.times"
}
fail() {
    local name=$1
    shift
    log "$name failed: $*"
    tail -n 30 "$WORK/$name.err" >&2
    exit 1
}

# A cleared environment like the tests', plus what reaching the registry
# needs (proxy and CA variables); a fresh HOME, ONEWORKS_HOME and cache.
ow_env() { # ow_env DIR
    local dir=$1 keep=() name
    for name in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy ALL_PROXY all_proxy \
        SSL_CERT_FILE SSL_CERT_DIR NODE_EXTRA_CA_CERTS; do
        [[ -n ${!name:-} ]] && keep+=("$name=${!name}")
    done
    ENV=(env -i "${keep[@]}" HOME="$dir/home" LANG=C.UTF-8
        PATH="$(dirname "$(command -v node)"):/usr/bin:/bin"
        XDG_CONFIG_HOME="$dir/xdg-config" XDG_DATA_HOME="$dir/xdg-data"
        XDG_CACHE_HOME="$dir/xdg-cache" XDG_RUNTIME_DIR="$dir/runtime"
        ONEWORKS_HOME="$dir/oneworks-home" ONEWORKS_CACHE_DIR="$dir/cache"
        ONEWORKS_ADAPTERS_DIR="$WORK/adapters" ONEWORKS_NPM_REGISTRY="$REGISTRY"
        GEMINI_API_KEY=offline-fake-key-0123456789)
}
fresh_world() { # fresh_world DIR
    rm -rf "$1"
    mkdir -p "$1"/{home,xdg-config,xdg-data,xdg-cache,project/.oneworks}
    mkdir -m 700 "$1/runtime"
}

pipeline() {
    local dir=$WORK/pipeline-out
    rm -rf "$dir" && mkdir -p "$dir"
    measure pipeline bash -c "set -o pipefail; curl -sSf '$TARBALL_URL' | tee >(sha512sum >'$WORK/pipeline.sha512') | tar xzf - -C '$dir'"
}
oneworks() {
    local dir=$WORK/ow
    fresh_world "$dir"
    ow_env "$dir"
    (cd "$dir/project" && measure oneworks "${ENV[@]}" "$BIN" adapter prepare gemini --json)
}
npm_global() {
    rm -rf "$WORK/npm" && mkdir -p "$WORK/npm"
    measure npm_global npm install --global --prefix "$WORK/npm/prefix" --cache "$WORK/npm/cache" \
        --userconfig "$WORK/npm/npmrc" --registry "$REGISTRY" \
        --no-audit --no-fund --no-update-notifier "$PACKAGE@$VERSION"
}
# The offline turn in the world `oneworks` just prepared: a Python driver
# answers the permission request and checks the turn (exit 0, the request,
# turn_end last, the touched file).
turn() {
    local dir=$WORK/ow
    ow_env "$dir"
    rm -f "$dir/project/probe-created.txt"
    (cd "$dir/project" && measure turn python3 "$WORK/driver.py" "$dir/project/probe-created.txt" "${ENV[@]}" "$BIN" \
        run gemini --prompt "create the probe file" --json)
}
cat >"$WORK/driver.py" <<'EOF'
import json, os, subprocess, sys
probe, command = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
types, asked = [], None
for line in child.stdout:
    event = json.loads(line)
    types.append(event.get("type"))
    if event.get("type") == "permission_request":
        asked = json.dumps(event)
        child.stdin.write(json.dumps({"id": event["id"], "reply": "proceed_once"}) + "\n")
        child.stdin.flush()
status = child.wait()
print(json.dumps({"status": status, "types": types}))
problems = []
if status != 0: problems.append(f"exit {status}")
if not asked or "touch probe-created.txt" not in asked: problems.append("no permission request for the touch")
if not types or types[-1] != "turn_end": problems.append("turn_end is not the last event")
if not os.path.isfile(probe): problems.append("the touch did not run")
if problems:
    sys.exit("turn: " + "; ".join(problems) + f" (events: {types})")
EOF

# --- one round first: fail early, with the message ---------------------------
log "check: one prepare and the offline turn"
oneworks
turn
python3 - "$WORK/oneworks.out" "$VERSION" <<'EOF' || die "prepare did not report the version asked for"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc.get("source") == "managed" and doc.get("version") == sys.argv[2], doc
EOF
pipeline
[[ "sha512-$(cut -d' ' -f1 "$WORK/pipeline.sha512" | python3 -c 'import base64, sys; print(base64.b64encode(bytes.fromhex(sys.stdin.read().strip())).decode())')" = "$INTEGRITY" ]] ||
    die "the pipeline's sha512 is not the registry's integrity"
TARBALL_BYTES=$(curl -sSfI "$TARBALL_URL" | awk 'tolower($1) == "content-length:" { print $2 + 0 }' | tail -n1)
rm -f "$WORK"/*.times

# --- timing: the contenders take turns ---------------------------------------
LOAD_BEFORE=$(uptime)
ps -eo comm= | sort | uniq -c | awk '$2 ~ /^(rustc|cargo|cc|ld|node|gemini)$/ { printf "%s %s, ", $1, $2 }' >"$WORK/busy.before"
log "timing: $RUNS rounds of pipeline, oneworks, npm install -g (load: ${LOAD_BEFORE##*load average: })"
for round in $(seq "$RUNS"); do
    pipeline
    oneworks
    turn
    npm_global
    log "round $round/$RUNS: pipeline $(tail -n1 "$WORK/pipeline.times" | cut -d' ' -f1) s, oneworks $(tail -n1 "$WORK/oneworks.times" | cut -d' ' -f1) s (turn $(tail -n1 "$WORK/turn.times" | cut -d' ' -f1) s), npm $(tail -n1 "$WORK/npm_global.times" | cut -d' ' -f1) s"
done
LOAD_AFTER=$(uptime)
ps -eo comm= | sort | uniq -c | awk '$2 ~ /^(rustc|cargo|cc|ld|node|gemini)$/ { printf "%s %s, ", $1, $2 }' >"$WORK/busy.after"
NPM_PACKAGES=$(find "$WORK/npm/prefix/lib/node_modules" -name package.json -path '*/node_modules/*/package.json' -not -path '*/node_modules/*/node_modules/*/*/package.json' 2>/dev/null | wc -l)
NPM_BYTES=$(du -sb "$WORK/npm/prefix" | cut -f1)
OW_BYTES=$(du -sb "$WORK/ow/oneworks-home" | cut -f1)

# --- profile (optional): where oneworks' time goes ---------------------------
PROFILE=
if [[ -n ${BENCH_PROFILE:-} ]]; then
    log "profile: one cold prepare under strace -f -c and one with -v"
    fresh_world "$WORK/ow" && ow_env "$WORK/ow"
    (cd "$WORK/ow/project" && "${ENV[@]}" strace -f -c -o "$WORK/strace.txt" "$BIN" adapter prepare gemini --json >/dev/null 2>&1) || true
    fresh_world "$WORK/ow" && ow_env "$WORK/ow"
    (cd "$WORK/ow/project" && "${ENV[@]}" "$BIN" -v adapter prepare gemini >/dev/null 2>"$WORK/verbose.txt") || true
    PROFILE=$WORK/profile.txt
    { echo "strace -f -c (top 8 by time):"; sed -n '1,10p' "$WORK/strace.txt"
      echo; echo "-v (timestamps as printed):"; tail -n 40 "$WORK/verbose.txt"; } >"$PROFILE"
    cat "$PROFILE" >&2
fi

# --- report --------------------------------------------------------------------
export RUNS PACKAGE VERSION REGISTRY TARBALL_URL TARBALL_BYTES UNPACKED ENGINES COMMIT GNU_TIME \
    START_LOAD LOAD_BEFORE LOAD_AFTER NPM_PACKAGES NPM_BYTES OW_BYTES PROFILE
export BUSY_BEFORE BUSY_AFTER
BUSY_BEFORE=$(cat "$WORK/busy.before") BUSY_AFTER=$(cat "$WORK/busy.after")
export NODE_VERSION NPM_VERSION CPU
NODE_VERSION=$(node --version) NPM_VERSION=$(npm --version)
CPU="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r)"
python3 - "$WORK" "$DOC" "$ROOT/benches" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[3])
work, doc = sys.argv[1], sys.argv[2]
e = os.environ

def rows(name):
    with open(os.path.join(work, name + ".times")) as handle:
        return [tuple(float(x) for x in line.split()) for line in handle if line.strip()]

def median(values):
    values = sorted(values)
    n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2

stats = {}
for name in ("pipeline", "oneworks", "npm_global", "turn"):
    data = rows(name)
    secs = [d[0] for d in data]
    stats[name] = dict(median=median(secs), low=min(secs), high=max(secs),
                       rss=max(d[1] for d in data) / 1024 if data else 0)
base = stats["pipeline"]["median"]
ratio = stats["oneworks"]["median"] / base
met = ratio <= 1.3
mb = lambda n: f"{int(n) / 1e6:.1f} MB"
rss = lambda s: f"{s['rss']:.0f} MiB" if e.get("GNU_TIME") else "not measured (no GNU time)"
label = {
    "pipeline": "pipeline: `curl -s URL \\| tee >(sha512sum) \\| tar xz`",
    "oneworks": "`oneworks adapter prepare gemini` (document, node check, download + sha512 + extract, probe `gemini --version` through node, publish, pin)",
    "npm_global": f"`npm install -g --prefix TMP` of the same version (npm {e['NPM_VERSION']}, node {e['NODE_VERSION']})",
}
lines = []
for name in ("pipeline", "oneworks", "npm_global"):
    s = stats[name]
    lines.append(f"| {label[name]} | {s['median']:.3f} s | {s['low']:.3f}–{s['high']:.3f} s | {s['median'] / base:.2f}× | {rss(s)} |")
t = stats["turn"]
summary = (
    f"{e['PACKAGE']}@{e['VERSION']}: pipeline {base:.3f} s, oneworks {stats['oneworks']['median']:.3f} s "
    f"({ratio:.2f}×, goal ≤ 1.3×: {'met' if met else 'NOT met'}), npm install -g {stats['npm_global']['median']:.3f} s "
    f"({stats['npm_global']['median'] / base:.2f}×); offline turn {t['median']:.3f} s"
)
print(summary)
for line in lines:
    print(line)

load = lambda text: text.split("load average:")[-1].strip()
section = f"""Generated by `bash benches/real-agents.sh` on {__import__('datetime').datetime.utcnow().strftime('%Y-%m-%dT%H:%MZ')} (release build of commit `{e['COMMIT']}`); every number below comes from that one run. Uses the network: the registry npm is configured with (`{e['REGISTRY']}`).

`{e['PACKAGE']}@{e['VERSION']}` (the registry's `latest`; tarball {mb(e['TARBALL_BYTES'] or 0)}, unpacked {mb(e['UNPACKED'] or 0)}, `engines.node` `{e['ENGINES']}`). Each round runs the three installs in turn, each cold (a fresh `ONEWORKS_HOME` and cache, extraction folder, or npm prefix and cache), then the offline turn in the world oneworks just prepared; {e['RUNS']} rounds, median, range, and peak RSS (GNU time `%M`: the largest single process, waited children included; max over the rounds).

| install | median | range | vs pipeline | peak RSS |
|---|---:|---:|---:|---:|
""" + "\n".join(lines) + f"""

Goal (issue 14): oneworks within 1.3× of the pipeline — **{'met' if met else 'not met'}** ({ratio:.2f}×).

The offline turn (`oneworks run gemini --prompt … --json` with `-m gemini-2.5-flash --fake-responses-non-strict tests/fixtures/gemini-shell-turn.jsonl` added to the built-in `args` through `ONEWORKS_ADAPTERS_DIR`, `GEMINI_API_KEY` a fake value, the permission request answered `proceed_once` on stdin): passed in every round (exit 0, a real request for `touch probe-created.txt`, the file created, `turn_end` last); {t['median']:.3f} s median ({t['low']:.3f}–{t['high']:.3f} s), peak RSS {rss(t)} (the Node agent).

What the three do differs: npm also installs the package's optional dependencies ({e['NPM_PACKAGES']} `package.json` files under the prefix, {mb(e['NPM_BYTES'])} on disk against {mb(e['OW_BYTES'])} in oneworks' home), which is part of why it is slower; the pipeline only downloads, hashes and unpacks.

### Machine and load

- {e['CPU']}; node {e['NODE_VERSION']}, npm {e['NPM_VERSION']}.
- Load average at start {load(e['START_LOAD'])}, before timing {load(e['LOAD_BEFORE'])}, after {load(e['LOAD_AFTER'])}. Compilers and Node processes of other work on this machine, before: {e['BUSY_BEFORE'].rstrip(', ') or 'none'}; after: {e['BUSY_AFTER'].rstrip(', ') or 'none'}. This machine is shared with other builds, so the absolute numbers are noisy; the three contenders take turns in each round, so the ratios are the fairer reading. The tarball comes over the network each time (no cache), so the registry's and the network's speed are in every number.
- Reproduce: `bash benches/real-agents.sh` (knobs: `BENCH_RUNS`, `ONEWORKS_BIN`, `BENCH_GEMINI_VERSION`, `BENCH_PROFILE=1`, `BENCH_NO_DOC=1`, `BENCH_KEEP=1`)."""
if e.get("BENCH_NO_DOC"):
    sys.exit(0)
from bench_doc import write_section
start, end = "<!-- real-agents:start -->", "<!-- real-agents:end -->"
write_section(doc, "## Real agents (issue 14)", start, end, f"{start}\n{section}\n{end}")
print(f"wrote the Real agents section of {doc}")
EOF
