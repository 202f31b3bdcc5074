"""The path of a bench's executable, built by cargo: shared by the instruction counters."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench_binary(name, *features):
    """Builds the bench `name` (with `features`) without running it; returns its executable."""
    command = ["cargo", "bench", "--bench", name, "--no-run", "--message-format=json"]
    if features:
        command += ["--features", ",".join(features)]
    out = subprocess.run(command, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg["target"]["name"] == name:
            if msg.get("executable"):
                return msg["executable"]
    sys.exit(f"cargo did not report the {name} bench's executable")
