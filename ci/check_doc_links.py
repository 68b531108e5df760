#!/usr/bin/env python3
"""Checks that every relative link of README.md and docs/*.md resolves: the file (or directory)
exists and, for a link with #anchor into a Markdown file, a heading of that file has that anchor
(GitHub's rule: lower case, punctuation dropped, spaces to hyphens). Prints each broken link as
FILE:LINE: TARGET and exits 1 if there is one.  Usage: check_doc_links.py REPOSITORY

With --sources, the comments of the sources instead (C and C++ `//` and `/* */`, and `#` in
CMake, shell and Python files): every docs/NAME.md they cite exists, and so does its #anchor.
Usage: check_doc_links.py --sources REPOSITORY"""
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchors_of(path):
    anchors, seen = set(), {}
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                in_fence = not in_fence
            if in_fence or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip()
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def broken_links(path):
    base = os.path.dirname(path)
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
            if in_fence:
                continue
            # Inline code is not a link.
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                    continue
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(base, file_part)) if file_part else path
                if not os.path.exists(resolved):
                    yield number, target
                elif anchor and resolved.endswith(".md") and anchor not in anchors_of(resolved):
                    yield number, target


CITED = re.compile(r"\bdocs/([\w./-]+?\.md)(#[\w-]+)?")
C_LIKE = (".c", ".h", ".cpp", ".hpp", ".js")
HASH_COMMENTS = (".cmake", ".sh", ".py", "CMakeLists.txt")


def comments(path):
    """(line number, comment text) of a source file's comments."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    in_block = False
    for number, line in enumerate(lines, 1):
        if path.endswith(C_LIKE):
            if in_block:
                end = line.find("*/")
                yield number, line if end == -1 else line[:end]
                in_block = end == -1
                continue
            for marker in ("//", "/*"):
                at = line.find(marker)
                if at != -1:
                    yield number, line[at:]
                    in_block = marker == "/*" and "*/" not in line[at:]
                    break
        else:  # a # outside quotes
            quotes = ""
            for at, c in enumerate(line):
                if c in "'\"" and (not quotes or quotes[-1] == c):
                    quotes = quotes[:-1] if quotes else c
                elif c == "#" and not quotes:
                    yield number, line[at:]
                    break


def source_files(repo):
    for root, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not d.startswith("build")
                         and d != "node_modules")
        for n in sorted(names):
            if n.endswith(C_LIKE + HASH_COMMENTS):
                yield os.path.join(root, n)


def check_sources(repo):
    bad = checked = 0
    for path in source_files(repo):
        for number, text in comments(path):
            for name, anchor in CITED.findall(text):
                checked += 1
                cited = os.path.join(repo, "docs", name)
                if not os.path.isfile(cited) or anchor and anchor[1:] not in anchors_of(cited):
                    print(f"{os.path.relpath(path, repo)}:{number}: docs/{name}{anchor}")
                    bad += 1
    print(f"{checked} citations of docs/ in the sources' comments checked, {bad} broken")
    return 1 if bad else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--sources":
        return check_sources(sys.argv[2])
    repo = sys.argv[1] if len(sys.argv) > 1 else "."
    docs = os.path.join(repo, "docs")
    files = [os.path.join(repo, "README.md")]
    for root, _, names in os.walk(docs):
        files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".md")]
    bad = 0
    for path in files:
        for number, target in broken_links(path):
            print(f"{os.path.relpath(path, repo)}:{number}: {target}")
            bad += 1
    print(f"{len(files)} files checked, {bad} broken links")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
