"""The extension exports its Python entry point and its own template instances, never the
archives linked into it: not the core (kbench::), and on a toolchain that links libstdc++
statically, not a second std::locale and iostreams, whose exported copy crashed the Evaluator
inside a trainer that had imported torch (docs/rl.md, `--exclude-libs,ALL`)."""
import subprocess

import kbench._kbench as extension


def exported_symbols():
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", extension.__file__],
                         check=True, capture_output=True, text=True).stdout
    return [line.split(" ", 2)[-1] for line in out.splitlines() if line.strip()]


def test_the_entry_point_is_exported():
    assert "PyInit__kbench" in exported_symbols()


def test_no_archive_symbol_is_exported():
    symbols = exported_symbols()
    core = [s for s in symbols if s.startswith("kbench::")]
    runtime = [s for s in symbols if s.startswith(("std::locale", "std::basic_istream", "std::basic_ostream",
                                                   "std::ios_base", "vtable for std::basic_"))]
    assert core == [], core[:10]
    assert runtime == [], runtime[:10]
