"""The path of a bench's executable, built by cargo, and its instructions under callgrind:
shared by the instruction counters."""

import json
import os
import subprocess
import sys
import tempfile
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


def callgrind_instructions(binary, kernel, count, **env):
    """The instructions `binary` runs under callgrind with `AGENT_ERROR_KERNEL=kernel` and
    `count` as its argument (the runs or events of the kernel), `env` added."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        environment = dict(os.environ, AGENT_ERROR_KERNEL=kernel, **env)
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, str(count)],
            env=environment,
            check=True,
            capture_output=True,
        )
        for line in out.read_text().splitlines():
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    sys.exit(f"callgrind wrote no total for {kernel}")
