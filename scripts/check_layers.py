#!/usr/bin/env python3
"""Checks that the runtime's core layer imports nothing above it.

Every `crate::NAME` path in `error-runtime/src/core/` (code, not comments; `$crate` paths in
macros name the crate a user's code sees, not an import) must name the core itself
(`crate::core::…`) or an item the crate root re-exports from the core (`pub use
crate::core::…`). The integrations need no such check: they are crates of their own, and the
compiler holds them to the runtime's public API.

    python3 scripts/check_layers.py    # exit 1 and one line per offending path
"""

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "error-runtime" / "src"


def core_reexports(lib: str) -> set:
    names = set()
    for m in re.finditer(r"^\s*pub use crate::core::([\w:]+?)(?:::\{([^}]*)\}|::(\w+)|)\s*;", lib, re.M):
        path, group, single = m.groups()
        if group:
            names.update(re.findall(r"\w+", group))
        elif single:
            names.add(single)
        else:
            names.add(path.split("::")[-1])
    return names


def main() -> int:
    allowed = core_reexports((SRC / "lib.rs").read_text()) | {"core"}
    bad = []
    for path in sorted((SRC / "core").rglob("*.rs")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            for m in re.finditer(r"(?<![\w$])crate::(\w+)", code):
                if m.group(1) not in allowed:
                    bad.append(f"{path.relative_to(SRC.parent.parent)}:{n}: crate::{m.group(1)}")
            for m in re.finditer(r"(?<![\w$])use crate::\{([^}]*)\}", code):
                for name in re.findall(r"\b(\w+)\b", m.group(1)):
                    if name not in allowed:
                        bad.append(f"{path.relative_to(SRC.parent.parent)}:{n}: crate::{name}")
    for line in bad:
        print(line)
    print(f"core imports above it: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
