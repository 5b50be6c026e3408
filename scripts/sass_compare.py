#!/usr/bin/env python3
"""Proves a refactoring of device code changed no instruction, without a GPU.

  scripts/sass_compare.py dump OUT_DIR OBJECT...   per-function SASS of the objects (cuobjdump)
  scripts/sass_compare.py compare BEFORE AFTER     compares two such dumps, function by function

A dump holds one file per (object, function). compare classes every function as
  identical     the same instructions, encodings and control words in the same order;
  reordered     the same multiset of instructions (opcodes and operands), scheduled differently
                (listed with the moved lines: a refactor that only moved an independent
                instruction is harmless, anything else must be explained);
  different     other instructions (listed with a diff);
  missing/new   a function on one side only.
Anonymous-namespace hashes in names (they follow the file's bytes) are normalised away.
Exit status: 0 when every function is identical or reordered, 1 otherwise, 2 on bad usage.
cuobjdump is taken from $FLASHSCOPE_CUOBJDUMP, ~/.cache/flashscope/tools (scripts/install-deps.sh)
or $PATH.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys

ANON = re.compile(r"_GLOBAL__N__[0-9a-f]+_[0-9]+_([A-Za-z0-9_]+?)_cu_[0-9a-f]+")
INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(.*?;)")


def cuobjdump():
    tools = os.environ.get("FLASHSCOPE_TOOLS_DIR", os.path.expanduser("~/.cache/flashscope/tools"))
    for candidate in (os.environ.get("FLASHSCOPE_CUOBJDUMP"),
                      os.path.join(tools, "nvidia/cu13/bin/cuobjdump"), shutil.which("cuobjdump")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("sass_compare: no cuobjdump (run scripts/install-deps.sh or set FLASHSCOPE_CUOBJDUMP)")


def dump(out_dir, objects):
    os.makedirs(out_dir, exist_ok=True)
    tool = cuobjdump()
    count = 0
    for obj in objects:
        text = subprocess.run([tool, "-sass", obj], check=True, capture_output=True,
                              text=True).stdout
        stem = os.path.basename(obj).split(".")[0]
        for chunk in text.split("Function : ")[1:]:
            name, body = chunk.split("\n", 1)
            name = ANON.sub(r"_GLOBAL__N__\1", name.strip())
            with open(os.path.join(out_dir, f"{stem}__{name}.sass"), "w") as f:
                f.write(body)
            count += 1
    print(f"{count} functions from {len(objects)} objects in {out_dir}")


def instructions(lines):
    return [m.group(1) for m in map(INSTRUCTION.match, lines) if m]


def compare(before, after):
    b, a = set(os.listdir(before)), set(os.listdir(after))
    tally = {"identical": 0, "reordered": 0, "different": 0, "missing": 0, "new": 0}
    for name in sorted(b | a):
        if name not in a or name not in b:
            kind = "missing" if name not in a else "new"
            tally[kind] += 1
            print(f"{kind.upper()}: {name}")
            continue
        with open(os.path.join(before, name)) as f:
            old = f.read().splitlines()
        with open(os.path.join(after, name)) as f:
            new = f.read().splitlines()
        if old == new:
            tally["identical"] += 1
            continue
        oi, ni = instructions(old), instructions(new)
        kind = "reordered" if sorted(oi) == sorted(ni) else "different"
        tally[kind] += 1
        print(f"{kind.upper()}: {name}")
        for line in difflib.unified_diff(oi, ni, "before", "after", n=1, lineterm=""):
            print("    " + line)
    print(", ".join(f"{v} {k}" for k, v in tally.items()) + f" (of {len(b | a)} functions)")
    return 0 if tally["different"] + tally["missing"] + tally["new"] == 0 else 1


def main(argv):
    if len(argv) >= 4 and argv[1] == "dump":
        dump(argv[2], argv[3:])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
