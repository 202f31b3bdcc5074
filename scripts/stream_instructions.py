#!/usr/bin/env python3
"""Instruction counts of a healthy event through `stream::Watch` against the bare SSE
parsers, under callgrind: the second figure beside `cargo bench --bench stream`, immune to a
busy machine.

Builds the `stream` bench (feature `stream`), runs each reader over N events of each shape
(one event an item) and over none, under `valgrind --tool=callgrind`, and prints the
instructions per event (the difference, divided) and the watch's ratio to `sseer`'s own event
stream, the bare parser it is held to. Needs valgrind.

    python3 scripts/stream_instructions.py [--events N]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_binary import bench_binary

READERS = ["eventsource-stream", "sse-stream", "sseer", "watch"]


def instructions(binary, kernel, events):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, AGENT_ERROR_KERNEL=kernel)
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, str(events)],
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
    parser.add_argument("--events", type=int, default=10_000, help="events a run")
    args = parser.parse_args()
    binary = bench_binary("stream", "stream")
    print(f"{'shape':<10} " + " ".join(f"{r:>19}" for r in READERS) + f" {'watch/sseer':>12}")
    for shape in ("chat", "anthropic"):
        # The events' own making (the chunks, then dropping them) is what "none" does.
        base = instructions(binary, f"none/{shape}", args.events)
        per_event = {}
        for reader in READERS:
            counted = instructions(binary, f"{reader}/{shape}", args.events)
            per_event[reader] = (counted - base) / args.events
        ratio = per_event["watch"] / per_event["sseer"]
        print(f"{shape:<10} " + " ".join(f"{per_event[r]:>19,.0f}" for r in READERS) + f" {ratio:>12.2f}")


if __name__ == "__main__":
    main()
