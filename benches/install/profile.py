#!/usr/bin/env python3
"""Summarises `perf script -F comm,pid,tid,period,ip,sym,dso` of one
`oneworks adapter prepare kiro` as a markdown table: CPU milliseconds per
component (inflate, crc32, sha256, memcpy, kernel, ...) and per thread role
(main = decompress + tar + write, hash = the SHA-256 stage, network =
reqwest's runtime thread, child processes = the probes). The main thread is
the critical path.

Usage: perf script ... | profile.py LABEL
"""

import collections
import re
import sys

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<pid>\d+)/(?P<tid>\d+)\s+(?P<period>\d+)\s+[0-9a-f]+\s+(?P<sym>.*?)\s+\((?P<dso>[^()]*)\)\s*$")

COMPONENTS = [
    ("sha256", re.compile(r"sha2::|sha256", re.I)),
    ("crc32 (gzip trailer)", re.compile(r"crc32", re.I)),
    ("inflate (zlib-rs)", re.compile(r"inflate|zlib_rs", re.I)),
    ("zstd decode", re.compile(r"ZSTD_|HUF_|FSE_|zstd", re.I)),
    ("xz decode", re.compile(r"lzma|lz_decode|lzma_decode", re.I)),
    ("memcpy / memset", re.compile(r"__mem(move|cpy|set)|memcpy|memmove|memset")),
    ("allocator", re.compile(r"malloc|_int_free|cfree|realloc|__libc_calloc")),
]


def component(sym, dso):
    if dso.endswith("kernel.kallsyms]") or dso == "[kernel.kallsyms]":
        return "kernel (syscalls, page cache, ext4, scheduling)"
    for name, pattern in COMPONENTS:
        if pattern.search(sym):
            return name
    if "tar::" in sym:
        return "tar parsing"
    if dso.endswith(".so") or ".so." in dso:
        return "other libraries"
    return "other (oneworks: start-up, manifest, probes, publish)"


def main():
    label = sys.argv[1] if len(sys.argv) > 1 else "install"
    cpu = collections.Counter()
    by_thread = collections.defaultdict(collections.Counter)
    comms = {}
    pids = {}
    per_pid = collections.Counter()
    for line in sys.stdin:
        match = LINE.match(line)
        if not match:
            continue
        tid = match["tid"]
        ms = int(match["period"]) / 1e6
        comms[tid] = match["comm"]
        pids[tid] = match["pid"]
        per_pid[match["pid"]] += ms
        by_thread[tid][component(match["sym"], match["dso"])] += ms
    if not by_thread:
        print(f"(no samples for {label})")
        return
    # Thread roles: reqwest's runtime, the one that hashes most, the main one.
    # Processes other than oneworks (the probes' children) are one column.
    root = per_pid.most_common(1)[0][0]
    roles = {}
    for tid, counts in by_thread.items():
        if pids[tid] != root:
            roles[tid] = "child processes"
        elif comms[tid].startswith("reqwest"):
            roles[tid] = "network"
        elif tid == root:
            roles[tid] = "main"
        elif counts["sha256"] > 0.3 * sum(counts.values()):
            roles[tid] = "hash"
        else:
            roles[tid] = "other threads"
    columns = ["main", "hash", "network", "other threads", "child processes"]
    table = collections.defaultdict(collections.Counter)
    for tid, counts in by_thread.items():
        for name, ms in counts.items():
            table[name][roles[tid]] += ms
            cpu[roles[tid]] += ms
    shown = [c for c in columns if cpu[c] > 0]
    print(f"| {label}: CPU ms by component | " + " | ".join(c if c.endswith("s") else f"{c} thread" for c in shown) + " | total |")
    print("|---|" + "---:|" * (len(shown) + 1))
    for name, counts in sorted(table.items(), key=lambda item: -sum(item[1].values())):
        total = sum(counts.values())
        if total < 2:
            continue
        print(f"| {name} | " + " | ".join(f"{counts[c]:.0f}" for c in shown) + f" | {total:.0f} |")
    print("| **all** | " + " | ".join(f"**{cpu[c]:.0f}**" for c in shown) + f" | **{sum(cpu.values()):.0f}** |")


if __name__ == "__main__":
    main()
