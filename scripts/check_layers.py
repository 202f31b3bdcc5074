#!/usr/bin/env python3
"""Checks two layers of the house.

1. The runtime's core imports nothing above it. Every `crate::NAME` path in
   `error-runtime/src/core/` (code, not comments; `$crate` paths in macros name the crate a
   user's code sees, not an import) must name the core itself (`crate::core::…`) or an item
   the crate root re-exports from the core (`pub use crate::core::…`).
2. Only generated code reaches into `__private`. The integrations, the facade, the tests,
   examples and benches are held to the runtime's public API (`extend` is the part made for
   integrations): a `__private` path in their code (not comments) is an error. The runtime's
   own macros (`$crate::__private`) and the derive's output are what the module is for.

    python3 scripts/check_layers.py    # exit 1 and one line per offending path
"""

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "error-runtime" / "src"


def core_reexports(lib: str) -> set:
    names = set()
    pattern = r"^\s*pub use (?:crate::core|agent_error_rules)::([\w:]*?)(?:::\{([^}]*)\}|::(\w+)|\{([^}]*)\}|)\s*;"
    for m in re.finditer(pattern, lib, re.M):
        path, group, single, top = m.groups()
        group = group or top
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
    private = private_uses()
    for line in private:
        print(line)
    print(f"uses of __private outside generated code: {len(private)}")
    return 1 if bad or private else 0


def private_uses() -> list:
    """Every `__private` path in code outside the runtime and the derive."""
    root = SRC.parent.parent
    found = []
    for top in ["integrations", "src", "tests", "examples", "benches"]:
        for path in sorted((root / top).rglob("*.rs")):
            if "target" in path.parts:
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("//")[0]
                if "__private" in code:
                    found.append(f"{path.relative_to(root)}:{n}: {code.strip()}")
    return found


if __name__ == "__main__":
    sys.exit(main())
