#!/usr/bin/env bash
# The npm managed source by hand: `oneworks adapter prepare` of a
# Gemini-sized npm package from a loopback registry, against the shell
# pipeline `curl | tee >(sha512sum) | tar xz` and `npm install -g` of the
# same version, in one run. Prints one line per measurement (median of
# BENCH_RUNS cold runs, default 5). No network: the registry is
# `python3 -m http.server` on 127.0.0.1 serving a generated package (a
# ~20 MB tarball of JavaScript-like text, like @google/gemini-cli 0.61.0's
# 20.7 MB). Needs: cargo, python3, curl, openssl, node and npm.
#
#   bash benches/npm-install.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${BENCH_RUNS:-5}
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY

# ONEWORKS_BIN=path measures a binary already built (no `cargo build`).
if [[ -z ${ONEWORKS_BIN:-} ]]; then
    (cd "$ROOT" && cargo build --release --quiet)
fi
ONEWORKS=${ONEWORKS_BIN:-$ROOT/target/release/oneworks}
WORK=$(mktemp -d /tmp/ow-npm-bench.XXXXXX)
SERVER_PID=
cleanup() {
    [[ -n $SERVER_PID ]] && kill "$SERVER_PID" 2>/dev/null || true
    [[ -n ${BENCH_KEEP:-} ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT

# --- the package -------------------------------------------------------------
PKG=$WORK/pkg/package
mkdir -p "$PKG/bundle" "$WORK/srv/tarballs"
cat >"$PKG/bundle/gemini.js" <<'EOF'
#!/usr/bin/env node
if (process.argv[2] === '--version') { console.log('1.0.0'); process.exit(0); }
EOF
echo '{"name":"fakegemini","version":"1.0.0","bin":{"gemini":"bundle/gemini.js"}}' >"$PKG/package.json"
python3 - "$PKG/bundle" <<'EOF'
import random, sys
random.seed(14)
words = [''.join(random.choice('abcdefghijklmnopqrstuvwxyz_$') for _ in range(random.randint(2, 12))) for _ in range(20000)]
for chunk in range(8):
    with open(f"{sys.argv[1]}/chunk-{chunk}.js", "w") as out:
        lines = []
        for _ in range(110000):
            lines.append("const %s = %s(%s, %d);" % (random.choice(words), random.choice(words), random.choice(words), random.randint(0, 99999)))
        out.write("\n".join(lines))
EOF
TARBALL=$WORK/srv/tarballs/fakegemini-1.0.0.tgz
tar -C "$WORK/pkg" -czf "$TARBALL" package
INTEGRITY="sha512-$(openssl dgst -sha512 -binary "$TARBALL" | base64 -w0)"
UNPACKED=$(du -sb "$WORK/pkg" | cut -f1)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
REGISTRY=http://127.0.0.1:$PORT/
cat >"$WORK/srv/fakegemini" <<EOF
{"name":"fakegemini","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"fakegemini","version":"1.0.0","bin":{"gemini":"bundle/gemini.js"},"engines":{"node":">=18"},"dist":{"tarball":"${REGISTRY}tarballs/fakegemini-1.0.0.tgz","integrity":"$INTEGRITY"}}}}
EOF
(cd "$WORK/srv" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER_PID=$!
for _ in $(seq 100); do curl -sf "${REGISTRY}fakegemini" >/dev/null && break; sleep 0.1; done

# The built-in Kiro data with its vendor manifest swapped for this package.
awk '
    /^[a-z]/ { skip = ($1 == "manifest:" || $1 == "platforms:" || $1 == "archive:" || $1 == "binary:" || $1 == "probes:") }
    !skip
' "$ROOT/manifests/kiro.yaml" >"$WORK/adapter.yaml"
cat >>"$WORK/adapter.yaml" <<'EOF'
npm: { package: fakegemini, binCommand: gemini }
binary: { name: gemini, aliases: [], identifies: '^\d', versionPattern: '(\d+\.\d+\.\d+)' }
probes: { version: ["--version"], timeoutSeconds: 30 }
EOF

# --- timing --------------------------------------------------------------------
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
seconds() {
    local start end
    start=$(date +%s.%N)
    if ! "$@" >/dev/null 2>"$WORK/last.err"; then
        echo "failed: $*" >&2
        cat "$WORK/last.err" >&2
        kill -TERM $$
    fi
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

pipeline() {
    local dir=$WORK/out-pipeline
    rm -rf "$dir" && mkdir -p "$dir" && sync
    seconds bash -c "curl -sf '${REGISTRY}tarballs/fakegemini-1.0.0.tgz' | tee >(sha512sum >/dev/null) | tar xzf - -C '$dir'"
}
oneworks() {
    rm -rf "$WORK/home" && mkdir -p "$WORK/home/project" && sync
    seconds env -i HOME="$WORK/home" PATH="$(dirname "$(command -v node)"):/usr/bin:/bin" \
        ONEWORKS_HOME="$WORK/home/ow" ONEWORKS_CACHE_DIR="$WORK/home/cache" \
        XDG_CONFIG_HOME="$WORK/home/config" XDG_RUNTIME_DIR="$WORK/home" \
        ONEWORKS_KIRO_ADAPTER_FILE="$WORK/adapter.yaml" ONEWORKS_NPM_REGISTRY="$REGISTRY" \
        "$ONEWORKS" adapter prepare kiro --json -q
}
npm_global() {
    rm -rf "$WORK/npm" && mkdir -p "$WORK/npm" && sync
    seconds npm install --global --prefix "$WORK/npm/prefix" --cache "$WORK/npm/cache" \
        --registry "$REGISTRY" --no-audit --no-fund --no-update-notifier fakegemini@1.0.0
}

echo "package: tarball $(stat -c %s "$TARBALL") bytes, unpacked $UNPACKED bytes; $RUNS cold runs each, median"
oneworks >/dev/null   # fail early, with the message, if the install does not work
for what in pipeline oneworks npm_global; do
    printf '%-10s %s s\n' "$what" "$(for _ in $(seq "$RUNS"); do $what; done | median)"
done
