"""Writes COPIES A/A candidates per problem, OUTDIR/<id>_aa<k>.py: the reference with its class
`Model` renamed `ModelNew` (benchmarks/kernelbench/make_aa_candidates.py's rule), identical
copies, so a problem's jobs differ only in when they ran.

Usage: make_copies.py PROBLEMS.json OUTDIR COPIES   (PROBLEMS.json: `kbench list --json`)
"""
import json
import os
import re
import sys


def main(listing_path, outdir, copies):
    listing = json.load(open(listing_path))
    written = 0
    for p in listing["problems"]:
        text = open(p["file"]).read()
        renamed = re.sub(r"\bModel\b", "ModelNew", text)
        if not re.search(r"^class ModelNew\b", renamed, re.M):
            print(f"make_copies: {p['id']}: no `class Model`; skipped", file=sys.stderr)
            continue
        for k in range(1, int(copies) + 1):
            with open(os.path.join(outdir, f"{p['id']}_aa{k}.py"), "w") as f:
                f.write(f"# A/A candidate {k}: {os.path.basename(p['file'])} with Model renamed ModelNew\n")
                f.write(renamed)
            written += 1
    print(f"make_copies: {written} candidates in {outdir}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
