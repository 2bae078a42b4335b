# Shared by the benchmark scripts (sourced, not run): logging, installing a
# missing tool from Debian's packages, and the release build.
#
#   BENCH_NAME=acp-bench; source "$ROOT/benches/common.sh"

log() { printf '\033[1m[%s]\033[0m %s\n' "$BENCH_NAME" "$*" >&2; }
die() { log "error: $*"; exit 1; }

apt_updated=
need() { # need COMMAND DEBIAN_PACKAGE
    command -v "$1" >/dev/null 2>&1 && return 0
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        log "installing $2 (for $1)"
        if [[ -z $apt_updated ]]; then apt-get update -qq >/dev/null 2>&1 || true; apt_updated=1; fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 || true
    fi
    command -v "$1" >/dev/null 2>&1
}

# build_release [CARGO ARGS…]: builds once and sets TARGET_DIR, BIN (oneworks)
# and FAKE (the fake kiro-cli, when built).
build_release() {
    log "cargo build --release $*"
    (cd "$ROOT" && cargo build --release --quiet "$@")
    TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
    [[ $TARGET_DIR = /* ]] || TARGET_DIR=$ROOT/$TARGET_DIR
    BIN=$TARGET_DIR/release/oneworks
    FAKE=$TARGET_DIR/release/fake-kiro-cli
    [[ -x $BIN ]] || die "no release binary at $BIN"
}

# work_folder: a fresh folder for this run in $WORK (its real path), removed
# on exit unless BENCH_KEEP is set; Ctrl-C or SIGTERM exits 130.
work_folder() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/oneworks-$BENCH_NAME.XXXXXX")
    WORK=$(cd "$WORK" && pwd -P)
    trap remove_work_folder EXIT
    trap 'exit 130' INT TERM
}
remove_work_folder() {
    local status=$?
    if [[ -z ${BENCH_KEEP:-} ]]; then rm -rf "$WORK"; else log "kept $WORK"; fi
    exit "$status"
}
