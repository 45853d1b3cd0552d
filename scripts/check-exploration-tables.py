#!/usr/bin/env python3
"""Checks docs/exploration.md's two tables of first finds against what `mutants --explore` prints now.

    check-exploration-tables.py DOC TEN_THOUSAND.txt RANDOM_300.txt GUIDED_300.txt [GUIDED_PROCESS_300.txt]

TEN_THOUSAND.txt is the output of `session-conformance mutants --jobs 2 --explore 10000`, RANDOM_300.txt and
GUIDED_300.txt of `... --explore 300 --strategy random|guided`. The first run that finds a variant depends only on
the seed and the generator, never on the build or the machine, so every figure must match exactly: a generator
change that moves one fails CI until the tables are measured again. The summary sentence under the second table
(found counts and total runs) is checked too. GUIDED_PROCESS_300.txt, the output of `... --strategy guided
--connection process`, explores each variant through the reference adapter's process: its first finds must be the
guided column's, as the doc says. Exits 1 with every difference listed.
"""
import re
import sys


def finds(path):
    """variant -> first run (None when not found), from a `mutants --explore` table."""
    found = {}
    for line in open(path, encoding="utf-8"):
        match = re.match(r"^(\S+)\s+(?:defect|port)\s+\S+\s+\S+\s+(?:run (\d+)|NO)\b", line)
        if match:
            found[match.group(1)] = int(match.group(2)) if match.group(2) else None
    if not found:
        sys.exit(f"{path}: no variant rows: is this the output of mutants --explore?")
    return found


def cell(value):
    return "not found" if value is None else str(value)


def number(value):
    return f"{value:,}"


def main():
    doc_path, ten_thousand_path, random_path, guided_path = sys.argv[1:5]
    doc = open(doc_path, encoding="utf-8").read()
    ten_thousand, random_, guided = finds(ten_thousand_path), finds(random_path), finds(guided_path)
    problems = []
    if len(sys.argv) > 5:
        through_process = finds(sys.argv[5])
        for variant in sorted(set(guided) | set(through_process)):
            if through_process.get(variant, "missing") != guided.get(variant, "missing"):
                problems.append(f"guided through the adapter process: {variant} first found at "
                                f"{cell(through_process.get(variant))}, in-process at {cell(guided.get(variant))}")

    # The 10,000-run table: two variants per row, the last row's right half empty when their number is odd.
    documented = {}
    for match in re.finditer(r"^\| (\S+) \| (\d+) \| (?:(\S+) \| (\d+)|\s*\|\s*) \|$", doc, re.M):
        documented[match.group(1)] = int(match.group(2))
        if match.group(3):
            documented[match.group(3)] = int(match.group(4))
    for variant, run in sorted(ten_thousand.items()):
        if variant not in documented:
            problems.append(f"first-run table: {variant} is missing (now {cell(run)})")
        elif documented[variant] != run:
            problems.append(f"first-run table: {variant} says {documented[variant]}, mutants says {cell(run)}")

    # The random-versus-guided table at 300 runs.
    compared = {m.group(1): (m.group(2), m.group(3))
                for m in re.finditer(r"^\| (\S+) \| (\d+|not found) \| (\d+|not found) \|$", doc, re.M)}
    for variant in sorted(random_):
        now = (cell(random_[variant]), cell(guided.get(variant)))
        if compared.get(variant) != now:
            problems.append(f"random/guided table: {variant} says {compared.get(variant)}, mutants says {now}")

    both = [v for v in random_ if random_[v] is not None and guided.get(v) is not None]
    figures = {
        "random found": f"random search found {sum(1 for v in random_.values() if v is not None)} of the {len(random_)} variants",
        "guided found": f"guided search {sum(1 for v in guided.values() if v is not None)}.",
        "runs to the first find": f"the first find total {number(sum(random_[v] for v in both))} random and "
                                  f"{number(sum(guided[v] for v in both))} guided",
        "order": f"(guided first for {sum(1 for v in both if guided[v] < random_[v])}, "
                 f"later for {sum(1 for v in both if guided[v] > random_[v])}:",
        "totals": f"the totals are {number(sum(300 if v is None else v for v in random_.values()))}\n"
                  f"random and {number(sum(300 if v is None else v for v in guided.values()))} guided.",
    }
    flat = " ".join(doc.split())
    for name, text in figures.items():
        if " ".join(text.split()) not in flat:
            problems.append(f"summary ({name}): the doc should say \"{' '.join(text.split())}\"")

    if problems:
        print(f"{doc_path} no longer matches mutants --explore:", file=sys.stderr)
        for problem in problems:
            print("  " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"{doc_path}: both tables and the summary match ({len(ten_thousand)} variants)")


if __name__ == "__main__":
    main()
