#!/usr/bin/env bash
# Kept sessions, measured on the real Qwen Code (the
# version the real-agent tests pin, tests/fixtures/agents/qwen/
# package-lock.json) through a loopback fake model API
# (benches/agents/fake_model.py: OpenAI chat completions, plain text), side
# by side in one run, BENCH_KEPT_RUNS rounds (default 7), the order rotated
# each round, the warm agents let settle before each turn (untimed)
# (benches/agents/kept_turns.py):
#
#   (a) a follow-up turn of a kept session: `oneworks run qwen --session S
#       --prompt hi --json`, spawn → first `agent_message_chunk` event and
#       spawn → exit; S was kept warm by an earlier `--keep` run (untimed);
#   (b) the same turn sent by a minimal ACP client that holds the agent's
#       stdio: the same program, argv, environment and world oneworks uses
#       (read from /proc of a kept owner's agent), started, initialized and
#       its session opened before timing; `session/prompt` written → first
#       `agent_message_chunk` update and → the prompt's answer;
#   (b2) the same client holding a second agent started the same way (in
#       session bench-control's world, rendered alike): an A/A control,
#       what two identical agents differ by, against which (a) − (b) is
#       read;
#   (c) acpx (BENCH_ACPX_VERSION, default 0.19.1, from the npm registry,
#       installed once into target/kept-bench/acpx) with its warm queue
#       owner on the same agent command, environment and world (`--agent`,
#       a named session, `prompt -s S hi --format json`), spawn → first
#       chunk and spawn → exit;
#   and the first turn's cost: `run qwen --session F --keep 10m --prompt hi
#   --json` (then `session stop F`, untimed) vs today's one-shot `run qwen
#   --prompt hi --json`, both spawn → first chunk and spawn → exit.
#
# After the rounds: VmRSS/VmHWM of the owner (`oneworks session keep`, its
# pid from `session list --json`), of acpx's queue owner, and of each
# agent's process tree. Goals, judged on the per-round
# differences' median: (a) − (b) ≤ +50 ms, (a) ≤ 0.3 × (c), the owner's RSS
# ≤ 16 MiB, a `--keep` first turn no slower than a one-shot.
# Writes the "Kept sessions" section of BENCHMARKS.md unless
# BENCH_NO_DOC is set.
#
#   bash tests/fixtures/node/fetch.sh && bash benches/kept.sh
#   BENCH_KEPT_RUNS=3 ONEWORKS_BIN=target/release/oneworks BENCH_NO_DOC=1 bash benches/kept.sh
#
# Needs the Node fixture (Qwen and acpx need Node >= 22: the managed Node 24
# that oneworks installs from it, served on loopback as
# ONEWORKS_NODE_MIRROR) and the npm registry (Qwen's and acpx's packages).
# Knobs: BENCH_KEPT_RUNS, ONEWORKS_BIN (a binary already built, no cargo),
# BENCH_ACPX_VERSION, BENCH_KEPT_LOAD (wait, up to BENCH_KEPT_LOAD_WAIT
# seconds, default 900, until the 1-minute load average is below it before
# timing), BENCH_NO_DOC, BENCH_KEEP (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_NAME=kept
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"
RUNS=${BENCH_KEPT_RUNS:-7}
ACPX_VERSION=${BENCH_ACPX_VERSION:-0.19.1}
DOC=$ROOT/BENCHMARKS.md
AGENTS_DIR=$ROOT/benches/agents
NODE_DIST=$ROOT/target/test-cache/node/dist

for tool in node npm python3; do
    command -v "$tool" >/dev/null || die "\`$tool\` is needed"
done
compgen -G "$NODE_DIST/.complete-v*" >/dev/null ||
    die "no Node fixture in $NODE_DIST (Qwen needs Node >= 22 and nodejs.org is not used): run \`bash tests/fixtures/node/fetch.sh\`"

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
K=$WORK
mkdir -p "$K"/{home,xdg-config/oneworks,xdg-data,xdg-cache,project/.oneworks,turns}
mkdir -m 700 "$K/runtime"

# --- loopback servers: the fake model, and the Node mirror --------------------
: >"$K/model.log"
python3 "$AGENTS_DIR/fake_model.py" "$K/model.port" "$K/model.log" 2>"$K/model.err" &
MODEL_PID=$!
python3 -u -m http.server --bind 127.0.0.1 --directory "$NODE_DIST" 0 >"$K/mirror.out" 2>"$K/mirror.err" &
MIRROR_PID=$!
for _ in $(seq 100); do
    [[ -s $K/model.port ]] && grep -q 'port [0-9]' "$K/mirror.out" && break
    sleep 0.1
done
[[ -s $K/model.port ]] || die "the fake model did not start: $(cat "$K/model.err")"
MIRROR_PORT=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$K/mirror.out" | head -n1)
[[ -n $MIRROR_PORT ]] || die "the Node mirror did not start: $(cat "$K/mirror.err")"
MODEL=http://127.0.0.1:$(cat "$K/model.port")
KEY=sk-oneworks-bench-4f1c9a7e2b6d8053
REG=$(npm config get registry)
[[ $REG = */ ]] || REG=$REG/
read -r PACKAGE VERSION < <(python3 - "$ROOT/tests/fixtures/agents/qwen/package-lock.json" <<'EOF'
import json, sys
lock = json.load(open(sys.argv[1]))
name = next(iter(lock["packages"][""]["dependencies"]))
print(name, lock["packages"]["node_modules/" + name]["version"])
EOF
)
printf 'adapters:\n  qwen:\n    cli:\n      source: managed\n      version: "%s"\n' "$VERSION" \
    >"$K/xdg-config/oneworks/config.yaml"

# A cleared environment like the tests', with Qwen's model settings.
keep_vars=()
for name in HTTPS_PROXY https_proxy HTTP_PROXY http_proxy NO_PROXY no_proxy SSL_CERT_FILE SSL_CERT_DIR; do
    [[ -n ${!name:-} ]] && keep_vars+=("$name=${!name}")
done
OENV=(env -i "${keep_vars[@]}" HOME="$K/home" LANG=C.UTF-8 PATH="$(dirname "$(command -v node)"):/usr/bin:/bin"
    XDG_CONFIG_HOME="$K/xdg-config" XDG_DATA_HOME="$K/xdg-data" XDG_CACHE_HOME="$K/xdg-cache"
    XDG_RUNTIME_DIR="$K/runtime" ONEWORKS_HOME="$K/oneworks-home" ONEWORKS_CACHE_DIR="$K/cache"
    ONEWORKS_NPM_REGISTRY="$REG" ONEWORKS_NODE_MIRROR="http://127.0.0.1:$MIRROR_PORT/"
    OPENAI_API_KEY="$KEY" OPENAI_BASE_URL="$MODEL/v1" OPENAI_MODEL=fake-model)
ow() { (cd "$K/project" && "${OENV[@]}" "$BIN" "$@"); }

# Whatever happens: the kept sessions stopped, the servers ended, then the
# work folder (kept_turns.py ends acpx's queue owner and the held agent).
KEPT_NAMES="bench bench-first bench-direct bench-control bench-acpx"
cleanup() {
    local status=$?
    for name in $KEPT_NAMES; do ow -q session stop "$name" >/dev/null 2>&1 || true; done
    kill "$MODEL_PID" "$MIRROR_PID" 2>/dev/null || true
    (exit "$status") && remove_work_folder || remove_work_folder
}
trap cleanup EXIT

# --- the agent, and acpx --------------------------------------------------------
log "prepare qwen ($PACKAGE@$VERSION from $REG, Node from the fixture)"
ow adapter prepare qwen --json >"$K/prepare.out" 2>"$K/prepare.err" ||
    { tail -n 20 "$K/prepare.err" >&2; die "adapter prepare qwen failed"; }
ACPX_DIR=$ROOT/target/kept-bench/acpx
ACPX_JS=$ACPX_DIR/node_modules/acpx/dist/cli.js
if [[ $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"])' \
    "$ACPX_DIR/node_modules/acpx/package.json" 2>/dev/null) != "$ACPX_VERSION" ]]; then
    log "npm install acpx@$ACPX_VERSION into $ACPX_DIR"
    rm -rf "$ACPX_DIR" && mkdir -p "$ACPX_DIR"
    echo '{"private": true}' >"$ACPX_DIR/package.json"
    (cd "$ACPX_DIR" && npm install --no-audit --no-fund --no-update-notifier --registry "$REG" \
        "acpx@$ACPX_VERSION" >"$K/acpx-install.log" 2>&1) ||
        { tail -n 20 "$K/acpx-install.log" >&2; die "npm install acpx@$ACPX_VERSION failed"; }
fi
[[ -f $ACPX_JS ]] || die "no $ACPX_JS after npm install"

# --- kept sessions, untimed: S for (a); one each whose agent's world (b) and
# (c) use; one first turn of each kind so their worlds exist ---------------------
agent_pid() { # agent_pid NAME: the kept agent's pid, from `session list --json`
    ow session list --json | python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin) if r.get("name") == sys.argv[1] and r.get("kind") == "kept"]
print(rows[0]["agentPid"] if rows and rows[0].get("agentPid") else "")' "$1"
}
for name in bench bench-direct bench-control bench-acpx bench-first; do
    log "kept session $name: its --keep turn (untimed)"
    ow run qwen --session "$name" --keep 30m --prompt hi --json >"$K/$name.keep.out" 2>"$K/$name.keep.err" ||
        { tail -n 20 "$K/$name.keep.err" >&2; die "run qwen --session $name --keep failed"; }
done
for name in bench bench-direct bench-control bench-acpx; do
    pid=$(agent_pid "$name")
    [[ -n $pid ]] || die "session list shows no agent for kept session $name"
    python3 "$AGENTS_DIR/kept_turns.py" world "$pid" "$K/$name.world.json"
done
for name in bench-direct bench-control bench-acpx bench-first; do ow -q session stop "$name" >/dev/null; done
ow run qwen --prompt hi --json >"$K/oneshot.out" 2>"$K/oneshot.err" ||
    { tail -n 20 "$K/oneshot.err" >&2; die "run qwen --prompt hi failed"; }
python3 - "$K" "$ROOT/manifests/qwen.yaml" "$KEY" <<'EOF' || die "the captured children are not the agent"
import json, re, sys
folder, manifest, key = sys.argv[1], open(sys.argv[2]).read(), sys.argv[3]
block = manifest.split("\nacp:\n", 1)[1]
wanted = json.loads(re.search(r"^  command: (\[.*\])$", block, re.M).group(1))
worlds = {name: json.load(open(f"{folder}/{name}.world.json")) for name in ("bench", "bench-direct", "bench-control", "bench-acpx")}
for name, world in worlds.items():
    assert world["args"] == wanted, (name, world["args"], wanted)
    assert key in world["env"].values(), f"the key did not reach {name}'s agent"
    assert sorted(world["env"]) == sorted(worlds["bench"]["env"]), (name, sorted(world["env"]))
    assert world["cwd"] == worlds["bench"]["cwd"], (name, world["cwd"])
w = worlds["bench"]
print(f"captured {w['program']} {' '.join(w['args'])} in {w['cwd']}, {len(w['env'])} variables")
EOF
# acpx runs on the managed Node the agent runs on (acpx needs Node >= 22.13).
AGENT_NODE=$(python3 -c '
import json, os, sys
world = json.load(open(sys.argv[1]))
for folder in world["env"].get("PATH", "").split(":"):
    if os.access(os.path.join(folder, "node"), os.X_OK):
        print(os.path.join(folder, "node")); break' "$K/bench.world.json")
[[ -n $AGENT_NODE ]] || die "no node on the agent's PATH"
GRACE=$(awk '/^acp:/ { in_acp = 1; next } /^[^ #]/ { in_acp = 0 } in_acp && $1 == "stopGraceMs:" { print $2; exit }' "$ROOT/manifests/qwen.yaml")
python3 - "$K/plan.json" "$BIN" "$K" "$RUNS" "$GRACE" "$AGENT_NODE" "$ACPX_JS" "${OENV[@]:2}" <<'EOF'
import json, sys
out, bin_, work, runs, grace, node, acpx, *env = sys.argv[1:]
json.dump(dict(bin=bin_, work=work, project=f"{work}/project", env=dict(pair.split("=", 1) for pair in env),
               adapter="qwen", prompt="hi", session="bench", first_session="bench-first", runs=int(runs),
               grace_ms=int(grace), direct_world=f"{work}/bench-direct.world.json",
               control_world=f"{work}/bench-control.world.json",
               acpx_world=f"{work}/bench-acpx.world.json", acpx=[node, acpx]), open(out, "w"), indent=1)
EOF

# --- timing ------------------------------------------------------------------------
WAITED=0
if [[ -n ${BENCH_KEPT_LOAD:-} ]]; then
    until awk -v max="$BENCH_KEPT_LOAD" '{ exit !($1 < max) }' /proc/loadavg || ((WAITED >= ${BENCH_KEPT_LOAD_WAIT:-900})); do
        ((WAITED % 60 == 0)) && log "waiting for a 1-minute load below $BENCH_KEPT_LOAD ($(cut -d' ' -f1-3 /proc/loadavg))"
        sleep 10
        WAITED=$((WAITED + 10))
    done
fi
LOAD_BEFORE=$(uptime)
busy() { ps -eo comm= | sort | uniq -c | awk '$2 ~ /^(rustc|cargo|cc|ld|node|cargo-nextest)$/ { printf "%s %s, ", $1, $2 }'; }
BUSY_BEFORE=$(busy)
log "timing: $RUNS rounds of follow-up, direct, A/A control, acpx, --keep first turn, one-shot (load: ${LOAD_BEFORE##*load average: })"
python3 "$AGENTS_DIR/kept_turns.py" rounds "$K/plan.json" "$K/turns" || die "the rounds failed"
LOAD_AFTER=$(uptime)
BUSY_AFTER=$(busy)
MODEL_REQUESTS=$(wc -l <"$K/model.log")

export RUNS COMMIT START_LOAD LOAD_BEFORE LOAD_AFTER BUSY_BEFORE BUSY_AFTER MODEL_REQUESTS REG PACKAGE VERSION
export ACPX_VERSION GRACE CPU NODE_VERSION AGENT_NODE_VERSION WAITED
CPU="$(nproc) CPUs, $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo), $(uname -r), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
NODE_VERSION=$(node --version)
AGENT_NODE_VERSION=$("$AGENT_NODE" --version)
python3 "$AGENTS_DIR/kept_report.py" "$K" "$DOC" "$ROOT/benches"
