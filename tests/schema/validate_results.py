#!/usr/bin/env python3
"""Validate kbench results files against docs/results.schema.json (JSON Schema draft 2020-12).

  validate_results.py SCHEMA FILE...                 each FILE must be a whole, valid results file
  validate_results.py --results-only SCHEMA FILE...  only each entry of FILE's "results" array is
                                                     checked (against #/$defs/result), for files whose
                                                     summary predates the current summary keys
  validate_results.py --self-test SCHEMA GOLDEN      schema checks, golden accepted, broken copies rejected

Exit status 0 when everything validates, 1 otherwise. Needs the `jsonschema` package
(installed into the kbench venv by scripts/setup.sh).
"""
import copy
import json
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("FAIL: the Python package 'jsonschema' is not installed for " + sys.executable +
          "; run scripts/setup.sh (it installs jsonschema into the kbench venv)", file=sys.stderr)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def validator_for(schema, ref=None):
    Draft202012Validator.check_schema(schema)
    if ref is None:
        return Draft202012Validator(schema)
    # Validate against a sub-schema while resolving "#/$defs/..." against the whole document.
    sub = dict(schema)
    sub["$ref"] = ref
    for key in ("type", "properties", "required", "additionalProperties"):
        sub.pop(key, None)
    return Draft202012Validator(sub)


def errors_of(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def report(path, errors, limit=10):
    for e in errors[:limit]:
        where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        print(f"  {path}: {where}: {e.message[:300]}")
    if len(errors) > limit:
        print(f"  {path}: ... {len(errors) - limit} more errors")


def validate_files(schema, files, results_only):
    validator = validator_for(schema, "#/$defs/result" if results_only else None)
    failed = 0
    for path in files:
        doc = load(path)
        if results_only:
            errors = []
            for i, result in enumerate(doc.get("results", [])):
                for e in errors_of(validator, result):
                    e.path.appendleft(i)
                    e.path.appendleft("results")
                    errors.append(e)
            what = f"{len(doc.get('results', []))} results"
        else:
            errors = errors_of(validator, doc)
            what = "whole file"
        if errors:
            failed += 1
            print(f"FAIL {path} ({what}): {len(errors)} errors")
            report(path, errors)
        else:
            print(f"ok   {path} ({what})")
    return failed == 0


def undocumented_properties(node, where="#"):
    """Every property declared under "properties" must carry a description (the key's documentation)."""
    missing = []
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if not (isinstance(sub, dict) and sub.get("description")):
                missing.append(f"{where}/properties/{name}")
        for key, value in node.items():
            missing += undocumented_properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            missing += undocumented_properties(value, f"{where}/{i}")
    return missing


def self_test(schema, golden_path):
    ok = True

    def check(name, condition, detail=""):
        nonlocal ok
        print(("ok   " if condition else "FAIL ") + name + (f": {detail}" if detail and not condition else ""))
        ok &= bool(condition)

    try:
        Draft202012Validator.check_schema(schema)
        check("schema is valid draft 2020-12", True)
    except jsonschema.SchemaError as e:
        check("schema is valid draft 2020-12", False, e.message)
        return False
    check("schema declares draft 2020-12",
          schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema")
    missing = undocumented_properties(schema)
    check("every property has a description", not missing, ", ".join(missing))

    validator = Draft202012Validator(schema)
    golden = load(golden_path)
    errors = errors_of(validator, golden)
    check("golden file is accepted", not errors, "; ".join(e.message for e in errors[:5]))

    def rejected(name, mutate, expect_path):
        doc = copy.deepcopy(golden)
        mutate(doc)
        errors = errors_of(validator, doc)
        paths = ["/".join(str(p) for p in e.absolute_path) for e in errors]
        check(f"rejected: {name}", expect_path in paths,
              f"expected an error at {expect_path!r}, got {paths}")

    rejected("bad status value", lambda d: d["results"][0].update(status="passed"), "results/0/status")
    rejected("bad schema_version", lambda d: d.update(schema_version="2.0"), "schema_version")
    rejected("missing top-level key", lambda d: d.pop("summary"), "")
    rejected("unknown result key", lambda d: d["results"][0].update(extra=1), "results/0")
    rejected("unknown measurement key",
             lambda d: d["results"][0]["timings"]["candidate"].update(extra=1),
             "results/0/timings/candidate")
    rejected("measurement without rounds",
             lambda d: d["results"][0]["timings"]["candidate"].pop("rounds"),
             "results/0/timings/candidate")
    rejected("bad verdict", lambda d: d["results"][0]["speedups"]["eager"].update(verdict="WIN"),
             "results/0/speedups/eager/verdict")
    rejected("ci with three ends", lambda d: d["results"][0]["speedups"]["eager"].update(ci=[1, 2, 3]),
             "results/0/speedups/eager/ci")
    rejected("missing summary key", lambda d: d["summary"].pop("fast_p"), "summary")
    return ok


def main(argv):
    if len(argv) >= 3 and argv[0] == "--self-test":
        return 0 if self_test(load(argv[1]), argv[2]) else 1
    results_only = bool(argv) and argv[0] == "--results-only"
    if results_only:
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    return 0 if validate_files(load(argv[0]), argv[1:], results_only) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
