# Loading a bench script (bench/<name>.py) under test: the scripts are not a package, and each
# rewrites sys.path on import (bench/ would shadow the packages of the same names), so the path
# is restored after.
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench_script(name: str) -> ModuleType:
    """bench/<name>.py as a module named bench_<name>_under_test."""
    saved = list(sys.path)
    spec = importlib.util.spec_from_file_location(f"bench_{name}_under_test", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module
