"""Rewrites one generated section of BENCHMARKS.md (shared by the report
scripts under benches/*/).

`block` runs from the section's start marker to its end marker inclusive.
When both markers are in the file, the text between them (markers included)
is replaced; otherwise the block goes under `heading` (added at the end of
the file when missing). Nothing outside the markers changes.
"""

import os


def write_section(path, heading, start, end, block):
    text = "# Benchmarks\n"
    if os.path.exists(path):
        with open(path) as handle:
            text = handle.read()
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        if heading not in text:
            text = text.rstrip("\n") + f"\n\n{heading}\n"
        head, tail = text.split(heading, 1)
        text = head + heading + "\n\n" + block + "\n" + tail.lstrip("\n")
    if not text.endswith("\n"):
        text += "\n"
    with open(path, "w") as handle:
        handle.write(text)
