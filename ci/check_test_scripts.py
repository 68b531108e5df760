#!/usr/bin/env python3
"""Checks that every check of the test scripts goes through one counter (cli/tests/test_lib.sh).

A test script's verdict rests on two counts: the checks made and the failures found. skip_test
refuses to skip once anything was checked, which it can only know if every check is counted, the
ones that pass too. test_lib.sh's expect_* count themselves; a plain condition that calls `fail`
is counted by starting it with `check &&`:

    check && [ -s out.h5 ] || fail "no output"
    check && grep -q "wrote" log || fail "no summary line: $(cat log)"
    if check && grep -qi nan <<<"$out"; then fail "NaN printed: $out"; fi

This finds every call of `fail` at command position (heredoc bodies, quoted strings and comments
are skipped) and the condition that leads to it: the and-or list before `|| fail` / `&& fail`
(also `|| { ...; fail ...; }`), or the `if`/`elif` whose branch calls it. A condition that does not
start with `check &&` is reported FILE:LINE; with --fix it is prefixed with `check && `.

Usage: check_test_scripts.py [--fix] SCRIPT...
Exit: 0 every fail is counted, 1 some are not (each printed; none left with --fix), 2 usage.
"""

import re
import sys

OPERATORS = ("||", "&&", ";;", ";", "|", "&", "(", ")", "\n")
OPENERS = {"if", "then", "else", "elif", "do", "while", "until", "{", "!", "time"}
CLOSERS = {"fi": ("if",), "done": ("while", "until", "for", "select"), "esac": ("case",), "}": ("{",),
           ")": ("(",)}


class Token:
    def __init__(self, text, start, line):
        self.text, self.start, self.line = text, start, line

    def __repr__(self):
        return repr(self.text)


def skip_quoted(src, i):
    """The index after the quoted or substituted span starting at src[i]."""
    c = src[i]
    if c == "'":
        return src.index("'", i + 1) + 1
    if c == '"':
        i += 1
        while src[i] != '"':
            if src[i] == "\\":
                i += 2
            elif src.startswith("$(", i) or src[i] == "`":
                i = skip_quoted(src, i)
            else:
                i += 1
        return i + 1
    if c == "`":
        return src.index("`", i + 1) + 1
    if src.startswith("$((", i) or src.startswith("$(", i) or src.startswith("${", i) or src.startswith("$[", i):
        close = {"(": ")", "{": "}", "[": "]"}[src[i + 1]]
        opening, depth, i = src[i + 1], 1, i + 2
        while depth:
            if src[i] in "'\"`" or (src[i] == "$" and src[i + 1:i + 2] in ("(", "{")):
                i = skip_quoted(src, i)
                continue
            if src[i] == "\\":
                i += 2
                continue
            if src[i] == opening:
                depth += 1
            elif src[i] == close:
                depth -= 1
            i += 1
        return i
    raise ValueError(f"not a quote at {i}")


def tokens(src):
    """Words and operators of a shell script, with their offsets; comments and heredoc bodies out."""
    out, i, line, heredocs = [], 0, 1, []
    at_word_start, pending_heredoc = True, False
    while i < len(src):
        c = src[i]
        if c == "\\" and src[i + 1:i + 2] == "\n":
            i, line = i + 2, line + 1
            continue
        if c in " \t":
            i += 1
            at_word_start = True
            continue
        if c == "#" and at_word_start:
            i = src.find("\n", i)
            i = len(src) if i < 0 else i
            continue
        if c == "\n":
            out.append(Token("\n", i, line))
            i, line = i + 1, line + 1
            for delimiter in heredocs:  # the bodies of the heredocs opened on that line
                end = re.compile(r"^\t*" + re.escape(delimiter) + r"$", re.M).search(src, i)
                if not end:
                    raise ValueError(f"line {line}: heredoc {delimiter} never ends")
                line += src.count("\n", i, end.end()) + 1
                i = end.end() + 1
            heredocs = []
            at_word_start = True
            continue
        operator = next((op for op in OPERATORS if src.startswith(op, i)), None)
        if operator and not src.startswith("&>", i):
            out.append(Token(operator, i, line))
            i += len(operator)
            at_word_start = True
            continue
        start = i
        while i < len(src):
            ch, following = src[i], src[i + 1:i + 2]
            if ch in "'\"`" or (ch == "$" and following and following in "({["):
                i = skip_quoted(src, i)
            elif ch in "<>" and following == "(":  # process substitution
                i = _skip_process(src, i)
            elif (ch in "<>" and following == "&") or (ch == "&" and following == ">"):  # 2>&1, &>file
                i += 2
            elif ch == "\\":
                i += 2
            elif ch in " \t\n;&|()":
                break
            else:
                i += 1
        word = src[start:i]
        if pending_heredoc:
            heredocs.append(word.strip("'\""))
            pending_heredoc = False
        elif word in ("<<", "<<-"):
            pending_heredoc = True
        elif re.fullmatch(r"\d*<<-?(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", word):
            heredocs.append(re.fullmatch(r"\d*<<-?(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", word).group(2))
        elif re.match(r"\d*<<(?!<)", word):
            raise ValueError(f"line {line}: heredoc not understood: {word}")
        out.append(Token(word, start, line))
        at_word_start = False
    return out


def _skip_process(src, i):
    depth, i = 1, i + 2
    while depth:
        if src[i] in "'\"`" or (src[i] == "$" and src[i + 1:i + 2] in ("(", "{")):
            i = skip_quoted(src, i)
            continue
        depth += {"(": 1, ")": -1}.get(src[i], 0)
        i += 1
    return i


def command_positions(toks):
    """Indices of the tokens at command position."""
    at_command = True
    for k, t in enumerate(toks):
        if t.text in OPERATORS:
            at_command = t.text != ")"
            continue
        if at_command:
            yield k
            at_command = t.text in OPENERS or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", t.text) is not None
            if t.text in ("for", "case", "select"):
                at_command = False


def list_start(toks, k):
    """The index of the first token of the and-or list that ends just before toks[k]."""
    j = k - 1
    while j >= 0:
        t = toks[j].text
        if t in CLOSERS:  # a compound command: skip it whole
            depth, openers = 1, CLOSERS[t]
            j -= 1
            while j >= 0 and depth:
                if toks[j].text == t:
                    depth += 1
                elif toks[j].text in openers:
                    depth -= 1
                j -= 1
            continue
        if t in (";", ";;", "&", "(") or t in ("then", "do", "else", "elif", "if", "while", "until", "{"):
            return j + 1
        if t == "\n" and (j == 0 or toks[j - 1].text not in ("||", "&&", "|")):
            return j + 1
        j -= 1
    return 0


def enclosing_condition(toks, k):
    """For a fail in the branch of an if, the index of the first token of its condition, else None."""
    j, depth = k - 1, 0
    while j >= 0:
        t = toks[j].text
        if t in CLOSERS:
            depth += 1
        elif t in ("if", "while", "until", "for", "select", "case", "{", "(") and depth:
            depth -= 1
        elif depth == 0 and t in ("then", "else"):
            # back to the if or elif of this branch
            m = j - 1
            inner = 0
            while m >= 0:
                u = toks[m].text
                if u in CLOSERS:
                    inner += 1
                elif u in ("if", "while", "until", "for", "select", "case", "{", "(") and inner:
                    inner -= 1
                elif inner == 0 and u in ("if", "elif"):
                    if t == "then" or u == "if":
                        return m + 1
                m -= 1
            return None
        elif depth == 0 and t in ("{", "(", "do"):
            return None
        j -= 1
    return None


def guard(toks, k):
    """The index where the condition leading to the fail at toks[k] starts, or None."""
    j = k - 1
    while j >= 0 and toks[j].text in ("\n",):
        j -= 1
    if j >= 0 and toks[j].text in ("||", "&&"):
        return list_start(toks, j)
    # inside `{ ...; fail ...; }` or `( ... )` after || or &&
    depth, m = 0, k - 1
    while m >= 0:
        t = toks[m].text
        if t in ("}", ")"):
            depth += 1
        elif t in ("{", "(") and depth:
            depth -= 1
        elif t in ("{", "(") and depth == 0:
            n = m - 1
            while n >= 0 and toks[n].text == "\n":
                n -= 1
            if n >= 0 and toks[n].text in ("||", "&&"):
                return list_start(toks, n)
            break
        elif t in ("then", "else", "do", "fi", "done") and depth == 0:
            break
        m -= 1
    return enclosing_condition(toks, k)


def unguarded(src):
    """(line, insertion offset or None) of each fail whose condition does not start with check &&."""
    toks = tokens(src)
    found = []
    for k in command_positions(toks):
        if toks[k].text == "check" and k + 1 < len(toks) and toks[k + 1].text == "(":
            found.append((toks[k].line, None))  # a function of the script's own would hide the counter
            continue
        if toks[k].text != "fail" or (k + 1 < len(toks) and toks[k + 1].text == "("):  # not fail() itself
            continue
        g = guard(toks, k)
        if g is None:
            found.append((toks[k].line, None))
        elif not (toks[g].text == "check" and g + 1 < len(toks) and toks[g + 1].text == "&&"):
            found.append((toks[g].line, toks[g].start))
    return found


def main(argv):
    fix = argv[1:2] == ["--fix"]
    paths = argv[2:] if fix else argv[1:]
    if not paths:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    bad = 0
    for path in paths:
        src = open(path, encoding="utf-8").read()
        try:
            found = unguarded(src)
        except (ValueError, IndexError) as e:
            print(f"{path}: cannot be read as a shell script: {e}")
            bad += 1
            continue
        if fix:
            for offset in sorted({o for _, o in found if o is not None}, reverse=True):
                src = src[:offset] + "check && " + src[offset:]
            open(path, "w", encoding="utf-8").write(src)
            found = [f for f in found if f[1] is None]
        for line, offset in found:
            why = ("a fail no condition leads to, or a function named check (test_lib.sh's counter)" if offset is None
                   else "a condition not counted (start it with check &&)")
            print(f"{path}:{line}: {why}")
        bad += len(found)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
