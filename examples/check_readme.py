#!/usr/bin/env python3
"""Checks that README.md shows every example program verbatim, and no C++ that is not one.

Each C++ block of the README must follow a line `<!-- example: examples/<name>.cpp -->` and
equal that file; every examples/*.cpp must be shown. --self-test checks that the check fails
on a README that drifted (an edited example, a hidden example, an unchecked C++ block).
"""
import argparse
import pathlib
import re
import sys

MARKER = re.compile(r"<!-- example: (examples/[\w.-]+\.cpp) -->")
CXX_FENCES = {"```c++", "```cpp"}


def problems(readme: str, examples: dict[str, str]) -> list[str]:
    """What is wrong with the README's C++ blocks, given {"examples/x.cpp": text}."""
    found = []
    shown = set()
    lines = readme.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if lines[i].rstrip() not in CXX_FENCES:
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"), None)
        if end is None:
            found.append(f"README.md:{i + 1}: a C++ block that is never closed; add the closing ```")
            break
        block = "".join(lines[i + 1:end])
        marker = MARKER.fullmatch(lines[i - 1].strip()) if i > 0 else None
        if marker is None:
            found.append(f"README.md:{i + 1}: a C++ block that is not an example program; put it in "
                         "examples/<name>.cpp and the line `<!-- example: examples/<name>.cpp -->` above it")
        else:
            name = marker.group(1)
            shown.add(name)
            if name not in examples:
                found.append(f"README.md:{i}: names {name}, which does not exist; add it or fix the name")
            elif examples[name] != block:
                found.append(f"README.md:{i + 1}: differs from {name}; copy the file into the README")
        i = end + 1
    for name in sorted(set(examples) - shown):
        found.append(f"{name} is not shown in README.md; add it under a line `<!-- example: {name} -->`")
    return found


def drifted_readmes(readme: str, examples: dict[str, str]):
    """(what changed, README, examples) triples that the check must refuse."""
    name, text = sorted(examples.items())[0]
    yield "an example edited", readme, {**examples, name: text + "// edited\n"}
    yield "an example not shown", readme.replace(f"<!-- example: {name} -->", ""), examples
    yield "an unchecked C++ block", readme + "\n```c++\nint main() {}\n```\n", examples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", type=pathlib.Path, required=True)
    parser.add_argument("--examples", type=pathlib.Path, required=True, help="the examples/ directory")
    parser.add_argument("--self-test", action="store_true", help="check that drift is detected")
    args = parser.parse_args()

    readme = args.readme.read_text()
    examples = {f"examples/{p.name}": p.read_text() for p in sorted(args.examples.glob("*.cpp"))}
    if not examples:
        print(f"check_readme: no *.cpp under {args.examples}; pass the examples/ directory", file=sys.stderr)
        return 2

    if args.self_test:
        missed = [what for what, r, e in drifted_readmes(readme, examples) if not problems(r, e)]
        for what in missed:
            print(f"check_readme: self-test: {what} was not detected", file=sys.stderr)
        return 1 if missed else 0

    found = problems(readme, examples)
    for p in found:
        print(p, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
