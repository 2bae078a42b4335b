#!/usr/bin/env python3
"""Generates the benchmark artifact tree for benches/install.sh.

Deterministic (seeded) content shaped like a Kiro CLI Linux archive:

    kirocli/bin/kiro-cli         tiny /bin/sh stand-in that passes both probes
    kirocli/bin/kiro-cli-chat    ~118 MiB: 1 MiB segments, random and text mixed
    kirocli/bin/kiro-cli-term    ~70 MiB: the same mix
    kirocli/bin/q, qchat         tiny shims
    kirocli/install.sh
    kirocli/share/...            a handful of small text files (docs, completions)

About half of the ~200 MB is random (incompressible, like machine code after
a linker's padding and embedded assets); the rest is token text that gzip
compresses ~4-5x, so the tar.gz weighs ~100 MB.

Usage: make_artifacts.py OUT_TREE_DIR VERSION
"""

import os
import random
import sys

MIB = 1024 * 1024


def main() -> None:
    out, version = sys.argv[1], sys.argv[2]
    rng = random.Random(0x6B69726F)  # "kiro"

    # A vocabulary of identifier/keyword-like tokens with a Zipf-ish weight,
    # so the text has realistic (not pathological) redundancy.
    alphabet = "abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    vocab = []
    for _ in range(384):
        length = rng.choice((2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 18))
        vocab.append("".join(rng.choice(alphabet) for _ in range(length)))
    vocab += ["\n", "(", ")", "{", "}", ";", "::", "->", " = ", ", ", "\n    "]
    weights = [1.0 / (index + 1) ** 1.1 for index in range(len(vocab))]
    cumulative = []
    total = 0.0
    for weight in weights:
        total += weight
        cumulative.append(total)

    def text_segment(size: int) -> bytes:
        # ~7 bytes per token on average; overshoot, then cut.
        words = rng.choices(vocab, cum_weights=cumulative, k=size // 5 + 64)
        data = " ".join(words).encode()
        while len(data) < size:
            data += b" ".join(w.encode() for w in rng.choices(vocab, cum_weights=cumulative, k=4096))
        return data[:size]

    def mixed_file(path: str, segments: int, random_share: float) -> None:
        # Alternate random and text segments in a seeded order.
        with open(path, "wb") as handle:
            handle.write(b"\x7fELF\x02\x01\x01" + b"\0" * 57)
            for _ in range(segments):
                if rng.random() < random_share:
                    handle.write(rng.randbytes(MIB))
                else:
                    handle.write(text_segment(MIB))
        os.chmod(path, 0o755)

    root = os.path.join(out, "kirocli")
    bin_dir = os.path.join(root, "bin")
    os.makedirs(bin_dir, exist_ok=True)

    with open(os.path.join(bin_dir, "kiro-cli"), "w") as handle:
        handle.write(
            "#!/bin/sh\n"
            "# Benchmark stand-in for kiro-cli: answers the two probes.\n"
            f'case "$1" in\n'
            f'  --version) echo "kiro-cli {version}" ;;\n'
            '  acp) exit 0 ;;\n'
            '  *) exit 0 ;;\n'
            "esac\n"
        )
    os.chmod(os.path.join(bin_dir, "kiro-cli"), 0o755)
    for shim in ("q", "qchat"):
        with open(os.path.join(bin_dir, shim), "w") as handle:
            handle.write(f'#!/bin/sh\nexec "$(dirname "$0")/kiro-cli" "$@"\n')
        os.chmod(os.path.join(bin_dir, shim), 0o755)
    with open(os.path.join(root, "install.sh"), "w") as handle:
        handle.write("#!/bin/sh\necho 'benchmark artifact: nothing to install'\n")
    os.chmod(os.path.join(root, "install.sh"), 0o755)

    mixed_file(os.path.join(bin_dir, "kiro-cli-chat"), 120, 0.5)
    mixed_file(os.path.join(bin_dir, "kiro-cli-term"), 75, 0.5)

    # A handful of small files, like the real archive's shims and docs (the
    # real Linux archive holds ~6 files; per-file creation cost is not what
    # this benchmark is about).
    for group in ("doc", "completions"):
        folder = os.path.join(root, "share", group)
        os.makedirs(folder, exist_ok=True)
        for index in range(4):
            size = rng.randint(2 * 1024, 40 * 1024)
            with open(os.path.join(folder, f"file-{index:02d}.txt"), "wb") as handle:
                handle.write(text_segment(size))


if __name__ == "__main__":
    main()
