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

from bench_binary import bench_binary, callgrind_instructions

ERRORS = [
    ("typed", "typed"),
    ("anyhow over typed", "anyhow"),
    ("foreign io::Error", "foreign"),
    ("11 attempts, flaky", "flaky"),
]


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
            counted = callgrind_instructions(binary, kernel, args.runs, RUST_LIB_BACKTRACE="0")
            start_up = callgrind_instructions(binary, kernel, 0, RUST_LIB_BACKTRACE="0")
            per_run[side] = (counted - start_up) / args.runs
        ratio = per_run["retrier"] / per_run["backon"]
        print(f"{label:<22} {per_run['retrier']:>8.0f} {per_run['backon']:>8.0f} {ratio:>6.2f}")


if __name__ == "__main__":
    main()
