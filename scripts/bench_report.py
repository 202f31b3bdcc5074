#!/usr/bin/env python3
"""Summarises the last `cargo bench` run as a Markdown table, for BENCHMARKS.md.

Reads criterion's estimates under `<target dir>/criterion`: for each benchmark the median
time, per element when the group measures a batch, with the median absolute deviation
(MAD) of the samples as the spread; and in each group the ratio of the agent-error entry
to each reference measured beside it in the same run.

    python3 scripts/bench_report.py [--target-dir DIR]
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

# The entry of each group that measures agent-error; the others are its references.
SUBJECTS = (
    "derived",
    "agent_error::find",
    "tool::render",
    "tool::parse",
    "Retrier::run_detailed_with_sleep",
)


def target_dir(given):
    if given:
        return Path(given)
    if os.environ.get("CARGO_TARGET_DIR"):
        return Path(os.environ["CARGO_TARGET_DIR"])
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"])


def fmt_time(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.2f} ns"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target-dir")
    args = parser.parse_args()
    root = target_dir(args.target_dir) / "criterion"
    if not root.is_dir():
        sys.exit(f"no criterion results under {root}: run `cargo bench` first")

    groups = {}
    for bench in sorted(root.glob("*/*/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        est = json.loads((bench.parent / "estimates.json").read_text())
        per = 1
        throughput = meta.get("throughput") or {}
        if "Elements" in throughput:
            per = throughput["Elements"]
        median = est["median"]["point_estimate"] / per
        mad = est["median_abs_dev"]["point_estimate"] / per
        groups.setdefault(meta["group_id"], []).append((meta["function_id"], median, mad))

    print("| group | function | median | MAD | ratio |")
    print("|---|---|---:|---:|---:|")
    for group, entries in groups.items():
        subject = next((e for e in entries if e[0] in SUBJECTS), None)
        entries.sort(key=lambda e: (e[0] not in SUBJECTS, e[0]))
        for name, median, mad in entries:
            ratio = ""
            if subject and name != subject[0]:
                ratio = f"{subject[1] / median:.3f}"
            spread = f"±{mad / median * 100:.1f}%"
            print(f"| {group} | {name} | {fmt_time(median)} | {spread} | {ratio} |")
    print()
    print("Times are per element where the group measures a batch (`xN`); the ratio is")
    print("the agent-error entry's median divided by this reference's, from the same run.")


if __name__ == "__main__":
    main()
