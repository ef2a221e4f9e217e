#!/usr/bin/env python3
"""Holds docs/architecture.md to the code, so its module tables cannot drift.

For every Swift module under Sources/<side>/<Module> it counts the lines of its .swift files
and reads the project modules its files import; then it checks the doc:
  - the tree block lists every module once, with its line count within 10 % (or 50 lines);
  - the module table has a row for every module whose "depends on" column names exactly the
    project modules it imports (external packages in brackets are not checked; C modules are
    named as they are imported);
  - no row or tree line names a module that does not exist.

  scripts/check-architecture.py            check (exit 1 and one line per difference)
  scripts/check-architecture.py --write    rewrite the tree's line counts from the code

.ci/run runs the check.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
SIDES = ("Shared", "Door", "Site")
TOLERANCE = 0.10
SLACK = 50


def modules():
    """Name -> (lines, set of project modules imported), for every Swift module in Sources."""
    found = {}
    for side in SIDES:
        for folder in sorted((ROOT / "Sources" / side).iterdir()):
            if folder.is_dir():
                files = sorted(folder.rglob("*.swift"))
                found[folder.name] = (sum(len(f.read_text().splitlines()) for f in files), files)
    c_modules = {p.name for p in (ROOT / "Sources" / "C").iterdir() if p.is_dir()}
    known = set(found) | c_modules
    result = {}
    for name, (lines, files) in found.items():
        imports = set()
        for f in files:
            for match in re.finditer(r"^[ \t]*(?:@_?\w+(?:\([^)]*\))?[ \t]+)*import[ \t]+(?:(?:struct|class|enum|protocol|func|var|typealias)[ \t]+)?(\w+)", f.read_text(), re.MULTILINE):
                if match.group(1) in known and match.group(1) != name:
                    imports.add(match.group(1))
        result[name] = (lines, imports)
    return result


def tree_lines(text):
    """(line index, module, documented count) for each module line of the tree block."""
    block = re.search(r"```\nSources/\n(.*?)```", text, re.DOTALL)
    if not block:
        return []
    start = text[: block.start(1)].count("\n")
    rows = []
    for offset, line in enumerate(block.group(1).splitlines()):
        match = re.match(r"^    (\w+)\s.*?\s([\d,]+)\s*$", line)
        if match:
            rows.append((start + offset, match.group(1), int(match.group(2).replace(",", ""))))
    return rows


def table_rows(text):
    """Module -> set of project modules its "depends on" column names (the last column)."""
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^\| `(\w+)`(?: \([^)]*\))? \| .* \| (.*) \|$", line)
        if match:
            deps = re.sub(r"\[[^\]]*\]", "", match.group(2))
            rows[match.group(1)] = set(re.findall(r"`(\w+)`", deps))
    return rows


def main():
    write = "--write" in sys.argv[1:]
    code = modules()
    text = DOC.read_text()
    problems = []
    tree = tree_lines(text)
    in_tree = {name for _, name, _ in tree}
    lines = text.splitlines()
    for index, name, documented in tree:
        if name not in code:
            problems.append(f"tree: {name} is not a module under Sources/")
            continue
        actual = code[name][0]
        if write:
            old = lines[index]
            new = re.sub(r"[\d,]+(\s*)$", lambda m: f"{actual:,}{m.group(1)}", old)
            # Keep the numbers right-aligned: a longer number takes spaces from before it.
            grow = len(new) - len(old)
            cut = re.search(r" (\s*)[\d,]+\s*$", new)
            if grow > 0 and cut and len(cut.group(1)) >= grow:
                new = new[: cut.start(1)] + new[cut.start(1) + grow :]
            elif grow < 0 and cut:
                new = new[: cut.start(1)] + " " * -grow + new[cut.start(1) :]
            lines[index] = new
        elif abs(actual - documented) > max(SLACK, TOLERANCE * actual):
            problems.append(f"tree: {name} has {actual:,} lines; the doc says {documented:,} (scripts/check-architecture.py --write)")
    for name in sorted(set(code) - in_tree):
        problems.append(f"tree: {name} ({code[name][0]:,} lines) is missing")
    table = table_rows(text)
    for name in sorted(code):
        if name not in table:
            problems.append(f"table: no row for {name} (it imports {', '.join(sorted(code[name][1])) or 'no project module'})")
            continue
        imported, named = code[name][1], table[name]
        if imported != named:
            extra, missing = sorted(named - imported), sorted(imported - named)
            said = "; ".join(part for part in (f"imports {', '.join(missing)} too" if missing else "", f"does not import {', '.join(extra)}" if extra else "") if part)
            problems.append(f"table: {name} {said}")
    # Rows for test-only modules name their folder: | `TestPeers` (`Tests/Peers`) | ...
    test_modules = set(re.findall(r"^\| `(\w+)` \(`Tests/", text, re.MULTILINE))
    for name in sorted(set(table) - set(code)):
        if name not in test_modules and not (ROOT / "Sources" / "C" / name).is_dir():
            problems.append(f"table: {name} is not a module under Sources/")
    if write:
        for index, line in enumerate(lines):
            match = re.match(r"^(\| `(\w+)`(?: \([^)]*\))? \| .* \| )(.*)( \|)$", line)
            if match and match.group(2) in code:
                externals = re.findall(r"\[[^\]]*\]", match.group(3))
                named = [f"`{module}`" for module in sorted(code[match.group(2)][1])] + externals
                lines[index] = match.group(1) + (", ".join(named) or "-") + match.group(4)
        problems = [p for p in problems if not p.startswith("table: ") or "no row" in p or "is not a module" in p]
        DOC.write_text("\n".join(lines) + ("\n" if text.endswith("\n") else ""))
        problems = [p for p in problems if not p.startswith("tree: ") or "missing" in p or "is not a module" in p]
    for problem in problems:
        print(f"check-architecture: docs/architecture.md: {problem}")
    if problems:
        return 1
    print(f"check-architecture: docs/architecture.md matches the code ({len(code)} modules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
