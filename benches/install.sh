#!/usr/bin/env bash
# Managed-install benchmarks (`oneworks adapter prepare kiro`).
#
#   bash benches/install.sh
#
# Builds the release binary, generates (once, cached under
# target/bench-artifacts/) a ~200 MB Kiro-shaped artifact in all four archive
# formats, serves it from nginx on 127.0.0.1, and measures side by side in
# this one run: the shell pipeline baseline and its floors, cold managed
# installs per format and with the default preference, peak RSS, warm
# `prepare --offline`, and 8 concurrent cold prepares. Prints a markdown
# table and rewrites the generated part of BENCHMARKS.md (between the
# `install-bench` markers) — only from a committed tree: with uncommitted
# changes to src/, Cargo.*, manifests/ or benches/ it prints the table and
# leaves BENCHMARKS.md alone.
#
# Knobs (environment): BENCH_RUNS (default 7), BENCH_WARMUP (1),
# BENCH_RSS_RUNS (3), BENCH_NO_DOC=1 (do not touch BENCHMARKS.md),
# BENCH_PROFILE=0 (skip the `perf record` of one cold tar.gz prepare and its
# breakdown by component), BENCH_KEEP=1 (keep the work folder).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HERE=$ROOT/benches/install
VERSION=2.15.1
RUNS=${BENCH_RUNS:-7}
WARMUP=${BENCH_WARMUP:-1}
RSS_RUNS=${BENCH_RSS_RUNS:-3}
# Compression levels of the generated artifacts (part of the cache key).
GZIP_LEVEL=6 ZSTD_LEVEL=12 XZ_LEVEL=2 ZIP_LEVEL=6

# Loopback traffic must not go through a proxy (curl and reqwest both honour these).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy no_proxy NO_PROXY

BENCH_NAME=install-bench
# shellcheck source=benches/common.sh
source "$ROOT/benches/common.sh"

SECONDS=0
START_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)

# --- tools -------------------------------------------------------------------
need curl curl || die "curl is required"
need hyperfine hyperfine || die "hyperfine is required (apt-get install hyperfine or cargo install hyperfine)"
need zstd zstd || die "zstd is required"
need xz xz-utils || die "xz is required"
need zip zip || die "zip is required"
need python3 python3 || die "python3 is required"
[[ -x /usr/bin/time ]] || need /usr/bin/time time || die "/usr/bin/time (package time) is required"
need pigz pigz || true   # faster artifact generation only
need openssl openssl || true   # SHA-NI hash floor only
SERVER=nginx
if ! PATH=$PATH:/usr/sbin need nginx nginx-light && ! PATH=$PATH:/usr/sbin need nginx nginx; then
    SERVER=python
    log "nginx unavailable: falling back to python3 -m http.server (slower server; baselines and prepares share it)"
fi
NGINX=$(PATH=$PATH:/usr/sbin command -v nginx || true)

# --- build -------------------------------------------------------------------
build_release

# --- artifacts (cached) ------------------------------------------------------
ARCH=$(uname -m)
KEY=$( { cat "$HERE/make_artifacts.py"; echo "$VERSION $ARCH $GZIP_LEVEL $ZSTD_LEVEL $XZ_LEVEL $ZIP_LEVEL v1"; } | sha256sum | cut -c1-16)
ART_ROOT=$TARGET_DIR/bench-artifacts
ART=$ART_ROOT/$KEY
WWW=$ART/www
DL=$WWW/stable/$VERSION
STEM=kirocli-$ARCH-linux
if [[ ! -f $ART/.complete ]]; then
    log "generating artifacts into $ART (first run only; ~2 min)"
    rm -rf "$ART_ROOT"
    mkdir -p "$ART/tree" "$DL" "$WWW/stable/latest" "$WWW/reference"
    python3 "$HERE/make_artifacts.py" "$ART/tree" "$VERSION"
    tar -C "$ART/tree" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@1700000000 \
        --format=gnu -cf "$WWW/reference/$STEM.tar" kirocli
    if command -v pigz >/dev/null; then
        pigz -"$GZIP_LEVEL" -n -c "$WWW/reference/$STEM.tar" >"$DL/$STEM.tar.gz"
    else
        gzip -"$GZIP_LEVEL" -n -c "$WWW/reference/$STEM.tar" >"$DL/$STEM.tar.gz"
    fi
    zstd -q -T0 -"$ZSTD_LEVEL" -c "$WWW/reference/$STEM.tar" >"$DL/$STEM.tar.zst"
    xz -T0 -"$XZ_LEVEL" -c "$WWW/reference/$STEM.tar" >"$DL/$STEM.tar.xz"
    (cd "$ART/tree" && zip -q -r -X -"$ZIP_LEVEL" "$DL/$STEM.zip" kirocli)
    rm -rf "$ART/tree"
    python3 - "$WWW" "$VERSION" "$ARCH" "$STEM" <<'PY'
import hashlib, json, os, sys
www, version, arch, stem = sys.argv[1:]
packages = []
for file_type, ext in (("tarGz", "tar.gz"), ("tarXz", "tar.xz"), ("tarZst", "tar.zst"), ("zip", "zip")):
    path = os.path.join(www, "stable", version, f"{stem}.{ext}")
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    for libc in ("gnu", "musl"):
        flavour = "" if libc == "gnu" else "-musl"
        packages.append({
            "kind": "deb", "targetTriple": f"{arch}-unknown-linux-{libc}", "os": "linux",
            "fileType": file_type, "architecture": arch, "variant": "headless",
            # gnu and musl entries point at the same bytes: the benchmark host
            # may be either.
            "download": f"{version}/{stem}.{ext}",
            "sha256": digest.hexdigest(), "size": os.path.getsize(path), "channel": "stable",
        })
with open(os.path.join(www, "stable", "latest", "manifest.json"), "w") as handle:
    json.dump({"version": version, "packages": packages}, handle, indent=1)
PY
    touch "$ART/.complete"
fi
size_of() { stat -c %s "$1"; }
UNPACKED=$(size_of "$WWW/reference/$STEM.tar")

# --- work folder, server, cleanup ---------------------------------------------
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oneworks-install-bench.XXXXXX")
SERVER_PID=
cleanup() {
    local status=$?
    if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        if [[ $SERVER = nginx ]]; then kill -QUIT "$SERVER_PID" 2>/dev/null || true; else kill "$SERVER_PID" 2>/dev/null || true; fi
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    if [[ -z ${BENCH_KEEP:-} ]]; then rm -rf "$WORK"; else log "kept $WORK"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
start_server() {
    local _attempt
    for _attempt in 1 2 3 4 5; do
        PORT=$(free_port)
        if [[ $SERVER = nginx ]]; then
            mkdir -p "$WORK/nginx/tmp"
            local user_line=""
            [[ $(id -u) -eq 0 ]] && user_line="user root;"
            cat >"$WORK/nginx/nginx.conf" <<EOF
$user_line
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 5;
    client_body_temp_path $WORK/nginx/tmp;
    types { application/json json; }
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$PORT;
        root $WWW;
    }
}
EOF
            "$NGINX" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" 2>>"$WORK/nginx/stderr" &
            SERVER_PID=$!
        else
            python3 -m http.server --bind 127.0.0.1 --directory "$WWW" "$PORT" >/dev/null 2>&1 &
            SERVER_PID=$!
        fi
        local _try
        for _try in $(seq 50); do
            if curl -sf -o /dev/null "http://127.0.0.1:$PORT/stable/latest/manifest.json"; then return 0; fi
            kill -0 "$SERVER_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
    done
    [[ $SERVER = nginx ]] && cat "$WORK/nginx/error.log" "$WORK/nginx/stderr" >&2 2>/dev/null || true
    die "could not start $SERVER on a free loopback port"
}
start_server
BASE=http://127.0.0.1:$PORT
log "$SERVER serving $WWW on $BASE"

# --- the product's environment -------------------------------------------------
mkdir -p "$WORK/home" "$WORK/run" "$WORK/cwd" "$WORK/out" "$WORK/results"
chmod 700 "$WORK/run"
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/home/.config XDG_DATA_HOME=$WORK/home/.local/share
export XDG_CACHE_HOME=$WORK/home/.cache XDG_RUNTIME_DIR=$WORK/run
export ONEWORKS_HOME=$WORK/ow ONEWORKS_CACHE_DIR=$WORK/ow-cache
export ONEWORKS_KIRO_MANIFEST_URL=$BASE/stable/latest/manifest.json
unset ONEWORKS_CONFIG ONEWORKS_KIRO_DOWNLOAD_BASE ONEWORKS_KIRO_ADAPTER_FILE ONEWORKS_KIRO_FORMATS
cd "$WORK/cwd"   # no .oneworks/ here or above (mktemp under /tmp): no kiro.lock written
[[ ! -d .oneworks && ! -d ../.oneworks ]] || die "work folder is inside a project"

URL_GZ=$BASE/stable/$VERSION/$STEM.tar.gz
URL_ZST=$BASE/stable/$VERSION/$STEM.tar.zst
URL_TAR=$BASE/reference/$STEM.tar
X=$WORK/x
WIPE_X="rm -rf $X && mkdir -p $X && sync"
WIPE_OW="rm -rf $ONEWORKS_HOME $ONEWORKS_CACHE_DIR && sync"

# --- correctness check before timing (not timed) -------------------------------
installed_url() { python3 -c 'import json,sys,glob; print(json.load(open(glob.glob(sys.argv[1]+"/adapters/kiro/versions/*/install.json")[0])).get("url","?"))' "$ONEWORKS_HOME"; }
declare -A CHOSEN
for formats in tarGz tarZst tarXz zip default; do
    eval "$WIPE_OW"
    if [[ $formats = default ]]; then
        out=$("$BIN" adapter prepare kiro --json) || die "cold prepare (default formats) failed"
    else
        out=$(ONEWORKS_KIRO_FORMATS=$formats "$BIN" adapter prepare kiro --json) || die "cold prepare ($formats) failed"
    fi
    python3 - "$out" "$VERSION" <<'PY' || die "unexpected prepare output for $formats: $out"
import json, sys
doc = json.loads(sys.argv[1])
assert doc["adapter"] == "kiro" and doc["source"] == "managed", doc
assert doc["version"] == sys.argv[2] and doc["reused"] is False, doc
PY
    CHOSEN[$formats]=$(installed_url)
done
DEFAULT_URL=${CHOSEN[default]}
log "default preference installs ${DEFAULT_URL##*/}"
warm=$("$BIN" adapter prepare kiro --offline --json)
[[ $warm == *'"reused":true'* ]] || die "warm --offline prepare did not reuse: $warm"

# --- timings -----------------------------------------------------------------
# One hyperfine invocation per group; every cold command gets a prepare step
# that wipes what the previous run wrote.
cat >"$WORK/zlib_inflate.py" <<'PY'
import sys, zlib
inflater = zlib.decompressobj(31)
stream = sys.stdin.buffer
while True:
    block = stream.read(1 << 20)
    if not block:
        break
    inflater.decompress(block)
inflater.flush()
PY
cat >"$WORK/conc8.sh" <<EOF
#!/usr/bin/env bash
# 8 cold prepares at once on one empty ONEWORKS_HOME; fails if any fails.
pids=()
for i in 1 2 3 4 5 6 7 8; do
    "$BIN" adapter prepare kiro --json >"$WORK/out/conc.\$i.json" 2>"$WORK/out/conc.\$i.err" &
    pids+=(\$!)
done
status=0
for pid in "\${pids[@]}"; do wait "\$pid" || status=1; done
exit \$status
EOF
chmod +x "$WORK/conc8.sh"

HF=(hyperfine --style basic --shell=bash --runs "$RUNS" --warmup "$WARMUP")
names=() cmds=() preps=()
add() { names+=("$1"); preps+=("$2"); cmds+=("$3"); }
add "baseline: curl | tee >(sha256sum) | tar xzf -" "$WIPE_X" "curl -s $URL_GZ | tee >(sha256sum >/dev/null) | tar xzf - -C $X"
add "like-for-like tar.zst: curl | tee >(sha256sum) | zstd -dc | tar xf -" "$WIPE_X" "curl -s $URL_ZST | tee >(sha256sum >/dev/null) | zstd -dc | tar xf - -C $X"
add "ref: curl | zstd -dc | tar xf - (tar.zst, no hash)" "$WIPE_X" "curl -s $URL_ZST | zstd -dc | tar xf - -C $X"
if command -v openssl >/dev/null && command -v pigz >/dev/null; then
    add "like-for-like tar.gz: curl | tee >(openssl sha256) | pigz -dc | tar xf -" "$WIPE_X" "curl -s $URL_GZ | tee >(openssl dgst -sha256 >/dev/null) | pigz -dc | tar xf - -C $X"
fi
add "ref: curl | gzip -dc >/dev/null" "true" "curl -s $URL_GZ | gzip -dc >/dev/null"
add "ref: curl | python zlib inflate >/dev/null" "true" "curl -s $URL_GZ | python3 $WORK/zlib_inflate.py"
add "floor: curl -o /dev/null (tar.gz)" "true" "curl -s -o /dev/null $URL_GZ"
add "floor: curl | sha256sum (coreutils)" "true" "curl -s $URL_GZ | sha256sum >/dev/null"
if command -v openssl >/dev/null; then
    add "floor: curl | openssl sha256 (SHA-NI)" "true" "curl -s $URL_GZ | openssl dgst -sha256 >/dev/null"
fi
add "ref: curl | tar xf - (uncompressed .tar: GNU tar writing, no inflate)" "$WIPE_X" "curl -s $URL_TAR | tar xf - -C $X"
add "oneworks cold, tarGz" "$WIPE_OW" "ONEWORKS_KIRO_FORMATS=tarGz $BIN adapter prepare kiro --json >/dev/null"
add "oneworks cold, all four offered (default)" "$WIPE_OW" "$BIN adapter prepare kiro --json >/dev/null"
add "oneworks cold, tarZst" "$WIPE_OW" "ONEWORKS_KIRO_FORMATS=tarZst $BIN adapter prepare kiro --json >/dev/null"
add "oneworks cold, tarXz" "$WIPE_OW" "ONEWORKS_KIRO_FORMATS=tarXz $BIN adapter prepare kiro --json >/dev/null"
add "oneworks cold, zip" "$WIPE_OW" "ONEWORKS_KIRO_FORMATS=zip $BIN adapter prepare kiro --json >/dev/null"
add "oneworks 8 concurrent cold (default)" "$WIPE_OW" "$WORK/conc8.sh"

args=()
for i in "${!names[@]}"; do args+=(-n "${names[$i]}" --prepare "${preps[$i]}" "${cmds[$i]}"); done
log "timing ${#names[@]} commands x $RUNS runs (+$WARMUP warmup)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# How busy the rest of the machine was while we timed: all CPU time spent on
# the machine minus this script's children, per second of wall time.
busy_seconds() { awk '/^cpu / {printf "%.2f", ($2+$3+$4+$7+$8+$9)/100}' /proc/stat; }
server_seconds() { # the server's CPU (master and workers): ours, not the machine's noise
    local pid total=0 ticks
    for pid in "$SERVER_PID" $(cat /proc/"$SERVER_PID"/task/*/children 2>/dev/null); do
        ticks=$(awk '{print $14+$15}' /proc/"$pid"/stat 2>/dev/null || echo 0)
        total=$((total + ticks))
    done
    awk -v t="$total" 'BEGIN {printf "%.2f", t/100}'
}
own_seconds() { # this shell's waited children (hyperfine and all it ran) + the server
    times >"$WORK/times"   # in this shell, not a subshell: a fork has no children to report
    local kids
    kids=$(awk 'NR==2 {split($1,u,"m"); split($2,s,"m"); printf "%.2f", u[1]*60+u[2]+s[1]*60+s[2]}' "$WORK/times")
    awk -v a="$kids" -v b="$(server_seconds)" 'BEGIN {printf "%.2f", a+b}'
}
busy0=$(busy_seconds) wall0=$(date +%s.%N); own_seconds >"$WORK/own0"
"${HF[@]}" --export-json "$WORK/results/cold.json" "${args[@]}" >&2
busy1=$(busy_seconds) wall1=$(date +%s.%N); own_seconds >"$WORK/own1"
own0=$(cat "$WORK/own0") own1=$(cat "$WORK/own1")
OTHER_CPU=$(awk -v b0="$busy0" -v b1="$busy1" -v o0="$own0" -v o1="$own1" -v w0="$wall0" -v w1="$wall1" \
    'BEGIN {x=((b1-b0)-(o1-o0))/(w1-w0); if (x<0) x=0; printf "%.2f", x}')

# The last concurrent round must have installed once: same path and version,
# exactly one "reused":false.
python3 - "$WORK/out" <<'PY' || die "concurrent prepares disagree"
import glob, json, sys
docs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/conc.*.json"))]
assert len(docs) == 8, len(docs)
assert len({(d["path"], d["version"]) for d in docs}) == 1, docs
assert sum(1 for d in docs if d["reused"] is False) == 1, docs
PY

# Warm: an installed version, no request at all; no shell in between.
eval "$WIPE_OW"
"$BIN" adapter prepare kiro --json >/dev/null
hyperfine --style basic -N --runs 50 --warmup 5 --export-json "$WORK/results/warm.json" \
    -n "oneworks warm prepare --offline" "$BIN adapter prepare kiro --offline --json" \
    -n "ref: oneworks --version (process start-up)" "$BIN --version" >&2

# Peak RSS per format (max over BENCH_RSS_RUNS cold installs each).
: >"$WORK/results/rss.tsv"
for formats in tarGz tarZst tarXz zip default; do
    peak=0
    for _ in $(seq "$RSS_RUNS"); do
        eval "$WIPE_OW"
        if [[ $formats = default ]]; then
            /usr/bin/time -f %M -o "$WORK/rss" "$BIN" adapter prepare kiro --json >/dev/null
        else
            ONEWORKS_KIRO_FORMATS=$formats /usr/bin/time -f %M -o "$WORK/rss" "$BIN" adapter prepare kiro --json >/dev/null
        fi
        kib=$(tail -n1 "$WORK/rss")
        (( kib > peak )) && peak=$kib
    done
    printf '%s\t%s\n' "$formats" "$peak" >>"$WORK/results/rss.tsv"
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# Where a cold install spends its CPU: `perf record` of one tar.gz and one
# default-preference install (all threads and children), summed by component
# and thread (benches/install/profile.py).
: >"$WORK/results/profile.md"
if [[ ${BENCH_PROFILE:-1} != 0 ]] && command -v perf >/dev/null; then
    for formats in tarGz default; do
        log "perf profile of one cold prepare ($formats)"
        eval "$WIPE_OW"
        label="cold $formats"
        [[ $formats = default ]] && label="cold default (${DEFAULT_URL##*/})"
        if [[ $formats = default ]]; then
            rec=(perf record -q -F 4000 -o "$WORK/perf.data" "$BIN" adapter prepare kiro --json)
        else
            rec=(env "ONEWORKS_KIRO_FORMATS=$formats" perf record -q -F 4000 -o "$WORK/perf.data" "$BIN" adapter prepare kiro --json)
        fi
        if "${rec[@]}" >/dev/null 2>"$WORK/perf.err"; then
            perf script -i "$WORK/perf.data" -F comm,pid,tid,period,ip,sym,dso 2>/dev/null \
                | python3 "$HERE/profile.py" "$label" >>"$WORK/results/profile.md" || true
            echo >>"$WORK/results/profile.md"
        else
            log "perf record failed; no profile"; cat "$WORK/perf.err" >&2
        fi
    done
fi

# --- report ------------------------------------------------------------------
OTHER=$(ps -eo comm= | grep -cE '^(rustc|cargo|clippy-driver|cc1|cc1plus|ld|rust-lld)$' || true)
META=$WORK/results/meta.json
python3 - "$META" <<PY
import json, sys
json.dump({
    "nproc": "$(nproc)",
    "cpu": """$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')""",
    "sha_ni": $(grep -qw sha_ni /proc/cpuinfo && echo True || echo False),
    "kernel": "$(uname -sr)",
    "mem_gib": round($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576, 1),
    "fs": "$(df -T "$WORK" | awk 'NR==2 {print $2}')",
    "server": "$SERVER",
    "tools": """hyperfine $(hyperfine --version | awk '{print $2}'), curl $(curl --version | awk 'NR==1 {print $2}'), GNU tar $(tar --version | awk 'NR==1 {print $4}'), gzip $(gzip --version | awk 'NR==1 {print $2}'), zstd $(zstd --version | grep -oE 'v[0-9.]+' | head -1), coreutils $(sha256sum --version | awk 'NR==1 {print $4}'), python zlib $(python3 -c 'import zlib; print(zlib.ZLIB_RUNTIME_VERSION)')""",
    "commit": "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$ROOT" diff --quiet -- src Cargo.toml Cargo.lock manifests 2>/dev/null || echo '+dirty')",
    "runs": $RUNS, "warmup": $WARMUP, "rss_runs": $RSS_RUNS,
    "load_start": "$START_LOAD", "load_before": "$LOAD_BEFORE", "load_after": "$LOAD_AFTER",
    "other_compilers": $OTHER,
    "other_cpu": $OTHER_CPU,
    "sizes": {
        "tar.gz": $(size_of "$DL/$STEM.tar.gz"), "tar.zst": $(size_of "$DL/$STEM.tar.zst"),
        "tar.xz": $(size_of "$DL/$STEM.tar.xz"), "zip": $(size_of "$DL/$STEM.zip"), "unpacked_tar": $UNPACKED,
    },
    "levels": "gzip -$GZIP_LEVEL (pigz), zstd -$ZSTD_LEVEL, xz -$XZ_LEVEL, zip -$ZIP_LEVEL",
    "default_choice": "${DEFAULT_URL##*/}",
    "date": "$(date -u +%Y-%m-%dT%H:%MZ)",
}, open(sys.argv[1], "w"), indent=1)
PY
DOC=$ROOT/BENCHMARKS.md
[[ -n ${BENCH_NO_DOC:-} ]] && DOC=
if [[ -n $DOC ]] && ! git -C "$ROOT" diff --quiet HEAD -- src Cargo.toml Cargo.lock manifests benches 2>/dev/null; then
    log "the tree has uncommitted changes to src/, Cargo.*, manifests/ or benches/: printing the table only"
    log "(commit first, or set BENCH_NO_DOC=1, to measure a dirty tree on purpose)"
    DOC=
fi
python3 "$HERE/report.py" "$WORK/results" "$DOC"
log "done in ${SECONDS}s"
