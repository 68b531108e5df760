#!/usr/bin/env python3
"""Checks that every relative link of README.md and docs/*.md resolves: the file (or directory)
exists and, for a link with #anchor into a Markdown file, a heading of that file has that anchor
(GitHub's rule: lower case, punctuation dropped, spaces to hyphens). Prints each broken link as
FILE:LINE: TARGET and exits 1 if there is one.  Usage: check_doc_links.py REPOSITORY"""
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


def main():
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
