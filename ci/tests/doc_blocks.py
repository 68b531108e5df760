#!/usr/bin/env python3
"""The fenced blocks of a documentation page, by kind, for the docs tests (ci/tests/docs_test.sh).

Usage: doc_blocks.py PAGE OUTDIR

Every fenced block of PAGE must say what it is, as its info string:
  sh          commands the test runs, in page order, in one shell (run.sh)
  sh setup    installing and building: the build under test stands for them (setup.sh)
  sh install  installing the build under test: run in a private /opt (install.sh)
  sh ompi5    commands inside the Debian 13 root of ci/ompi5.sh (ompi5.sh: syntax-checked)
  text        a synopsis or output, not commands
Writes OUTDIR/KIND.sh (the blocks of a kind joined) and prints the counts; exits 1 on a block of
another kind or none, naming the page and line.
"""
import re
import sys

KINDS = {"sh": "run", "sh setup": "setup", "sh install": "install", "sh ompi5": "ompi5", "text": None}


def main(page, outdir):
    lines = open(page, encoding="utf-8").read().split("\n")
    blocks = {name: [] for name in KINDS.values() if name}
    in_block, kind, body = False, None, []
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^\s*```(.*)$", line)
        if fence and not in_block:
            info = fence.group(1).strip()
            if info not in KINDS:
                sys.exit(f"FAIL: {page}:{number}: a block of kind '{info}': only {', '.join(repr(k) for k in KINDS)}")
            in_block, kind, body = True, KINDS[info], []
        elif fence:
            if kind:
                blocks[kind].append("\n".join(body))
            in_block = False
        elif in_block:
            body.append(line)
    if in_block:
        sys.exit(f"FAIL: {page}: a block is not closed")
    for name, bodies in blocks.items():
        with open(f"{outdir}/{name}.sh", "w", encoding="utf-8") as out:
            out.write("\n".join(bodies) + "\n")
    print(", ".join(f"{len(b)} {name}" for name, b in blocks.items()) + f" block(s) in {page}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
