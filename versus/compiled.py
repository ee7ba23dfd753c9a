# An optional compiled build of the engine's hot modules (mypyc, which compiles type-annotated
# Python to C extensions; black and mypy ship built with it). The pure Python source stays the
# reference: the same files are compiled unchanged, and tests/test_compiled.py checks that both
# builds give the same state hashes and legal lists.
#
# How it works. `python -m versus.compiled build` copies the engine's sources into a scratch
# folder laid out as the `versus.engine` package, runs mypyc there and keeps only the built
# extension files, in a cache folder named by a digest of the sources and the Python version
# (so an edited source never runs stale compiled code, and nothing is ever
# written into the source tree, where a .so would shadow its .py for every test). With
# VERSUS_COMPILED=1 in the environment, versus/__init__.py calls `activate`, which puts an
# import finder first on sys.path's finders: it loads those modules from the cache, every
# other module as usual. No build for these sources: one line on stderr, and the pure build
# runs. Needs mypy (the `compiled` extra) and a C compiler only to build.
from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

# The modules compiled: the Versus rules engine (a step is ~50 us of pure Python), the loop
# that drives self-play, and the hashing every step ends with. Measured, they are where a
# random game's time goes; more modules gained little, and a class mypyc cannot compile
# (a NamedTuple subclass: actions.Action) stays Python.
MODULES = ("versus.engine.versus42.game", "versus.engine.referee_loop", "versus.engine.hashing")
ENV = "VERSUS_COMPILED"
CACHE_ENV = "VERSUS_COMPILED_CACHE"
_MANIFEST = "manifest.json"
# mypy options: the modules' imports that are not compiled are only read for their types
# (errors there are not ours to fix for this build), and third-party stubs are not needed
_MYPY_FLAGS = ("--ignore-missing-imports", "--follow-imports=silent")


class CompiledBuildError(Exception):
    """The compiled build could not be made (no mypy, no compiler, a mypyc error)."""


class BuildToolsMissing(CompiledBuildError):
    """This machine cannot build it (no mypy, no C compiler, a build over its time limit), as
    opposed to mypyc refusing our source, which is a defect of the source."""


def engine_dir() -> Path:
    """The engine package's source folder (a checkout's engine/, or versus/engine in a wheel),
    found without importing it (activation runs before it is imported)."""
    here = Path(__file__).resolve().parent
    for d in (here / "engine", here.parent / "engine"):
        if (d / "__init__.py").is_file():
            return d
    raise CompiledBuildError(f"no engine package beside {here}")


def _sources(engine: Path) -> list[Path]:
    """Every .py file of the engine package, sorted: the compiled modules' types come from the
    modules they import, so all of them count in the build's digest."""
    return sorted(p for p in engine.rglob("*.py") if "__pycache__" not in p.parts)


def source_digest(engine: Path | None = None) -> str:
    """The build's cache key: the engine's sources and this Python (a build needs no mypy to
    run: mypyc's runtime is compiled into it)."""
    engine = engine or engine_dir()
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag} {MODULES}".encode())
    for p in _sources(engine):
        h.update(p.relative_to(engine).as_posix().encode() + b"\0")
        h.update(p.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def _mypy_version() -> str:
    try:
        from mypy.version import __version__
    except ImportError:
        return "none"
    return __version__


def cache_root() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "versus" / "compiled"


def build_dir(digest: str | None = None) -> Path:
    return cache_root() / (digest or source_digest())


def build(timeout: float | None = None, quiet: bool = False) -> Path:
    """Build (once per source digest) and return the folder holding the extensions and their
    manifest. Raises CompiledBuildError with mypyc's own message on any failure."""
    engine = engine_dir()
    target = build_dir(source_digest(engine))
    if (target / _MANIFEST).is_file():
        if not quiet:
            print(f"up to date: {target}")
        return target
    if _mypy_version() == "none":
        raise BuildToolsMissing("mypy is not installed (pip install 'versus-p2p[compiled]')")
    if shutil.which(os.environ.get("CC", "gcc")) is None and shutil.which("cc") is None:
        raise BuildToolsMissing("no C compiler found (gcc or cc)")
    with tempfile.TemporaryDirectory(prefix="versus-mypyc-") as tmp:
        scratch = Path(tmp)
        _lay_out(engine, scratch)
        files = [m.replace(".", "/") + ".py" for m in MODULES]
        started = time.monotonic()
        try:
            run = subprocess.run([sys.executable, "-m", "mypyc", *_MYPY_FLAGS, *files],
                                 cwd=scratch, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise BuildToolsMissing(f"mypyc took more than {timeout:g} s") from e
        if run.returncode != 0:
            lines = (run.stdout + run.stderr).strip().splitlines()
            errors = [x for x in lines if " error" in x or "Error" in x] or lines[-5:]
            raise CompiledBuildError("mypyc failed: " + " | ".join(errors[:5]))
        manifest = _collect(scratch, target)
    if not quiet:
        print(f"built {len(manifest)} extensions in {time.monotonic() - started:.0f} s: {target}")
    return target


def _lay_out(engine: Path, scratch: Path) -> None:
    """The engine's sources as the package `versus.engine` (the module names mypyc compiles)."""
    (scratch / "versus").mkdir()
    (scratch / "versus" / "__init__.py").write_text("")
    for p in _sources(engine):
        dest = scratch / "versus" / "engine" / p.relative_to(engine)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(p, dest)


def _collect(scratch: Path, target: Path) -> dict[str, str]:
    """Copy the built extensions (the modules' and mypyc's shared runtime library, named
    `<hash>__mypyc`) into `target`, written whole or not at all; return the manifest."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    manifest: dict[str, str] = {}
    for so in scratch.rglob("*" + suffix):
        rel = so.relative_to(scratch)
        if rel.parts[0] == "build":
            continue
        module = ".".join((*rel.parts[:-1], rel.name[: -len(suffix)]))
        manifest[module] = rel.as_posix()
    missing = [m for m in MODULES if m not in manifest]
    if missing:
        raise CompiledBuildError(f"mypyc built no extension for {missing}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    for rel in manifest.values():
        (partial / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(scratch / rel, partial / rel)
    (partial / _MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True))
    try:
        partial.rename(target)
    except OSError:  # another process built it meanwhile: keep theirs
        shutil.rmtree(partial, ignore_errors=True)
    return manifest


class _Finder:
    """Loads the manifest's modules from the build folder; declines every other name."""

    def __init__(self, folder: Path, manifest: dict[str, str]) -> None:
        self.folder, self.manifest = folder, manifest

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        rel = self.manifest.get(fullname)
        if rel is None:
            return None
        return importlib.util.spec_from_file_location(fullname, self.folder / rel)


def activate() -> Path | None:
    """Load the compiled modules from now on (call before the engine is imported); the build's
    folder, or None (one line on stderr) if there is none for these sources."""
    try:
        folder = build_dir()
        manifest = json.loads((folder / _MANIFEST).read_text())
    except (OSError, ValueError, CompiledBuildError) as e:
        print(f"versus: {ENV} is set but there is no compiled build for these sources "
              f"({e.__class__.__name__}); run `python -m versus.compiled build`. "
              "Running the pure build.", file=sys.stderr)
        return None
    sys.meta_path.insert(0, _Finder(folder, manifest))
    return folder


def built() -> bool:
    """Whether a build for the current sources is in the cache (without building one)."""
    return (build_dir() / _MANIFEST).is_file()


def active() -> bool:
    """Whether this process runs the compiled build (the engine's rules module is a .so)."""
    module = sys.modules.get(MODULES[0])
    return module is not None and not str(getattr(module, "__file__", "")).endswith(".py")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args not in (["build"], ["where"]):
        print("usage: python -m versus.compiled build | where", file=sys.stderr)
        return 2
    if args == ["where"]:
        print(build_dir())
        return 0
    try:
        build()
    except (CompiledBuildError, OSError) as e:  # (OSError: the cache folder is not writable)
        print(f"versus.compiled: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
