#!/usr/bin/env python3
"""The figures of the results READMEs, generated from the committed data.

A README marks each generated figure, inline or a whole table, between two HTML comments (which
Markdown does not show):

    the synthetic runs <!-- figure decide-repeats -->two<!-- /figure --> each

and the script that summarises its folder's data (FOLDERS: the folder's script, relative to
results/) computes every figure's text from the committed files alone, in a function
readme_figures(folder) -> {name: text}. So a number typed into a README cannot drift from its data:
the CTest test results.readme_figures (label repository) runs `readme_figures.py --check`, and the
summarising scripts rewrite their README's figures when they run (write(folder, figures)).

Usage: readme_figures.py [--check | --write] [FOLDER...]   (FOLDER: e.g. reorder, placement/simulated;
default: all of FOLDERS)
  --check (default)  exit 1 naming every figure whose text differs from the computed one, every
                     figure the README marks that no script computes and every computed figure the
                     README does not show; nothing is written
  --write            rewrite the READMEs' figures with the computed texts (names checked as above)
"""
import difflib
import importlib.util
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))

# Each results folder whose README has generated figures, and the script that computes them.
FOLDERS = {
    "reorder": "reorder/plot.py",
    "placement/simulated": "placement/simulated/summarise.py",
    "placement/measured": "placement/measured/summarise.py",
    "ompi-versions": "ompi-versions/summarise.py",
}

MARKED = re.compile(r"<!-- figure ([a-z0-9.-]+) -->(.*?)<!-- /figure -->", re.S)


def load(script):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(script))[0] + "_figures",
                                                  os.path.join(here, script))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def computed(folder):
    return load(FOLDERS[folder]).readme_figures(os.path.join(here, folder))


def problems(text, figures, readme):
    """What differs between the README's marked figures and the computed ones, one line each."""
    out, seen = [], set()
    for m in MARKED.finditer(text):
        name, shown = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        seen.add(name)  # a figure may be shown more than once: every place is checked
        if name not in figures:
            out.append(f"{readme}:{line}: figure {name} is computed by no script")
        elif shown != figures[name] and "\n" in shown + figures[name]:
            diff = difflib.unified_diff(shown.split("\n"), figures[name].split("\n"), "README", "data", lineterm="", n=0)
            out.append(f"{readme}:{line}: figure {name} differs from the data:\n" + "\n".join(list(diff)[2:]))
        elif shown != figures[name]:
            out.append(f"{readme}:{line}: figure {name} shows [{shown}], the data give [{figures[name]}]")
    for name in figures:
        if name not in seen:
            out.append(f"{readme}: figure {name} is computed but not shown (no <!-- figure {name} --> marker)")
    return out


def filled(text, figures):
    return MARKED.sub(lambda m: f"<!-- figure {m.group(1)} -->{figures.get(m.group(1), m.group(2))}<!-- /figure -->",
                      text)


def write(folder, figures):
    """Rewrites the figures of FOLDER/README.md (called by the summarising scripts); returns the
    problems left (names marked but not computed, or computed but not marked)."""
    readme = os.path.join(folder, "README.md")
    text = filled(open(readme, encoding="utf-8").read(), figures)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(text)
    return problems(text, figures, readme)


def main(args):
    mode = "--check"
    if args and args[0] in ("--check", "--write"):
        mode, args = args[0], args[1:]
    if any(a.startswith("-") for a in args):
        sys.exit(__doc__)
    unknown = [a for a in args if a not in FOLDERS]
    if unknown:
        sys.exit(f"readme_figures.py: no generated figures in results/{unknown[0]} (folders: {', '.join(FOLDERS)})")
    found = []
    for folder in args or FOLDERS:
        figures = computed(folder)
        readme = os.path.join(here, folder, "README.md")
        if mode == "--write":
            found += write(os.path.join(here, folder), figures)
        else:
            found += problems(open(readme, encoding="utf-8").read(), figures, os.path.relpath(readme, here + "/.."))
        print(f"readme_figures: results/{folder}/README.md: {len(figures)} figures")
    for p in found:
        print("FAIL: " + p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
