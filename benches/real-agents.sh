#!/usr/bin/env bash
# The real Gemini CLI by hand: the latest `@google/gemini-cli`
# from the npm registry the user's npm is configured with, installed by
# `oneworks adapter prepare gemini` (a fresh ONEWORKS_HOME each run), then
# the offline turn of tests/it/gemini/real.rs (`run gemini --json`, Gemini's
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
# Then the agents whose packages have a tree (platform packages,
# dependencies), one row each: `adapter prepare` vs the same tarballs through
# `curl | tee >(sha512sum) | tar xz` (four at a time, as oneworks fetches
# them) vs `npm install -g` vs `npx -y PACKAGE@VERSION --version` (a fresh
# npm cache and prefix each round), BENCH_TREE_RUNS rounds (default 3),
# medians, peak RSS.
#
# Then oneworks' overhead: per agent, `oneworks run AGENT
# --prompt hi --json` from spawn to the first `agent_message_chunk` vs a
# minimal ACP client (benches/agents/first_message.py) driving the same
# agent program with the same argv, environment and profile world, against
# a loopback fake model API (benches/agents/fake_model.py);
# BENCH_OVERHEAD_RUNS rounds (default 5), alternated. Needs the Node fixture
# (`bash tests/fixtures/node/fetch.sh`): Qwen and Claude run on the managed
# Node it provides through a loopback ONEWORKS_NODE_MIRROR.
#
# Knobs: BENCH_PARTS ("gemini trees overhead", the default, or some of them),
# BENCH_TREE_RUNS, BENCH_TREE_AGENTS ("id:package:bin …"), BENCH_NODE_DIR (a
# folder whose `node` meets a package's engines.node, put first on PATH;
# default: the Node fixture, unpacked), BENCH_OVERHEAD_RUNS,
# BENCH_OVERHEAD_AGENTS ("qwen copilot opencode codex claude"),
# BENCH_RUNS, ONEWORKS_BIN (time a binary already built, no cargo),
# BENCH_GEMINI_VERSION (an exact version instead of `latest`), BENCH_NO_DOC,
# BENCH_KEEP (keep the work folder), BENCH_BREAKDOWN (cold prepares timed
# under strace to split the probe from the rest, default 3; 0 skips).
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

PARTS=${BENCH_PARTS:-gemini trees overhead}
if [[ $PARTS == *gemini* ]]; then
# --- what to install ---------------------------------------------------------
# The registry npm is configured with (npm_config_registry, .npmrc, default),
# handed to oneworks explicitly so the three contenders read the same one.
REGISTRY=$(npm config get registry)
[[ $REGISTRY = */ ]] || REGISTRY=$REGISTRY/
VERSION=${BENCH_GEMINI_VERSION:-$(npm view "$PACKAGE" version --registry "$REGISTRY")}
VERSION_HOW="the registry's \`latest\`"
[[ -z ${BENCH_GEMINI_VERSION:-} ]] || VERSION_HOW="BENCH_GEMINI_VERSION"
npm view "$PACKAGE@$VERSION" dist engines --json --registry "$REGISTRY" >"$WORK/dist.json"
read -r TARBALL_URL INTEGRITY ENGINES < <(python3 - "$WORK/dist.json" <<'EOF'
import json, sys
data = json.load(open(sys.argv[1]))
dist = data.get("dist", data)
print(dist["tarball"], dist["integrity"], (data.get("engines") or {}).get("node", "-").replace(" ", ""))
EOF
)
log "$PACKAGE@$VERSION from $REGISTRY ($TARBALL_URL)"

# Built-in adapter data with the replay arguments, exactly as tests/it/gemini/real.rs.
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
NPM_PACKAGES=$(npm ls --global --prefix "$WORK/npm/prefix" --all --parseable 2>/dev/null | grep -c /node_modules/ || true)
UNPACKED=$(du -sb "$WORK/pipeline-out" | cut -f1)
NPM_BYTES=$(du -sb "$WORK/npm/prefix" | cut -f1)
OW_BYTES=$(du -sb "$WORK/ow/oneworks-home" | cut -f1)

# --- breakdown: where oneworks' time goes --------------------------------------
# BENCH_BREAKDOWN more cold prepares (default 3, not in the medians above)
# under `strace --seccomp-bpf -f -e trace=execve,exit_group` (cheap: only
# those calls stop): start → the probe's execve of the package's bin →
# exit, and when the bin relaunches itself (a second `node` with
# `--max-old-space-size`). Then the probe alone on the installed bin,
# `node BIN --version`, without and with GEMINI_CLI_NO_RELAUNCH=true.
BREAKDOWN_RUNS=${BENCH_BREAKDOWN:-3}
: >"$WORK/breakdown.times"
: >"$WORK/probe_plain.times"
: >"$WORK/probe_norelaunch.times"
if [[ $BREAKDOWN_RUNS -gt 0 ]] && command -v strace >/dev/null &&
    strace --seccomp-bpf -f -e trace=execve -o /dev/null true 2>/dev/null; then
    log "breakdown: $BREAKDOWN_RUNS cold prepares under strace (execve, exit_group)"
    for _ in $(seq "$BREAKDOWN_RUNS"); do
        fresh_world "$WORK/ow" && ow_env "$WORK/ow"
        (cd "$WORK/ow/project" && "${ENV[@]}" strace --seccomp-bpf -f -ttt -e trace=execve,exit_group \
            -o "$WORK/timeline.txt" "$BIN" -q adapter prepare gemini) || die "prepare under strace failed"
        # total, before the probe, the probe, relaunch child start (after the probe's start; 0 when none)
        awk -v bin="/adapters/gemini/" '
            NR == 1 { start = $2 }
            /execve\(/ && index($0, bin) && !probe { probe = $2 }
            /execve\(/ && /--max-old-space-size/ && !relaunch { relaunch = $2 }
            { last = $2 }
            END {
                # No install-time probe (probes.atInstall: false): no split.
                if (!probe) { printf "%.3f -1 -1 0\n", last - start; exit }
                printf "%.3f %.3f %.3f %.3f\n", last - start, probe - start, last - probe, relaunch ? relaunch - probe : 0
            }
        ' "$WORK/timeline.txt" >>"$WORK/breakdown.times"
    done
    GEMINI_BIN=$(find "$WORK/ow/oneworks-home/adapters/gemini/versions/$VERSION" -path '*/bundle/gemini.js' | head -n1)
    if [[ -n $GEMINI_BIN ]]; then
        for _ in $(seq "$BREAKDOWN_RUNS"); do
            measure probe_plain env -i HOME="$WORK/ow/home" PATH="$(dirname "$(command -v node)"):/usr/bin:/bin" node "$GEMINI_BIN" --version
            measure probe_norelaunch env -i HOME="$WORK/ow/home" PATH="$(dirname "$(command -v node)"):/usr/bin:/bin" GEMINI_CLI_NO_RELAUNCH=true node "$GEMINI_BIN" --version
        done
    fi
else
    log "breakdown skipped (BENCH_BREAKDOWN=0, or no strace with --seccomp-bpf)"
fi

# --- report --------------------------------------------------------------------
export RUNS PACKAGE VERSION VERSION_HOW REGISTRY TARBALL_URL TARBALL_BYTES UNPACKED ENGINES COMMIT GNU_TIME \
    START_LOAD LOAD_BEFORE LOAD_AFTER NPM_PACKAGES NPM_BYTES OW_BYTES
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
                       rss=max(d[1] for d in data) / 1024)
base = stats["pipeline"]["median"]
ratio = stats["oneworks"]["median"] / base
met = ratio <= 1.3
mb = lambda n: f"{int(n) / 1e6:.1f} MB"
rss = lambda s: f"{s['rss']:.0f} MiB" if e.get("GNU_TIME") else "not measured (no GNU time)"
label = {
    "pipeline": "pipeline: `curl -s URL \\| tee >(sha512sum) \\| tar xz`",
    "oneworks": "`oneworks adapter prepare gemini` (document, node check, download + sha512 + extract, publish, pin; no install-time probe: `probes.atInstall: false`)",
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

breakdown = ""
parts = [tuple(float(x) for x in line.split()) for line in open(os.path.join(work, "breakdown.times")) if line.strip()]
if parts and any(p[1] < 0 for p in parts):
    totals = [p[0] for p in parts]
    breakdown = f"""### Where oneworks' time goes

{len(parts)} more cold prepares (not in the medians above) under `strace --seccomp-bpf -f -e trace=execve,exit_group`: {median(totals):.3f} s median ({min(totals):.3f}–{max(totals):.3f} s). No install-time probe ran (`probes.atInstall: false`), so there is nothing to split: the whole prepare is the package document, `node --version`, download + sha512 + extract, publish and pin.

"""
elif parts:
    col = lambda i: [p[i] for p in parts]
    cell = lambda i: f"{median(col(i)):.3f} s | {min(col(i)):.3f}–{max(col(i)):.3f} s"
    before, probe, total = median(col(1)), median(col(2)), median(col(0))
    relaunched = all(p[3] > 0 for p in parts)
    breakdown = f"""### Where oneworks' time goes

{len(parts)} more cold prepares (not in the medians above) under `strace --seccomp-bpf -f -e trace=execve,exit_group` (only those calls stop, so the overhead is small), split at the probe's `execve` of the package's bin:

| part of a cold `adapter prepare gemini` | median | range |
|---|---:|---:|
| before the probe: package document, `node --version`, download + sha512 + extract | {cell(1)} |
| the probe: `gemini --version` through node, to oneworks' exit (publish and pin are after it) | {cell(2)} |
| of which: until the bin relaunches itself in a second `node --max-old-space-size=…` | {cell(3) if relaunched else "no relaunch seen | —"} |
| total under strace | {cell(0)} |
"""
    plain, norelaunch = rows("probe_plain"), rows("probe_norelaunch")
    if plain and norelaunch:
        pm, nm = median([r[0] for r in plain]), median([r[0] for r in norelaunch])
        breakdown += f"""
The probe alone on the installed bin ({len(plain)} runs each): `node bundle/gemini.js --version` {pm:.3f} s median, peak RSS {max(r[1] for r in plain) / 1024:.0f} MiB; with `GEMINI_CLI_NO_RELAUNCH=true` (which the adapter data sets for `acp` and `tui`, not for `probes`) {nm:.3f} s, {max(r[1] for r in norelaunch) / 1024:.0f} MiB.
"""
    breakdown += f"""
Before the probe (under strace) oneworks' install takes {before:.3f} s, {before / base:.2f}× the pipeline's median; the probe is {probe / total * 100:.0f} % of a cold prepare. The peak RSS in the first table is the probe's `node`, not oneworks.

"""

load = lambda text: text.split("load average:")[-1].strip()
section = f"""Generated by `bash benches/real-agents.sh` on {__import__('datetime').datetime.utcnow().strftime('%Y-%m-%dT%H:%MZ')} (release build of commit `{e['COMMIT']}`); every number below comes from that one run. Uses the network: the registry npm is configured with (`{e['REGISTRY']}`).

`{e['PACKAGE']}@{e['VERSION']}` ({e['VERSION_HOW']}; tarball {mb(e['TARBALL_BYTES'] or 0)}, unpacked {mb(e['UNPACKED'] or 0)}, `engines.node` `{e['ENGINES']}`). Each round runs the three installs in turn, each cold (a fresh `ONEWORKS_HOME` and cache, extraction folder, or npm prefix and cache), then the offline turn in the world oneworks just prepared; {e['RUNS']} rounds, median, range, and peak RSS (GNU time `%M`: the largest single process, waited children included; max over the rounds).

| install | median | range | vs pipeline | peak RSS |
|---|---:|---:|---:|---:|
""" + "\n".join(lines) + f"""

Goal: oneworks within 1.3× of the pipeline — **{'met' if met else 'not met'}** ({ratio:.2f}×).

The offline turn (`oneworks run gemini --prompt … --json` with `-m gemini-2.5-flash --fake-responses-non-strict tests/fixtures/gemini-shell-turn.jsonl` added to the built-in `args` through `ONEWORKS_ADAPTERS_DIR`, `GEMINI_API_KEY` a fake value, the permission request answered `proceed_once` on stdin): passed in every round and in the check before them (exit 0, a real request for `touch probe-created.txt`, the file created, `turn_end` last); {t['median']:.3f} s median ({t['low']:.3f}–{t['high']:.3f} s), peak RSS {rss(t)} (the Node agent).

{breakdown}What the three do differs: npm also resolves and installs the package's optional dependencies (`npm ls --all` lists {e['NPM_PACKAGES']} packages under the prefix, {mb(e['NPM_BYTES'])} on disk against {mb(e['OW_BYTES'])} in oneworks' home), and writes its cache; the pipeline only downloads, hashes and unpacks, and runs nothing.

### Machine and load

- {e['CPU']}; node {e['NODE_VERSION']}, npm {e['NPM_VERSION']}.
- Load average at start {load(e['START_LOAD'])}, before timing {load(e['LOAD_BEFORE'])}, after {load(e['LOAD_AFTER'])}. Compilers and Node processes of other work on this machine, before: {e['BUSY_BEFORE'].rstrip(', ') or 'none'}; after: {e['BUSY_AFTER'].rstrip(', ') or 'none'}. This machine is shared with other builds, so the absolute numbers are noisy; the three contenders take turns in each round, so the ratios are the fairer reading. The tarball comes over the network each time (no cache), so the registry's and the network's speed are in every number.
- Reproduce: `bash benches/real-agents.sh` (knobs: `BENCH_RUNS`, `ONEWORKS_BIN`, `BENCH_GEMINI_VERSION`, `BENCH_BREAKDOWN`, `BENCH_NO_DOC=1`, `BENCH_KEEP=1`)."""
if e.get("BENCH_NO_DOC"):
    sys.exit(0)
from bench_doc import write_section
start, end = "<!-- real-agents:start -->", "<!-- real-agents:end -->"
write_section(doc, "## Real agents", start, end, f"{start}\n{section}\n{end}")
print(f"wrote the Real agents section of {doc}")
EOF
fi

# --- agents whose packages have a tree -----------------------------
if [[ $PARTS == *trees* ]]; then
TREE_RUNS=${BENCH_TREE_RUNS:-3}
TREE_AGENTS=${BENCH_TREE_AGENTS:-"opencode:opencode-ai:opencode copilot:@github/copilot:copilot claude:@agentclientprotocol/claude-agent-acp:claude-agent-acp codex:@agentclientprotocol/codex-acp:codex-acp qwen:@qwen-code/qwen-code:qwen"}
TREG=$(npm config get registry)
[[ $TREG = */ ]] || TREG=$TREG/
T=$WORK/trees
mkdir -p "$T/adapters"
# Node for `engines.node` (Qwen and Claude need >= 22; this machine's is
# older and nodejs.org is not used): BENCH_NODE_DIR, else the real Node of
# the cached fixture (tests/fixtures/node/fetch.sh), unpacked here. The
# three npm-side contenders run on it too (npm's own scripts, `npx`).
if [[ -z ${BENCH_NODE_DIR:-} ]]; then
    node_tarball=$(compgen -G "$ROOT/target/test-cache/node/dist/v*/node-v*-linux-x64.tar.xz" | head -n1 || true)
    if [[ -n $node_tarball ]]; then
        mkdir -p "$T/node" && tar -xJf "$node_tarball" -C "$T/node"
        BENCH_NODE_DIR=$(dirname "$(compgen -G "$T/node/node-v*/bin/node" | head -n1)")
        BENCH_NODE_NOTE="the real Node of the cached fixture (\`tests/fixtures/node/fetch.sh\`), unpacked for this run"
    else
        log "no Node fixture (bash tests/fixtures/node/fetch.sh): agents whose engines.node this node does not meet are skipped"
    fi
fi
NPM_PATH="$(dirname "$(command -v node)"):/usr/bin:/bin"
[[ -z ${BENCH_NODE_DIR:-} ]] || NPM_PATH="$BENCH_NODE_DIR:$NPM_PATH"
: >"$T/rows"
# tmeasure FILE COMMAND…: appends "seconds peak_kib" to FILE.times.
tmeasure() {
    local file=$1 start end rss=0
    shift
    sync
    start=$(date +%s.%N)
    if [[ -n $GNU_TIME ]]; then
        "$GNU_TIME" -f %M -o "$file.rss" "$@" </dev/null >"$file.out" 2>"$file.err" || { tail -n 20 "$file.err" >&2; return 1; }
        rss=$(tail -n1 "$file.rss")
    else
        "$@" </dev/null >"$file.out" 2>"$file.err" || { tail -n 20 "$file.err" >&2; return 1; }
    fi
    end=$(date +%s.%N)
    echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }') $rss" >>"$file.times"
}
tworld() { # tworld DIR: a cleared environment like the tests' (TENV)
    local dir=$1 keep=() name path
    rm -rf "$dir" && mkdir -p "$dir"/{home,project/.oneworks,cache}
    for name in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy SSL_CERT_FILE SSL_CERT_DIR; do
        [[ -n ${!name:-} ]] && keep+=("$name=${!name}")
    done
    path="$(dirname "$(command -v node)"):/usr/bin:/bin"
    [[ -z ${BENCH_NODE_DIR:-} ]] || path="$BENCH_NODE_DIR:$path"
    TENV=(env -i "${keep[@]}" HOME="$dir/home" LANG=C.UTF-8 PATH="$path"
        ONEWORKS_HOME="$dir/oneworks-home" ONEWORKS_CACHE_DIR="$dir/cache"
        ONEWORKS_ADAPTERS_DIR="$T/adapters" ONEWORKS_NPM_REGISTRY="$TREG")
}
TLOAD_BEFORE=$(uptime)
for agent in $TREE_AGENTS; do
    IFS=: read -r id package command <<<"$agent"
    name=bench-$id
    # The built-in adapter when this tree has one, else a data file made
    # from Gemini's with this package (and what its install script does).
    if [[ -f $ROOT/manifests/$id.yaml ]]; then
        name=$id
    else
        python3 - "$ROOT/manifests/gemini.yaml" "$T/adapters/$name.yaml" "$name" "$package" "$command" <<'EOF'
import re, sys
text, out, name, package, command = open(sys.argv[1]).read(), *sys.argv[2:]
extra = {
    # opencode-ai 1.18.33's postinstall.mjs links the platform package's bin/opencode.
    "opencode-ai": '  platformPackages: [opencode-ai]\n  platformPrefer: ["opencode-{os}-{cpu}-{libc}", "opencode-{os}-{cpu}"]\n  platformBin: bin/opencode\n',
    "@github/copilot": '  platformPackages: ["@github/copilot"]\n',
    "@agentclientprotocol/claude-agent-acp": '  platformPackages: ["@anthropic-ai/claude-agent-sdk"]\n',
    "@agentclientprotocol/codex-acp": '  platformPackages: ["@openai/codex"]\n',
}.get(package, "")
text = text.replace("id: gemini", f"id: {name}", 1)
text, n = re.subn(r'npm:\n  package: "@google/gemini-cli"\n(?:  #.*\n)*  binCommand: gemini\n',
                  f'npm:\n  package: "{package}"\n  binCommand: {command}\n{extra}', text)
assert n == 1, "the npm section moved in manifests/gemini.yaml"
text = text.replace("  name: gemini\n", f"  name: {command}\n", 1)
open(out, "w").write(text)
EOF
    fi
    version=$(npm view "$package" version --registry "$TREG")
    log "tree: $package@$version as adapter $name"
    rm -f "$T/$id".*.times
    tworld "$T/ow"
    if ! (cd "$T/ow/project" && "${TENV[@]}" "$BIN" adapter prepare "$name" --json >"$T/$id.check.out" 2>"$T/$id.check.err"); then
        reason=$(grep -m1 '^error' "$T/$id.check.err" | sed 's/|/\\|/g' || true)
        log "tree: $package skipped: $reason"
        echo "$id|$package@$version|skipped: ${reason:-prepare failed}" >>"$T/rows"
        continue
    fi
    # The tarballs oneworks installed (the main one and every package of
    # the tree), for the pipeline over the same bytes.
    vdir=$(find "$T/ow/oneworks-home/adapters/$name/versions" -mindepth 1 -maxdepth 1 -type d | head -n1)
    python3 - "$vdir" >"$T/$id.urls" <<'EOF'
import json, os, sys
vdir = sys.argv[1]
print(json.load(open(os.path.join(vdir, "install.json")))["url"])
tree = os.path.join(vdir, "npm-tree.json")
if os.path.exists(tree):
    for package in json.load(open(tree))["packages"]:
        print(package["tarball"])
EOF
    count=$(wc -l <"$T/$id.urls")
    bytes=0
    while read -r url; do
        bytes=$((bytes + $(curl -sSfI "$url" | awk 'tolower($1) == "content-length:" { print $2 + 0 }' | tail -n1)))
    done <"$T/$id.urls"
    for round in $(seq "$TREE_RUNS"); do
        rm -rf "$T/pipe" && mkdir -p "$T/pipe"
        nl -ba "$T/$id.urls" | awk -v d="$T/pipe" '{ print $2, d "/" $1 }' >"$T/$id.jobs"
        tmeasure "$T/$id.pipeline" bash -c "xargs -P 4 -n 2 bash -c 'set -o pipefail; mkdir -p \"\$1\"; curl -sSf \"\$0\" | tee >(sha512sum >\"\$1.sha512\") | tar xzf - -C \"\$1\"' <'$T/$id.jobs'"
        tworld "$T/ow"
        (cd "$T/ow/project" && tmeasure "$T/$id.oneworks" "${TENV[@]}" "$BIN" adapter prepare "$name" --json)
        rm -rf "$T/npm" && mkdir -p "$T/npm"
        tmeasure "$T/$id.npm" env PATH="$NPM_PATH" npm install --global --prefix "$T/npm/prefix" --cache "$T/npm/cache" \
            --userconfig "$T/npm/npmrc" --registry "$TREG" --no-audit --no-fund --no-update-notifier "$package@$version"
        # `npx -y PACKAGE@VERSION --version` cold: a fresh npm cache (where
        # npx installs) and prefix; install scripts run, as npx runs them.
        rm -rf "$T/npx" && mkdir -p "$T/npx"
        (cd "$T/npx" && tmeasure "$T/$id.npx" env PATH="$NPM_PATH" npm_config_cache="$T/npx/cache" npm_config_prefix="$T/npx/prefix" \
            npm_config_userconfig="$T/npx/npmrc" npm_config_registry="$TREG" npm_config_update_notifier=false \
            npm_config_audit=false npm_config_fund=false npx -y "$package@$version" --version) || :
        if [[ $round == 1 ]]; then
            if grep -qF "$version" "$T/$id.npx.out"; then : >"$T/$id.npx.ok"; else
                log "tree $id: \`npx -y $package@$version --version\` did not print the version: $(head -c 300 "$T/$id.npx.out" "$T/$id.npx.err" | tr '\n' ' ')"
                head -c 300 "$T/$id.npx.err" | tr '\n|' '  ' >"$T/$id.npx.bad"
            fi
        fi
        log "tree $id round $round/$TREE_RUNS: pipeline $(tail -n1 "$T/$id.pipeline.times" | cut -d' ' -f1) s, oneworks $(tail -n1 "$T/$id.oneworks.times" | cut -d' ' -f1) s, npm $(tail -n1 "$T/$id.npm.times" | cut -d' ' -f1) s, npx $(tail -n1 "$T/$id.npx.times" 2>/dev/null | cut -d' ' -f1) s"
    done
    npm_count=$(PATH="$NPM_PATH" npm ls --global --prefix "$T/npm/prefix" --all --parseable 2>/dev/null | grep -c /node_modules/ || true)
    echo "$id|$package@$version|ok|$count|$bytes|$npm_count" >>"$T/rows"
done
NODE_NOTE="the system's \`node\` ($(node --version))"
if [[ -n ${BENCH_NODE_DIR:-} ]]; then
    NODE_NOTE="\`$BENCH_NODE_DIR/node\` first on PATH (it says $("$BENCH_NODE_DIR/node" --version))${BENCH_NODE_NOTE:+: $BENCH_NODE_NOTE}"
fi
TLOAD_AFTER=$(uptime)
export TREE_RUNS TREG COMMIT NODE_NOTE TLOAD_BEFORE TLOAD_AFTER TCPU TNPM
TCPU="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r)"
TNPM="npm $(PATH="$NPM_PATH" npm --version) on node $(PATH="$NPM_PATH" node --version)"
python3 - "$T" "$DOC" "$ROOT/benches" <<'EOF'
import os, sys
sys.path.insert(0, sys.argv[3])
t, doc = sys.argv[1], sys.argv[2]
e = os.environ
def times(path):
    return [tuple(float(x) for x in line.split()) for line in open(path) if line.strip()]
def median(values):
    values = sorted(values); n = len(values)
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
lines = []
for row in open(os.path.join(t, "rows")):
    parts = row.rstrip("\n").split("|")
    agent, package, state = parts[0], parts[1], parts[2]
    if state != "ok":
        lines.append(f"| {agent} | `{package}` | {state} | | | | | | |")
        continue
    count, size, npm_count = int(parts[3]), int(parts[4]), parts[5]
    stat = {k: times(os.path.join(t, f"{agent}.{k}.times")) for k in ("pipeline", "oneworks", "npm")}
    npx_path = os.path.join(t, f"{agent}.npx.times")
    npx = times(npx_path) if os.path.exists(npx_path) else []
    med = {k: median([r[0] for r in v]) for k, v in stat.items()}
    rss = {k: max(r[1] for r in v) / 1024 for k, v in stat.items()}
    p, o, n = med["pipeline"], med["oneworks"], med["npm"]
    goal = "met" if o <= 1.3 * p and o <= 0.3 * n else ("≤1.3× met" if o <= 1.3 * p else "not met")
    bad = os.path.join(t, f"{agent}.npx.bad")
    if npx and not os.path.exists(bad):
        x = median([r[0] for r in npx])
        rss["npx"] = max(r[1] for r in npx) / 1024
        npx_cell = f"{x:.3f} s ({o / x:.2f}×)"
    else:
        rss["npx"] = None
        why = open(bad).read().strip() if os.path.exists(bad) else "failed"
        npx_cell = f"{'failed' if not npx else 'no version printed'}: {why[:160]}"
    mib = lambda v: "—" if v is None else f"{v:.0f}"
    lines.append(f"| {agent} | `{package}` | {count} tarballs, {size / 1e6:.1f} MB (npm: {npm_count} packages) | {p:.3f} s | {o:.3f} s ({o / p:.2f}×) | {n:.3f} s ({o / n:.2f}×) | {npx_cell} | {mib(rss['oneworks'])} / {mib(rss['npm'])} / {mib(rss['npx'])} MiB | {goal} |")
section = f"""Generated by the trees part of `bash benches/real-agents.sh` (`BENCH_PARTS=trees`) on {__import__('datetime').datetime.utcnow().strftime('%Y-%m-%dT%H:%MZ')}, release build of commit `{e['COMMIT']}`, registry `{e['TREG']}`; {e['TREE_RUNS']} rounds each, medians. Every install is cold (fresh `ONEWORKS_HOME`, npm prefix and cache, extraction folder) and comes over the network. The pipeline is `curl | tee >(sha512sum) | tar xz` over exactly the tarballs oneworks installed (the main package, the platform package, every dependency), four at a time as oneworks fetches them; oneworks' time also holds the package documents (one per package in the tree), `node --version`, publish and pin. `npx -y PACKAGE@VERSION --version` runs with a fresh npm cache (where npx installs) and prefix each round, so it resolves, downloads, extracts, runs the install scripts and then starts the agent once to print its version (checked in the first round); npm and npx run on the same Node. Node for `engines.node`: {e['NODE_NOTE']}. Peak RSS is GNU time's `%M` (the largest single process, waited children included), max over the rounds.

| agent | package | tree | pipeline | `oneworks adapter prepare` (× pipeline) | `npm install -g` (oneworks ×) | `npx -y … --version` cold (oneworks ×) | peak RSS oneworks / npm / npx | goal (≤ 1.3× pipeline, ≤ 0.3× npm) |
|---|---|---|---:|---:|---:|---:|---:|---|
""" + "\n".join(lines) + f"""

Machine: {e['TCPU']}; {e['TNPM']}. Load average before this part {e['TLOAD_BEFORE'].split('load average:')[-1].strip()}, after {e['TLOAD_AFTER'].split('load average:')[-1].strip()} (a machine shared with other builds; the contenders take turns in each round). Reproduce: `bash tests/fixtures/node/fetch.sh && BENCH_PARTS=trees bash benches/real-agents.sh` (knobs: `BENCH_TREE_RUNS`, `BENCH_TREE_AGENTS`, `BENCH_NODE_DIR`, `ONEWORKS_BIN`, `BENCH_NO_DOC=1`, `BENCH_KEEP=1`).
"""
print(section)
if e.get("BENCH_NO_DOC"):
    sys.exit(0)
from bench_doc import write_section
start, end = "<!-- real-agents-trees:start -->", "<!-- real-agents-trees:end -->"
write_section(doc, "### npm trees", start, end, f"{start}\n{section}{end}")
print(f"wrote the npm trees block of {doc}")
EOF
fi

# --- oneworks' overhead: `run` start → first agent message ---------
# Each agent installed once by `oneworks adapter prepare` from the registry
# (the version the real-agent tests pin, tests/fixtures/agents/<id>/
# package-lock.json; Qwen and Claude on the managed Node 24 that oneworks
# installs from the cached Node fixture served on loopback as
# ONEWORKS_NODE_MIRROR), talking to a loopback fake model API
# (benches/agents/fake_model.py: the three wire formats, streamed, text
# only). One `-vv` run (not timed) reads the agent child oneworks started
# (program, argv, environment, folder: /proc); then BENCH_OVERHEAD_RUNS
# rounds (default 5), the order rotated each round, of (a) `oneworks run
# AGENT --prompt hi --json`, spawn → first `agent_message_chunk` event, and
# the minimal ACP client (benches/agents/first_message.py direct) on the
# same program, argv, environment and world folder, spawn → first
# `agent_message_chunk` update: (b) right after `oneworks config render
# AGENT` (untimed: the world exactly as oneworks writes it before a run) and
# (c) on the world as the previous agent run left it. Overhead = (a) − (c),
# goal ≤ 50 ms; (a) − (b) is oneworks' own time, (b) − (c) what rewriting
# the world each run costs the agent. The part before the agent exists is
# read in each (a) after its first message: the creation time of the
# agent's temp HOME's owner marker.
if [[ $PARTS == *overhead* ]]; then
OVERHEAD_RUNS=${BENCH_OVERHEAD_RUNS:-5}
OVERHEAD_AGENTS=${BENCH_OVERHEAD_AGENTS:-"qwen copilot opencode codex claude"}
OREG=$(npm config get registry)
[[ $OREG = */ ]] || OREG=$OREG/
O=$WORK/overhead
AGENTS_DIR=$ROOT/benches/agents
NODE_DIST=$ROOT/target/test-cache/node/dist
compgen -G "$NODE_DIST/.complete-v*" >/dev/null ||
    die "no Node fixture in $NODE_DIST (Qwen and Claude need Node >= 22 and nodejs.org is not used): run \`bash tests/fixtures/node/fetch.sh\`"
mkdir -p "$O"/{home,xdg-config/oneworks,xdg-data,xdg-cache,project/.oneworks}
mkdir -m 700 "$O/runtime"
: >"$O/rows"
# Loopback servers: the fake model, and the Node mirror (the fixture folder).
: >"$O/model.log"
python3 "$AGENTS_DIR/fake_model.py" "$O/model.port" "$O/model.log" 2>"$O/model.err" &
MODEL_PID=$!
python3 -u -m http.server --bind 127.0.0.1 --directory "$NODE_DIST" 0 >"$O/mirror.out" 2>"$O/mirror.err" &
MIRROR_PID=$!
stop_servers() { kill "$MODEL_PID" "$MIRROR_PID" 2>/dev/null || true; }
# (`set -e` holds in the trap too: a failing `(exit N)` would end it early.)
trap 'status=$?; stop_servers; (exit "$status") && remove_work_folder || remove_work_folder' EXIT
for _ in $(seq 100); do
    [[ -s $O/model.port ]] && grep -q 'port [0-9]' "$O/mirror.out" && break
    sleep 0.1
done
[[ -s $O/model.port ]] || die "the fake model did not start: $(cat "$O/model.err")"
MIRROR_PORT=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$O/mirror.out" | head -n1)
[[ -n $MIRROR_PORT ]] || die "the Node mirror did not start: $(cat "$O/mirror.err")"
MODEL=http://127.0.0.1:$(cat "$O/model.port")
KEY=sk-oneworks-bench-4f1c9a7e2b6d8053
pinned() { # pinned ID: the version tests/fixtures/agents/ID/package-lock.json pins
    python3 - "$ROOT/tests/fixtures/agents/$1/package-lock.json" <<'EOF'
import json, sys
lock = json.load(open(sys.argv[1]))
name = next(iter(lock["packages"][""]["dependencies"]))
print(name, lock["packages"]["node_modules/" + name]["version"])
EOF
}
# The user's config: each agent pinned; opencode and Codex get their
# provider entry (the key by variable name only), as in tests/it/agents_real.
{
    echo "adapters:"
    for id in $OVERHEAD_AGENTS; do
        read -r _ version < <(pinned "$id")
        printf '  %s:\n    cli:\n      source: managed\n      version: "%s"\n' "$id" "$version"
        case $id in
        opencode) cat <<EOF
    configContent:
      model: local/fake-model
      small_model: local/fake-model
      provider:
        local:
          npm: "@ai-sdk/openai-compatible"
          name: Local
          options:
            baseURL: $MODEL/v1
            apiKey: "{env:OPENAI_API_KEY}"
          models:
            fake-model:
              name: Fake model
EOF
        ;;
        codex) cat <<EOF
    configContent:
      model: fake-model
      model_provider: local
      model_providers:
        local:
          name: Local
          base_url: $MODEL/v1
          env_key: OPENAI_API_KEY
          wire_api: responses
EOF
        ;;
        esac
    done
} >"$O/xdg-config/oneworks/config.yaml"
agent_env() { # agent_env ID: the model endpoint and key variables of agent ID
    case $1 in
    qwen) AGENT_ENV=(OPENAI_API_KEY="$KEY" OPENAI_BASE_URL="$MODEL/v1" OPENAI_MODEL=fake-model) ;;
    claude) AGENT_ENV=(ANTHROPIC_API_KEY="$KEY" ANTHROPIC_BASE_URL="$MODEL") ;;
    opencode | codex) AGENT_ENV=(OPENAI_API_KEY="$KEY") ;;
    copilot) AGENT_ENV=(COPILOT_PROVIDER_BASE_URL="$MODEL/v1" COPILOT_PROVIDER_TYPE=openai
        COPILOT_PROVIDER_API_KEY="$KEY" COPILOT_MODEL=fake-model COPILOT_OFFLINE=true) ;;
    *) die "no model settings for agent $1" ;;
    esac
}
oenv() { # oenv ID: OENV, a cleared environment like the tests' for agent ID
    local keep=() name
    for name in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy SSL_CERT_FILE SSL_CERT_DIR; do
        [[ -n ${!name:-} ]] && keep+=("$name=${!name}")
    done
    agent_env "$1"
    OENV=(env -i "${keep[@]}" HOME="$O/home" LANG=C.UTF-8 PATH="$(dirname "$(command -v node)"):/usr/bin:/bin"
        XDG_CONFIG_HOME="$O/xdg-config" XDG_DATA_HOME="$O/xdg-data" XDG_CACHE_HOME="$O/xdg-cache"
        XDG_RUNTIME_DIR="$O/runtime" ONEWORKS_HOME="$O/oneworks-home" ONEWORKS_CACHE_DIR="$O/cache"
        ONEWORKS_NPM_REGISTRY="$OREG" ONEWORKS_NODE_MIRROR="http://127.0.0.1:$MIRROR_PORT/"
        "${AGENT_ENV[@]}")
}
grace_ms() { # the adapter's acp.stopGraceMs
    awk '/^acp:/ { in_acp = 1; next } /^[^ #]/ { in_acp = 0 } in_acp && $1 == "stopGraceMs:" { print $2; exit }' "$ROOT/manifests/$1.yaml"
}
OLOAD_BEFORE=$(uptime)
# overhead_agent ID: prepare, capture, rounds; on a failure, says why in
# $O/ID.failed and returns 1 (the agent gets a "failed" row, the others run).
overhead_agent() {
    local id=$1 package version start prepared grace round turn who
    read -r package version < <(pinned "$id")
    skip() { echo "$*" >"$O/$id.failed"; log "overhead: $id: $*"; return 1; }
    oenv "$id"
    log "overhead: prepare $id ($package@$version from $OREG)"
    start=$(date +%s.%N)
    if ! (cd "$O/project" && "${OENV[@]}" "$BIN" adapter prepare "$id" --json >"$O/$id.prepare.out" 2>"$O/$id.prepare.err"); then
        tail -n 20 "$O/$id.prepare.err" >&2
        skip "adapter prepare failed: $(grep -m1 '^error' "$O/$id.prepare.err" || true)"; return 1
    fi
    prepared=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    grace=$(grace_ms "$id")
    [[ -n $grace ]] || { skip "no acp.stopGraceMs in manifests/$id.yaml"; return 1; }
    rm -f "$O/$id".*.jsonl
    # The capture run (not timed): what oneworks started, and a warm disk cache for both.
    (cd "$O/project" && python3 "$AGENTS_DIR/first_message.py" capture "$O/$id.capture.jsonl" "$O/$id.world.json" -- \
        "${OENV[@]}" "$BIN" -vv run "$id" --prompt hi --json) || { skip "the capture run failed"; return 1; }
    python3 - "$O/$id.world.json" "$ROOT/manifests/$id.yaml" "$KEY" <<'EOF' || { skip "the captured child is not the agent"; return 1; }
import json, re, sys
world, manifest, key = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), sys.argv[3]
block = manifest.split("\nacp:\n", 1)[1]
wanted = json.loads(re.search(r"^  command: (\[.*\])$", block, re.M).group(1))
assert world["args"] == wanted, (world["args"], wanted)
assert key in world["env"].values(), "the key did not reach the agent"
print(f"captured {world['program']} {' '.join(world['args'])} in {world['cwd']}, {len(world['env'])} variables, spawned {world['spawned_ms']} ms after `oneworks -vv run` started")
EOF
    # Three contenders, the order rotated each round: ow (oneworks run);
    # rendered (the direct client after `oneworks config render`, untimed,
    # so the agent starts from the world exactly as oneworks writes it before
    # each run); left (the direct client on the world as the previous agent
    # run left it: what running the agent without oneworks gets).
    local contenders=(ow rendered left)
    for round in $(seq "$OVERHEAD_RUNS"); do
        for turn in 0 1 2; do
            who=${contenders[$(( (turn + round - 1) % 3 ))]}
            case $who in
            ow)
                (cd "$O/project" && python3 "$AGENTS_DIR/first_message.py" run "$O/$id.ow.jsonl" -- \
                    "${OENV[@]}" "$BIN" run "$id" --prompt hi --json) || { skip "oneworks run failed (round $round)"; return 1; } ;;
            rendered)
                (cd "$O/project" && "${OENV[@]}" "$BIN" config render "$id" >"$O/$id.render.out" 2>&1) ||
                    { skip "config render failed (round $round): $(tail -n1 "$O/$id.render.out")"; return 1; }
                python3 "$AGENTS_DIR/first_message.py" direct "$O/$id.rendered.jsonl" "$O/$id.world.json" hi "$grace" ||
                    { skip "the direct ACP run failed (round $round)"; return 1; } ;;
            left)
                python3 "$AGENTS_DIR/first_message.py" direct "$O/$id.direct.jsonl" "$O/$id.world.json" hi "$grace" ||
                    { skip "the direct ACP run failed (round $round)"; return 1; } ;;
            esac
        done
        first() { tail -n1 "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["first_ms"])'; }
        log "overhead $id round $round/$OVERHEAD_RUNS, to the first message: oneworks $(first "$O/$id.ow.jsonl") ms, direct on the rendered world $(first "$O/$id.rendered.jsonl") ms, on the world as left $(first "$O/$id.direct.jsonl") ms"
    done
    echo "$id|$package@$version|$prepared|$grace" >>"$O/rows"
}
for id in $OVERHEAD_AGENTS; do
    overhead_agent "$id" || echo "$id|$(pinned "$id" | tr ' ' @)|failed|$(tr '|\n' '  ' <"$O/$id.failed")" >>"$O/rows"
done
OLOAD_AFTER=$(uptime)
model_requests=$(wc -l <"$O/model.log")
export OVERHEAD_RUNS OREG COMMIT OLOAD_BEFORE OLOAD_AFTER model_requests START_LOAD
export CPU NODE_VERSION
CPU="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r)"
NODE_VERSION=$(node --version)
python3 "$AGENTS_DIR/overhead_report.py" "$O" "$DOC" "$ROOT/benches"
if grep -q '^[^|]*|[^|]*|failed|' "$O/rows"; then die "overhead: not every agent was measured (the table says why)"; fi
fi
