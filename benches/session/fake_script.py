#!/usr/bin/env python3
"""Prints the fake kiro-cli's script for benches/session.sh: a current Kiro
whose TUI shows one approval request per marker file (the answer
benchmark), logging every key with its CLOCK_MONOTONIC arrival time.

Usage: fake_script.py WORK ACCEPTS DECLINES
"""

import json
import os
import sys


def main():
    work, accepts, declines = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    markers = os.path.join(work, "markers")
    requests = []
    for kind, count in (("accept", accepts), ("decline", declines)):
        for index in range(1, count + 1):
            request_id = f"{kind}-{index}"
            requests.append({
                "id": request_id,
                "title": f"Running: echo {request_id}",
                "trust": True,
                "waitFor": os.path.join(markers, request_id),
            })
    script = {
        "versionOutput": "kiro-cli 2.15.1",
        "versionExit": 0,
        "acpHelpOutput": "Usage: kiro-cli acp [OPTIONS]",
        "acpHelpExit": 0,
        "tui": {
            "requests": requests,
            "keyLog": os.path.join(work, "keys.log"),
            "keyTimes": os.path.join(work, "key-times.log"),
        },
    }
    json.dump(script, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
