#!/usr/bin/env bash
# What CI costs, and the least it could take on this machine: the committed
# tree cloned into an empty folder (a fresh clone's empty target/), then
# the three things `.ci/run` spends its time on, each under `perf stat`
# (task-clock of the command and every process it starts, daemons
# included, while they live):
#
#   (a) the lints + test build, the command `.ci/run` runs (clippy-driver as
#       the workspace's rustc wrapper, CARGO_INCREMENTAL=0), with
#       `--timings` for the crates that cost most;
#   (b) the README's test command, `cargo nextest run --features fakes`;
#   (c) the real agents alone (the real-agents test group's filter), the
#       part of (b) that no change of oneworks makes cheaper, run after
#       (b): the agents it prepared once are installed by then.
#
# The baseline each is read against is the machine itself: the floor is
# the CPU time divided by the cores (no schedule finishes sooner), and
# wall ÷ floor is how well CI packs its work. Both move with the host, not
# only with the tree: on 2026-12-07 the same suite took 291 s of CPU in
# one run and 391 s in another 20 minutes later, and `.ci/run` took
# 419-458 s on one tree. Compare two trees in runs back to back
# (BENCH_CI_COMMIT), never against a number from another hour. The
# fixtures are not fetched again when target/test-cache of this checkout
# has them (they are network waits beside the build in CI, not CPU).
# Writes the "CI cost" section of BENCHMARKS.md unless BENCH_NO_DOC or
# BENCH_CI_COMMIT is set.
#
#   bash benches/ci.sh
#   BENCH_CI_COMMIT=HEAD~3 BENCH_KEEP=1 bash benches/ci.sh
#
# Needs perf (Debian's linux-perf), cargo-nextest, clippy, Node and npm, and
# about 12 minutes on 2 cores.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_NAME=ci
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"
DOC=$ROOT/BENCHMARKS.md
REAL_AGENTS='test(/^(agents_real|tui_real|gemini::(real|measure))::/)'

need perf linux-perf || die "\`perf\` is needed (Debian: linux-perf)"
command -v cargo-nextest >/dev/null || die "cargo-nextest is needed"
CLIPPY_DRIVER=$(rustup which clippy-driver 2>/dev/null || command -v clippy-driver || true)
[[ -n $CLIPPY_DRIVER ]] || die "clippy-driver is needed (rustup component add clippy)"
for tool in node npm python3 git; do
    command -v "$tool" >/dev/null || die "\`$tool\` is needed"
done

START_LOAD=$(uptime)
COMMIT=$(cd "$ROOT" && git rev-parse --short "${BENCH_CI_COMMIT:-HEAD}") ||
    die "no commit ${BENCH_CI_COMMIT:-HEAD} in $ROOT"
work_folder
TREE=$WORK/tree
log "cloning $COMMIT into $TREE (the committed tree, an empty target/)"
git clone -q "$ROOT" "$TREE"
git -C "$TREE" checkout -q "$COMMIT"

# The fixtures, untimed: this checkout's when complete, else fetched. The
# tests' shared installs (test-cache/installs: the agents prepared once,
# Node's code cache) start empty, as on a fresh clone.
mkdir -p "$TREE/target/test-cache"
if compgen -G "$ROOT/target/test-cache/npm/*.complete" >/dev/null &&
    compgen -G "$ROOT/target/test-cache/node/dist/.complete-v*" >/dev/null &&
    [[ -d $ROOT/target/test-cache/verdaccio/node_modules ]]; then
    for fixture in npm node verdaccio; do
        ln -s "$ROOT/target/test-cache/$fixture" "$TREE/target/test-cache/$fixture"
    done
else
    log "fetching the fixtures (untimed)"
    (cd "$TREE" && bash tests/fixtures/fetch.sh >"$WORK/fetch.log" 2>&1) ||
        { tail -n 20 "$WORK/fetch.log" >&2; die "tests/fixtures/fetch.sh failed"; }
fi
(cd "$TREE/tests/conformance/acp-agent" &&
    npm ci --no-audit --no-fund --omit=peer >"$WORK/npm-ci.log" 2>&1) ||
    { tail -n 20 "$WORK/npm-ci.log" >&2; die "npm ci of the conformance agent failed"; }

# The environment of `.ci/run`'s build and test steps.
export CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0
export RUSTC_WORKSPACE_WRAPPER=$CLIPPY_DRIVER
export CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__

# measured NAME COMMAND…: runs COMMAND in the clone under perf stat; its
# wall seconds and CPU seconds go to $WORK/NAME.wall and $WORK/NAME.cpu.
measured() {
    local name=$1 started ended
    shift
    log "$name: $*"
    started=$(date +%s.%N)
    (cd "$TREE" && perf stat -x, -e task-clock -o "$WORK/$name.perf" -- "$@") \
        >"$WORK/$name.log" 2>&1 || { tail -n 30 "$WORK/$name.log" >&2; die "$name failed"; }
    ended=$(date +%s.%N)
    python3 -c 'import sys; print(f"{float(sys.argv[2]) - float(sys.argv[1]):.1f}")' \
        "$started" "$ended" >"$WORK/$name.wall"
    awk -F, '$3 == "task-clock" { printf "%.1f\n", $1 / 1000 }' "$WORK/$name.perf" >"$WORK/$name.cpu"
    log "$name: $(cat "$WORK/$name.wall") s wall, $(cat "$WORK/$name.cpu") s CPU"
}

measured build cargo test --features fakes --all-targets --no-run --timings
measured suite cargo nextest run --features fakes
measured agents cargo nextest run --features fakes -E "$REAL_AGENTS"

END_LOAD=$(uptime)
TIMINGS=$(ls -t "$TREE"/target/cargo-timings/cargo-timing-*.html 2>/dev/null | head -n1 || true)
SUMMARY=$(python3 - "$WORK" "$(nproc)" "$TIMINGS" "$COMMIT" "$START_LOAD" "$END_LOAD" <<'EOF'
import json, re, sys
work, cores, timings, commit, start_load, end_load = sys.argv[1:]
cores = int(cores)
read = lambda name, kind: float(open(f"{work}/{name}.{kind}").read())
build, suite, agents = ((read(n, "wall"), read(n, "cpu")) for n in ("build", "suite", "agents"))
tests = re.search(r"(\d+) tests run", open(f"{work}/suite.log").read())
floor = (build[1] + suite[1]) / cores
rest = (build[1] + suite[1] - agents[1]) / cores
rows = [
    "| step | wall | CPU | CPU ÷ cores (its floor) | wall ÷ floor |",
    "|---|---:|---:|---:|---:|",
]
for name, (wall, cpu) in (
    ("(a) lints + test build (empty target/)", build),
    (f"(b) the suite ({tests.group(1) if tests else '?'} tests)", suite),
    ("(c) the real agents alone, installs warm from (b)", agents),
):
    rows.append(f"| {name} | {wall:.0f} s | {cpu:.0f} s | {cpu / cores:.0f} s | {wall / (cpu / cores):.2f} |")
rows.append(
    f"| (a) + (b), what `.ci/run` waits for | {build[0] + suite[0]:.0f} s | {build[1] + suite[1]:.0f} s"
    f" | {floor:.0f} s | {(build[0] + suite[0]) / floor:.2f} |"
)
lines = rows + [
    "",
    f"- The least CI can take on {cores} cores, with perfect packing: **{floor:.0f} s**"
    f" (and `.ci/run` adds its installs and `cargo fmt`).",
    f"- The real agents are {100 * agents[1] / suite[1]:.0f} % of the suite's CPU; without"
    f" them the floor would be {rest:.0f} s.",
]
if timings:
    html = open(timings).read()
    found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
    if found:
        units = json.loads(found.group(1))
        total = sum(u["duration"] for u in units)
        ours = sum(u["duration"] for u in units if u["name"] == "oneworks")
        top = sorted((u for u in units if u["name"] != "oneworks"), key=lambda u: -u["duration"])[:8]
        lines.append(
            f"- Crate compiles (`--timings`): {total:.0f} s in {len(units)} units; this workspace's"
            f" own {ours:.0f} s; the costliest dependencies: "
            + ", ".join(f"{u['name']} {u['duration']:.0f} s" for u in top) + "."
        )
lines += [
    "",
    f"Commit {commit}; load before: `{start_load.strip()}`; after: `{end_load.strip()}`.",
]
print("\n".join(lines))
EOF
)
echo "$SUMMARY"

[[ -n ${BENCH_NO_DOC:-}${BENCH_CI_COMMIT:-} ]] && exit 0
BLOCK="<!-- ci-bench:start -->
Measured by \`bash benches/ci.sh\` on $(date -u +%Y-%m-%dT%H:%MZ): the committed tree in an empty folder; each step under \`perf stat\` (CPU = task-clock of the step and everything it starts). CPU time moves with the host and with contention, not only with the tree (the same suite read 291-392 s of CPU on 2026-12-07): compare trees only in runs back to back.

$SUMMARY
<!-- ci-bench:end -->"
python3 - "$DOC" "$BLOCK" <<EOF
import sys
sys.path.insert(0, "$ROOT/benches")
from bench_doc import write_section
write_section(sys.argv[1], "## CI cost", "<!-- ci-bench:start -->", "<!-- ci-bench:end -->", sys.argv[2])
EOF
log "wrote the CI cost section of $DOC"
