#!/usr/bin/env python3
"""Instruction counts of the retrier against backon + `is_retryable`, under callgrind: the
second figure beside `cargo bench --bench retry -- classified`, immune to a busy machine.

Builds the `retry` bench (feature `anyhow`), runs each kernel of its classified group (two
failures then a success) and the 11 attempts of its first group under
`valgrind --tool=callgrind`, a fixed number of times and not at all, and prints the
instructions per run (the difference, divided) with the ratio of the retrier to backon.
Needs valgrind.

    python3 scripts/retry_instructions.py [--runs N]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_binary import bench_binary

ERRORS = [
    ("typed", "typed"),
    ("anyhow over typed", "anyhow"),
    ("foreign io::Error", "foreign"),
    ("11 attempts, flaky", "flaky"),
]


def instructions(binary, kernel, runs):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, AGENT_ERROR_KERNEL=kernel, RUST_LIB_BACKTRACE="0")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, str(runs)],
            env=env,
            check=True,
            capture_output=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    sys.exit(f"callgrind wrote no total for {kernel}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000, help="runs of each kernel")
    args = parser.parse_args()
    binary = bench_binary("retry", "anyhow")
    print(f"{'failure':<22} {'Retrier':>8} {'backon':>8} {'ratio':>6}")
    for label, error in ERRORS:
        per_run = {}
        for side in ("retrier", "backon"):
            kernel = f"{error}/{side}"
            counted = instructions(binary, kernel, args.runs)
            start_up = instructions(binary, kernel, 0)
            per_run[side] = (counted - start_up) / args.runs
        ratio = per_run["retrier"] / per_run["backon"]
        print(f"{label:<22} {per_run['retrier']:>8.0f} {per_run['backon']:>8.0f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
