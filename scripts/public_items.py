#!/usr/bin/env python3
"""Counts the public items of the runtime crate's root and of chosen modules, from rustdoc's
JSON output (nightly), so that a change to the public surface is a number, not an impression.

    cargo +nightly rustdoc -p agent-error-runtime --all-features -- \
        -Z unstable-options --output-format json --document-hidden-items
    python3 scripts/public_items.py target/doc/agent_error_runtime.json [module ...]
    python3 scripts/public_items.py target/doc/agent_error_runtime.json --total
    python3 scripts/public_items.py target/doc/agent_error_runtime.json --names
    python3 scripts/public_items.py target/doc/agent_error_runtime.json --names \
        scripts/public_surface.txt CHANGELOG.md

The last form holds the surface (every feature on) against its list: a name that became
public must be listed, under the list's last line, and named in the changelog.

(On a stable toolchain, `RUSTC_BOOTSTRAP=1` lets rustdoc write its JSON.)

For each module it prints the items a user can name there (re-exports included; items
hidden from the docs counted apart), and the associated items (methods, constants) of the
types defined or re-exported there.
"""

import json
import re
import sys


def main() -> int:
    path = sys.argv[1]
    wanted = sys.argv[2:] or ["retry", "recover", "classify"]
    doc = json.load(open(path))
    index = doc["index"]
    root = index[str(doc["root"])]

    def target(item):
        """The item a `use` names, when it is in this crate."""
        inner = item["inner"]
        if "use" in inner and inner["use"].get("id") is not None:
            return index.get(str(inner["use"]["id"]))
        return item

    def hidden(item):
        return any("hidden" in str(a) for a in item.get("attrs", []))

    def members(module):
        out = []
        for child in module["inner"]["module"]["items"]:
            item = index.get(str(child))
            if item is None or item.get("visibility") != "public":
                continue
            if "use" in item["inner"] and item["inner"]["use"].get("is_glob"):
                inner = target(item)
                if inner is not None and "module" in inner["inner"]:
                    out.extend(members(inner))
                continue
            out.append(item)
        return out

    def inherent_items(item):
        """A type's public items: the items of its inherent impls (public ones only) and,
        for a trait, its items."""
        inner = target(item) or item
        kinds = inner["inner"]
        for kind in ("struct", "enum", "trait"):
            if kind not in kinds:
                continue
            if kind == "trait":
                ids = kinds[kind].get("items", [])
            else:
                ids = []
                for i in kinds[kind].get("impls", []):
                    imp = index.get(str(i))
                    if imp is not None and imp["inner"]["impl"].get("trait") is None:
                        ids.extend(imp["inner"]["impl"]["items"])
            for m in ids:
                mi = index.get(str(m))
                if mi and (kind == "trait" or mi.get("visibility") == "public"):
                    yield mi

    def assoc(item):
        """Its public items shown, plus 1000 for each one hidden from the docs."""
        return sum(1000 if hidden(mi) else 1 for mi in inherent_items(item))

    def methods_of(item):
        """The names of its public items shown."""
        return [mi["name"] for mi in inherent_items(item) if mi.get("name") and not hidden(mi)]

    def module_named(name):
        for item in members(root):
            inner = target(item)
            if item.get("name") == name and inner is not None and "module" in inner["inner"]:
                return inner
        return None

    if wanted[:1] == ["--names"]:
        # Every path a user can write, from the root down (`module::Item`), and the public
        # methods and constants of each type (`module::Type::method`), one a line, sorted.
        paths, seen = set(), set()
        stack = [([], root)]
        while stack:
            prefix, module = stack.pop()
            if module["id"] in seen:
                continue
            seen.add(module["id"])
            for item in members(module):
                inner = target(item)
                if hidden(item) or (inner is not None and hidden(inner)):
                    continue
                name = item.get("name") or (inner or {}).get("name")
                if name is None:
                    continue
                if inner is not None and "module" in inner["inner"]:
                    paths.add("::".join(prefix + [name]))
                    stack.append((prefix + [name], inner))
                    continue
                path = "::".join(prefix + [name])
                paths.add(path)
                for method in methods_of(item):
                    paths.add(f"{path}::{method}")
        if len(wanted) == 3:
            return check(paths, wanted[1], wanted[2])
        for path in sorted(paths):
            print(path)
        return 0

    if wanted == ["--total"]:
        # Every public module, from the root down: the names a user can write (an item
        # re-exported in two places counts in each), and the public methods and constants of
        # the distinct types among them.
        names, types, seen = 0, {}, set()
        stack = [root]
        while stack:
            module = stack.pop()
            if module["id"] in seen:
                continue
            seen.add(module["id"])
            for item in members(module):
                inner = target(item)
                if hidden(item) or (inner is not None and hidden(inner)):
                    continue
                if inner is not None and "module" in inner["inner"]:
                    stack.append(inner)
                    continue
                names += 1
                key = (inner or item)["id"]
                types[key] = assoc(item) % 1000
        print(f"public names: {names}; distinct items: {len(types)}; "
              f"public associated items of their types: {sum(types.values())}")
        return 0

    rows = [("(crate root)", root)] + [(n, module_named(n)) for n in wanted]
    for name, module in rows:
        if module is None:
            print(f"{name}: not found")
            continue
        items = members(module)
        shown = [i for i in items if not hidden(i) and not hidden(target(i) or i)]
        methods = sum(assoc(i) for i in shown)
        hidden_methods, methods = divmod(methods, 1000)
        print(
            f"{name}: {len(shown)} items, {len(items) - len(shown)} hidden; "
            f"{methods} public associated items, {hidden_methods} hidden"
        )
    return 0


SINCE = "# Added since the list above was taken:"


def check(paths, listed_at, changelog_at):
    """Holds the surface against its list: a public name not listed fails (list it, and say
    it in the changelog), a name listed that is gone fails (take it out). A name listed after
    the `SINCE` line must be said in the changelog (its last part, as a word)."""
    listed, since, after = set(), set(), False
    for line in open(listed_at, encoding="utf-8"):
        line = line.strip()
        if line == SINCE:
            after = True
        elif line and not line.startswith("#"):
            (since if after else listed).add(line)
    changelog = open(changelog_at, encoding="utf-8").read()
    known = listed | since
    new = sorted(paths - known)
    gone = sorted(known - paths)
    unsaid = sorted(
        name for name in since
        if not re.search(r"\b" + re.escape(name.split("::")[-1]) + r"\b", changelog)
    )
    for name in new:
        print(f"public but not listed: {name} (add it under the last line of {listed_at}, "
              f"and say it in {changelog_at})")
    for name in gone:
        print(f"listed but no longer public: {name} (take it out of {listed_at})")
    for name in unsaid:
        print(f"listed as added, but {changelog_at} does not name it: {name}")
    print(f"public names and methods: {len(paths)} ({len(since)} added since the list)")
    return 1 if new or gone or unsaid else 0


if __name__ == "__main__":
    sys.exit(main())
