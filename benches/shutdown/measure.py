"""Times turn end → exit of one command, RUNS times (benches/shutdown.sh).

    measure.py --label NAME --runs N --warmup W --stamp FILE -- COMMAND…

Before each run the stamp file is removed; the fake agent writes into it
the CLOCK_MONOTONIC time (ns) just before it writes the answer that ends
the turn. The sample is the CLOCK_MONOTONIC time at which waitpid()
returns for the command, minus that stamp. Prints JSON with the samples
(ms) and their summary; a run that fails or leaves no stamp aborts.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--label", required=True)
    parser.add_argument("--runs", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--stamp", required=True)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    samples, walls = [], []
    for index in range(args.warmup + args.runs):
        try:
            os.unlink(args.stamp)
        except FileNotFoundError:
            pass
        with tempfile.TemporaryFile() as errors:
            started = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=errors)
            process.wait()
            exited = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
            if process.returncode != 0:
                errors.seek(0)
                sys.stderr.write(errors.read().decode(errors="replace"))
                sys.exit(f"{args.label}: run {index} exited {process.returncode}")
        try:
            with open(args.stamp) as handle:
                stamp = int(handle.read().strip())
        except (OSError, ValueError) as error:
            sys.exit(f"{args.label}: run {index} left no turn-end stamp ({error})")
        if index >= args.warmup:
            samples.append((exited - stamp) / 1e6)
            walls.append((exited - started) / 1e6)
    json.dump({
        "label": args.label, "runs": args.runs, "warmup": args.warmup,
        "samples_ms": samples,
        "p50": percentile(samples, 0.50), "p95": percentile(samples, 0.95),
        "min": min(samples), "max": max(samples),
        "wall_p50": percentile(walls, 0.50),
    }, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
