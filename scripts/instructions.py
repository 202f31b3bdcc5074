#!/usr/bin/env python3
"""Instruction counts of the derived code against hand-written code and thiserror, under
callgrind: a second figure beside `cargo bench --bench derived`, immune to a busy machine.

Builds the `derived` bench, runs each of its kernels (see `measured!` in
benches/derived.rs) a fixed number of times over 1,000 errors under
`valgrind --tool=callgrind`, and prints the instructions per error of each kernel with
the ratio of the derived kernel to each reference. Needs valgrind.

    python3 scripts/instructions.py [--times N]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_binary import bench_binary

BATCH = 1_000
# Batches to count: the shuffled mix of all 20 variants, then one variant at a time.
KERNELS = ["code", "op", "is_retryable", "retry_policy", "display", "message"]
BATCHES = [
    ("20 variants mixed", ""),
    ("plain message", "4"),
    ("two fields", "3"),
    ("field and cause", "1"),
]


def count(binary, kernel, times, variant):
    """Instructions per error of the kernel named `kernel`, run alone `times` times."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, AGENT_ERROR_BENCH_ONCE=f"{kernel},{times},{variant}")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--toggle-collect=*run_kernel*",
                f"--callgrind-out-file={out}",
                binary,
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1]) / (times * BATCH)
    sys.exit(f"callgrind wrote no total for {kernel}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=20, help="runs of each kernel")
    args = parser.parse_args()
    binary = bench_binary("derived")
    print("| batch | kernel | derived | hand-written | thiserror | derived ÷ hand | derived ÷ thiserror |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, variant in BATCHES:
        kernels = ["display", "message"] if variant else KERNELS
        for kernel in kernels:
            d, h = (count(binary, f"{kernel}_{who}", args.times, variant) for who in ("derived", "hand"))
            t = count(binary, f"{kernel}_thiserror", args.times, variant) if kernel == "display" else None
            cells = [f"{d:.1f}", f"{h:.1f}", f"{t:.1f}" if t else "", f"{d / h:.3f}"]
            cells.append(f"{d / t:.3f}" if t else "")
            print(f"| {label} | {kernel} | " + " | ".join(cells) + " |", flush=True)
    print()
    print("Instructions per error: the kernel's loop, the call and everything under it.")


if __name__ == "__main__":
    main()
