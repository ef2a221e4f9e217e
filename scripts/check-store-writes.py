#!/usr/bin/env python3
"""No front end writes to a store (issue 79): the command line (SiteCLI), the console and
the management API (SiteConsole) build a command and call SiteCore's layer, which checks it
and makes the change with its audit record, webhooks and change-log entry in one
transaction. This finds, in those modules, every call of a store's writing method
(administration, store, tokens, webhooks, replica, console: add..., remove..., set..., ...)
and every change a front end still composes itself (AdministratorChanges.apply through the
helpers `change(` and `.apply(`), and compares them with scripts/store-writes-left.txt, the
ones not moved into the layer yet: a new one fails, and so does a listed one that is gone
(take it off the list, so the list only shrinks).

    python3 scripts/check-store-writes.py            check (CI)
    python3 scripts/check-store-writes.py --write    rewrite the list from the code
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FRONT_ENDS = ["Sources/Site/SiteCLI", "Sources/Site/SiteConsole"]
LIST = ROOT / "scripts/store-writes-left.txt"
# A store reached from a front end, then a method whose name says it writes.
STORE_CALL = re.compile(
    r"\b(?:administration|store|tokens|webhooks|replica|console)\??\.("
    r"(?:add|remove|set|write|delete|issue|revoke|rename|rotate|retire|clear|import|finish|begin|tag|storeEvents|record|"
    r"acknowledge|claim|arm|edit|disable|enable|mark|update|adopt|pair|forget|reset)(?:[A-Z]\w*)?)\(")
# A change composed in a front end: the console's and the CLI's helpers, or apply itself.
COMPOSED = re.compile(r"(?:\bchange\(\s*visit\s*,|\btarget\.change\(|\.change\(\s*\.|\.apply\(\s*\.)")


def found():
    """{(path, what)}: what is `write NAME` or `composes a change`, once per file and name."""
    seen = collections.Counter()
    for folder in FRONT_ENDS:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            relative = path.relative_to(ROOT).as_posix()
            for line in path.read_text().splitlines():
                code = line.split("//", 1)[0]
                for match in STORE_CALL.finditer(code):
                    seen[(relative, "write " + match.group(1))] += 1
                seen[(relative, "composes a change")] += len(COMPOSED.findall(code))
    return {key: count for key, count in seen.items() if count}


def main():
    now = found()
    lines = [f"{path}: {what} x{count}" for (path, what), count in sorted(now.items())]
    writes = sum(count for (_, what), count in now.items() if what.startswith("write "))
    composed = sum(count for (_, what), count in now.items() if what == "composes a change")
    summary = f"store writes from front ends: {writes} calls and {composed} composed changes left, in {len({p for p, _ in now})} files"
    if "--write" in sys.argv:
        LIST.write_text("# Front-end store writes not moved into SiteCore's layer yet (scripts/check-store-writes.py).\n" + "\n".join(lines) + "\n")
        print(summary)
        return
    listed = {}
    for line in LIST.read_text().splitlines() if LIST.exists() else []:
        if line and not line.startswith("#"):
            where, _, count = line.rpartition(" x")
            path, _, what = where.partition(": ")
            listed[(path, what)] = int(count)
    more = [(key, count) for key, count in sorted(now.items()) if count > listed.get(key, 0)]
    fewer = [(key, count) for key, count in sorted(listed.items()) if now.get(key, 0) < count]
    for (path, what), count in more:
        print(f"check-store-writes: {path}: {what} x{now[(path, what)]}, listed x{listed.get((path, what), 0)} (make the change through SiteCore's layer)")
    for (path, what), count in fewer:
        print(f"check-store-writes: {path}: {what} x{now.get((path, what), 0)}, fewer than listed x{count} (run scripts/check-store-writes.py --write)")
    print(summary)
    sys.exit(1 if more or fewer else 0)


if __name__ == "__main__":
    main()
