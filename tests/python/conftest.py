"""Shared fixtures of the `kbench` module's tests: one CPU Evaluator over tests/data/suites/
faults.yaml (real sandboxed workers), and the test data's files as text."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
HOSTILE = ROOT / "tests" / "hostile"


def text(path: Path) -> str:
    return path.read_text()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def ok_source() -> str:
    return text(DATA / "candidates" / "add_one_ok.py")


@pytest.fixture(scope="session")
def evaluator(tmp_path_factory):
    import kbench
    ev = kbench.Evaluator(DATA / "suites" / "faults.yaml", devices="cpu", workers=2,
                          work_dir=tmp_path_factory.mktemp("evaluator"), reward="seed_paper")
    yield ev
    ev.close()
