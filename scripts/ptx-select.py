#!/usr/bin/env python3
"""Copies a PTX module keeping only the kernels (entries) whose names match a
regex, optionally capping registers per kernel with `.maxnreg`. Everything
that is not an entry (header, globals, shared declarations, .func helpers)
is kept. ptxas on the result takes seconds instead of the minutes the
whole module needs, so register caps and kernel variants can be compared
(registers and spills locally with `ptxas -v`, speed on the GPU with a
bench's `--module`).

Usage: scripts/ptx-select.py IN.ptx OUT.ptx REGEX [NAME_REGEX=MAXNREG ...]
"""
import re
import sys


def split_entries(text):
    """Yields (name or None, chunk): entries with their bodies, and the text
    between them."""
    pos = 0
    for m in re.finditer(r"^(\.visible |\.weak )?\.entry (\w+)\(", text, re.M):
        if m.start() < pos:
            continue
        yield None, text[pos:m.start()]
        # LLVM puts a `// .globl` line before every function; an entry runs
        # up to the next one (its body may hold inline-asm braces).
        nxt = text.find("\t// .globl", m.end())
        end = len(text) if nxt < 0 else nxt
        yield m.group(2), text[m.start():end]
        pos = end
    yield None, text[pos:]


def cap_registers(entry, limit):
    """Puts `.maxnreg` between the parameter list and the body."""
    head, brace, body = entry.partition("\n{\n")
    head = re.sub(r"\n\.maxnreg \d+", "", head)
    cap = f"\n.maxnreg {limit}" if limit else ""  # 0: no cap
    return f"{head}{cap}{brace}{body}"


def main():
    src, dst, keep = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
    caps = [(re.compile(k), int(v)) for k, v in (a.split("=") for a in sys.argv[4:])]
    out, kept = [], []
    for name, chunk in split_entries(open(src).read()):
        if name is None:
            out.append(chunk)
        elif keep.search(name):
            for pattern, limit in caps:
                if pattern.search(name):
                    chunk = cap_registers(chunk, limit)
            out.append(chunk)
            kept.append(name)
    open(dst, "w").write("".join(out))
    print(f"{dst}: {len(kept)} kernels: {' '.join(kept)}", file=sys.stderr)


if __name__ == "__main__":
    main()
