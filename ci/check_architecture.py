#!/usr/bin/env python3
"""The claims of docs/architecture.md that a script can check in the sources (the arrows between
targets are ci/check_arrows.py's):

  json     Only the folder the page names for mpimon::json includes nlohmann-json itself; and no
           C/C++ source writes JSON by hand (a string holding `\\"key\\": ` followed by a printf
           conversion or a `<<`) unless the page's JSON paragraph names it as an exception, nor
           does the page name one that no longer does.
  formats  Every writer and reader the page's table of formats names (a C++ name in backquotes)
           is defined under the folder of its row's owner; a row whose writer and reader are
           defined under different top-level folders must say "two places".

Usage: check_architecture.py (json|formats) REPOSITORY [PAGE]
PAGE defaults to REPOSITORY/docs/architecture.md. Prints one line per problem; exits 1 if any."""

import os
import re
import subprocess
import sys

SOURCE_SUFFIXES = (".c", ".h", ".cpp", ".hpp")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def sources(repo):
    """The C and C++ files of the repository (git's list when it is a clone, else a walk), tests
    and build trees left out, as paths relative to the root."""
    try:
        listed = subprocess.run(["git", "-C", repo, "ls-files", "--cached", "--others", "--exclude-standard"],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        listed = []
        for root, dirs, files in os.walk(repo):
            dirs[:] = [d for d in dirs if not d.startswith(".") and not d.startswith("build")]
            listed += [os.path.relpath(os.path.join(root, f), repo) for f in files]
    return sorted(p for p in listed if p.endswith(SOURCE_SUFFIXES) and "/tests/" not in "/" + p
                  and os.path.isfile(os.path.join(repo, p)))


def read(repo, path):
    with open(os.path.join(repo, path), encoding="utf-8", errors="replace") as f:
        return f.read()


def section(page, title):
    """The lines under the heading `## title`, up to the next heading of that level."""
    lines, inside = [], False
    for line in open(page, encoding="utf-8"):
        if line.startswith("## "):
            inside = line[3:].strip() == title
            continue
        if inside:
            lines.append(line.rstrip("\n"))
    return lines


def paragraphs(lines):
    text, out = [], []
    for line in lines + [""]:
        if line.strip():
            text.append(line.strip())
        elif text:
            out.append(" ".join(text))
            text = []
    return out


# ---- json ----------------------------------------------------------------------------------------

NLOHMANN = re.compile(r'^\s*#\s*include\s*[<"]nlohmann/', re.M)
BY_HAND = re.compile(r'\\"\w+\\":\s*(%|"\s*<<)')
EXCEPTIONS = "written by hand, not through it:"


def json_folder(page):
    """The folder the page's drawing gives mpimon::json ("analysis/base/json")."""
    for line in section(page, "The libraries and what they depend on"):
        m = re.match(r"^(?:layer \d|MPI)?\s+(\S+)\s+mpimon::json:", line)
        if m:
            return m.group(1).rstrip("/")
    return None


def json_exceptions(page):
    """The files the Formats section names as writing JSON by hand."""
    for p in paragraphs(section(page, "Formats")):
        if EXCEPTIONS in p:
            return set(re.findall(r"`([^`]+\.(?:c|h|cpp|hpp))`", p.split(EXCEPTIONS, 1)[1]))
    return set()


def check_json(repo, page):
    problems = []
    folder = json_folder(page)
    if folder is None:
        return ["the page's drawing gives no folder for mpimon::json"]
    by_hand = set()
    for path in sources(repo):
        text = read(repo, path)
        if NLOHMANN.search(text) and not path.startswith(folder + "/"):
            problems.append(f"{path}: includes nlohmann-json itself (only {folder}/ may: mpimon/json.hpp)")
        if BY_HAND.search(text):
            by_hand.add(path)
    named = json_exceptions(page)
    for path in sorted(by_hand - named):
        problems.append(f"{path}: writes JSON by hand (printf or <<), not through mpimon/json.hpp")
    for path in sorted(named - by_hand):
        problems.append(f"{path}: the page says it writes JSON by hand; it does not (remove it from the page)")
    return problems


# ---- formats -------------------------------------------------------------------------------------

def format_rows(page):
    """[(line, format, owners, writers, readers)] from the table under "## Formats"."""
    rows = []
    for number, line in enumerate(section(page, "Formats"), 1):
        if not line.startswith("| ") or line.startswith("| format ") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 4:
            rows.append((line, None, [], [], []))
            continue

        def names(cell):
            return [n for n in re.findall(r"`([^`]+)`", cell) if IDENTIFIER.match(n)]

        owners = [o.rstrip("/") for o in re.findall(r"`([^`]+)`", cells[1])]
        rows.append((line, cells[0], owners, names(cells[2]), names(cells[3])))
    return rows


def definitions(repo, files, name):
    """The files among `files` that define `name`: a function whose body follows its declarator
    (a `{` before any `;`), or a class or struct."""
    found = []
    declarator = re.compile(r"^[A-Za-z_][^;{}()]*\b" + re.escape(name) + r"\(", re.M)
    kind = re.compile(r"^\s*(?:class|struct)\s+" + re.escape(name) + r"\b[^;]*\{", re.M)
    for path in files:
        text = read(repo, path)
        if kind.search(text):
            found.append(path)
            continue
        for m in declarator.finditer(text):
            rest = text[m.end():]
            body, end = rest.find("{"), rest.find(";")
            if body != -1 and (end == -1 or body < end):
                found.append(path)
                break
    return found


def check_formats(repo, page):
    problems = []
    rows = format_rows(page)
    if not rows:
        return ["the page has no table of formats under '## Formats'"]
    files = sources(repo)
    for line, name, owners, writers, readers in rows:
        if name is None:
            problems.append(f"a row of the formats table with fewer than 4 cells: {line}")
            continue
        if not owners:
            problems.append(f"{name}: no owner folder in backquotes")
            continue
        tops = set()
        for role, names in (("writer", writers), ("reader", readers)):
            for n in names:
                where = definitions(repo, files, n)
                if not where:
                    problems.append(f"{name}: {role} {n} is defined nowhere")
                    continue
                inside = [w for w in where if any(w.startswith(o + "/") for o in owners)]
                if not inside:
                    problems.append(f"{name}: {role} {n} is defined in {', '.join(where)}, not under "
                                    f"{' or '.join(o + '/' for o in owners)}")
                    continue
                tops.add(next(o for o in owners if inside[0].startswith(o + "/")))
        if len(tops) > 1 and "two places" not in line:
            problems.append(f"{name}: writer and reader under {' and '.join(sorted(tops))}: one owner, or say "
                            f"\"two places\"")
    return problems


def main(argv):
    if len(argv) not in (3, 4) or argv[1] not in ("json", "formats"):
        sys.exit(__doc__)
    repo = argv[2]
    page = argv[3] if len(argv) == 4 else os.path.join(repo, "docs", "architecture.md")
    problems = check_json(repo, page) if argv[1] == "json" else check_formats(repo, page)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"docs/architecture.md's {argv[1]} claims hold")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
