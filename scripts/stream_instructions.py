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

from bench_binary import bench_binary, callgrind_instructions

READERS = ["eventsource-stream", "sse-stream", "sseer", "watch"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000, help="events a run")
    args = parser.parse_args()
    binary = bench_binary("stream", "stream")
    print(f"{'shape':<10} " + " ".join(f"{r:>19}" for r in READERS) + f" {'watch/sseer':>12}")
    for shape in ("chat", "anthropic"):
        # The events' own making (the chunks, then dropping them) is what "none" does.
        base = callgrind_instructions(binary, f"none/{shape}", args.events)
        per_event = {}
        for reader in READERS:
            counted = callgrind_instructions(binary, f"{reader}/{shape}", args.events)
            per_event[reader] = (counted - base) / args.events
        ratio = per_event["watch"] / per_event["sseer"]
        print(f"{shape:<10} " + " ".join(f"{per_event[r]:>19,.0f}" for r in READERS) + f" {ratio:>12.2f}")


if __name__ == "__main__":
    main()
