"""Writes one A/A candidate per problem: the reference file with its class `Model` renamed
`ModelNew` (also in `super(Model, self)`), as a user copying the reference would.

Usage: make_aa_candidates.py PROBLEMS.json OUTDIR   (PROBLEMS.json: `kbench list --json`)
Writes OUTDIR/<id>.py; refuses to write into a folder that holds the problem files.
"""
import json
import os
import re
import sys


def main(listing_path, outdir):
    listing = json.load(open(listing_path))
    outdir = os.path.realpath(outdir)
    for p in listing["problems"]:
        source = os.path.realpath(p["file"])
        if os.path.commonpath([source, outdir]) == outdir:
            sys.exit(f"make_aa_candidates: {outdir} holds problem files; write the candidates elsewhere")
        text = open(source).read()
        renamed, count = re.subn(r"\bModel\b", "ModelNew", text)
        if not re.search(r"^class ModelNew\b", renamed, re.M):
            print(f"make_aa_candidates: {p['id']}: no `class Model` in {source}; skipped", file=sys.stderr)
            continue
        with open(os.path.join(outdir, p["id"] + ".py"), "w") as f:
            f.write(f"# A/A candidate: {os.path.basename(source)} with Model renamed ModelNew ({count} places)\n")
            f.write(renamed)
    print(f"make_aa_candidates: {len(listing['problems'])} candidates in {outdir}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
