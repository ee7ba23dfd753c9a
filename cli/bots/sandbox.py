# Where an external bot runs: a fresh private directory per game, a minimal environment, and
# with `--sandbox` a bubblewrap jail (SPEC §8.3 "Bots keep no memory").
#
# Why. Paired deals play the same deal twice with the seats swapped, so a bot that remembers
# what it saw in the first game knows its opponent's hidden hand (and the dice to come) in the
# second. Duplicate formats assume the players keep no memory between games; this module is
# what makes that assumption hold:
#   - every ExternalBot process starts in its own new temporary directory (its cwd, HOME and
#     TMPDIR), removed when the game ends, with an environment of a few allowed variables
#     (`bot_environment`), not the organiser's. A bot that keeps its notes where a program
#     normally keeps them (cwd, ~, $TMPDIR) has forgotten them at the next game. Words of the
#     command that name existing files are made absolute first, so `python3 mybot.py` still
#     finds its script from the new directory.
#   - with `sandbox=True` the process runs under bubblewrap (`bwrap`): all namespaces unshared
#     (no network, not even the organiser's 127.0.0.1), no capabilities, a read-only view of
#     the system directories, of the files the command names and of its Python installation,
#     and one writable directory: the per-game one. The organiser's other files (the
#     tournament folder with the transcripts of earlier games, which open every card of their
#     deal) are not there at all, and nothing the bot writes outlives the game.
#
# The caller (ExternalBot's spawn) gets a `Launch` (argv, env, cwd) and removes its directory
# once the process is reaped; this module starts nothing itself.
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .base import BotError

#: the system directories a sandboxed bot sees, read-only (a symlink stays a symlink)
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: the organiser's variables a bot keeps (locale, and what finds a Python installation); HOME,
#: TMPDIR and the like are set to the per-game directory
PASSED_VARIABLES = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONHOME", "PYENV_ROOT",
                    "PYENV_VERSION")
DIRECTORY_PREFIX = "versus-bot-"
PYTHON_QUERY_S = 10.0  # asking an interpreter where it lives (once per program and process)
_PYTHONS: dict[str, tuple[str, ...]] = {}  # program -> (executable, prefix, base prefix)


class SandboxUnavailable(BotError):
    """`--sandbox` was asked for and bubblewrap is not installed."""


@dataclass(frozen=True)
class Launch:
    """How to start one bot process for one game: its argv, environment and working
    directory (`home`, created for this game; `remove` it once the process is reaped)."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    home: Path
    sandboxed: bool

    @property
    def cwd(self) -> str:
        return str(self.home)

    def remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


def bwrap_program() -> str:
    """The path of bubblewrap, or SandboxUnavailable in one line."""
    program = shutil.which("bwrap")
    if program is None:
        raise SandboxUnavailable("--sandbox needs bubblewrap (the 'bwrap' program), which is "
                                 "not on PATH: install it (Debian: apt-get install bubblewrap)")
    return program


def private_launch(argv: Sequence[str], *, sandbox: bool = False) -> Launch:
    """A new per-game directory and the Launch that starts `argv` in it (under bwrap when
    `sandbox`). SandboxUnavailable before anything is created when bwrap is missing."""
    jail = bwrap_program() if sandbox else None
    command = absolute_command(argv)
    home = Path(tempfile.mkdtemp(prefix=DIRECTORY_PREFIX)).resolve()
    env = bot_environment(home)
    if jail is not None:
        # only the organiser's own interpreter is asked where it lives (outside the sandbox):
        # a program the bot names by a path of its own may be anything, so nothing of the
        # bot's runs before the jail (its installation is then found from its paths alone)
        python = python_installation(command[0], env, home) if organisers(argv[0]) else ()
        if python:  # its real executable: a launcher (a pyenv shim) needs files we do not bind
            command = [python[0], *command[1:]]
        command = bwrap_argv(jail, command, home, python[1:])
    return Launch(tuple(command), env, home, jail is not None)


def organisers(program: str) -> bool:
    """Whether the program a bot's command names is the organiser's own: found on the
    organiser's PATH (a bare name), or a file of the system directories. A path of the bot's
    own (its script's folder, a venv it ships) is not."""
    if os.sep not in program:
        return shutil.which(program) is not None
    real = os.path.realpath(program)
    return any(_inside(real, directory) for directory in ("/usr", "/bin", "/sbin"))


def absolute_command(argv: Sequence[str]) -> list[str]:
    """`argv` with its program found on the organiser's PATH and every other word that names
    an existing file or directory (relative to the organiser's cwd) made absolute: the bot
    starts elsewhere."""
    program = argv[0]  # found on our PATH (not found: the spawn says so)
    program = (os.path.abspath(program) if os.sep in program
               else shutil.which(program) or program)
    words = [program]
    for word in argv[1:]:
        named = not word.startswith("-") and os.path.exists(word)
        words.append(os.path.abspath(word) if named else word)
    return words


def bot_environment(home: Path, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The bot's whole environment: PASSED_VARIABLES from `environ` (default: ours), and the
    per-game directory as HOME, TMPDIR, TMP, TEMP and the XDG base directories."""
    source = os.environ if environ is None else environ
    env = {name: source[name] for name in PASSED_VARIABLES if name in source}
    env.setdefault("PATH", os.defpath)
    env.setdefault("LANG", "C.UTF-8")
    for name in ("HOME", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
                 "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        env[name] = str(home)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # its read-only files stay as they are
    return env


def python_installation(program: str, env: Mapping[str, str], cwd: Path) -> tuple[str, ...]:
    """For a Python interpreter (its name starts with `python`): its real executable and its
    prefixes (sys.executable, sys.prefix, sys.base_prefix, asked once per program, in the
    bot's environment, isolated and without `site`, so no .pth file of the bot's installation
    runs outside the sandbox; it blocks: once per worker process); () for another program or
    one that does not answer."""
    if not os.path.basename(program).startswith("python"):
        return ()
    if program not in _PYTHONS:
        try:
            answer = subprocess.run(
                [program, "-I", "-S", "-c", "import sys; print(sys.executable, sys.prefix, "
                 "sys.base_prefix, sep='\\n')"], capture_output=True, timeout=PYTHON_QUERY_S,
                env=dict(env), cwd=cwd, check=True).stdout.decode().splitlines()
        except (OSError, subprocess.SubprocessError, UnicodeDecodeError):
            answer = []
        _PYTHONS[program] = tuple(answer) if _installation(answer) else ()
    return _PYTHONS[program]


def _installation(answer: Sequence[str]) -> bool:
    """An interpreter's answer is believed only as what it must be: its executable a file, each
    prefix a Python installation that is not the root or a folder holding the organiser's
    working directory (the tournament folder would then be visible to the bot)."""
    if len(answer) != 3 or not all(os.path.isabs(path) for path in answer):
        return False
    executable, *prefixes = answer
    here = os.path.realpath(os.getcwd())
    return os.path.isfile(executable) and all(
        _python_prefix(Path(prefix)) and not _inside(here, os.path.realpath(prefix))
        for prefix in prefixes)


def bwrap_argv(bwrap: str, command: Sequence[str], home: Path,
               installations: Sequence[str] = ()) -> list[str]:
    """bwrap's command line around `command` (absolute words, `absolute_command`), with the
    directories `installations` visible too: see the module comment. `--remount-ro /` and
    `/dev` come last, after every mount point exists, so the sandbox's own root and /dev (its
    /dev/shm) take no writes either."""
    args = [bwrap, "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev"]
    for path in visible_paths(command, installations):
        args += ["--ro-bind", path, path]
    args += ["--bind", str(home), str(home), "--chdir", str(home),
             "--remount-ro", "/dev", "--remount-ro", "/", "--", *command]
    return args


def visible_paths(command: Sequence[str], installations: Sequence[str] = ()) -> list[str]:
    """What a sandboxed bot sees beyond SYSTEM_PATHS, read-only: `installations`, the Python
    installation (a prefix with lib/pythonX.Y or pyvenv.cfg) its program is in, as named and
    as resolved (a venv's python is a link into its base installation), and each absolute word
    of its command that exists (its program, its script)."""
    paths = [path for path in installations if path != "/" and os.path.isdir(path)]
    program = command[0]
    if os.path.isabs(program):  # installations first: a file bound inside one stays visible
        for binary in (program, os.path.realpath(program)):
            prefix = Path(binary).parent.parent
            if str(prefix) != "/" and _python_prefix(prefix):
                paths.append(str(prefix))
    for word in command:
        if os.path.isabs(word) and os.path.exists(word):
            paths.append(word)
    unique: list[str] = []  # a path inside one already bound is visible (and a bind there
    for path in paths:      # fails where it is a link)
        if not any(_inside(path, p) for p in (*SYSTEM_PATHS, *unique)):
            unique.append(path)
    return unique


def _python_prefix(prefix: Path) -> bool:
    return (prefix / "pyvenv.cfg").is_file() or any(prefix.glob("lib/python3*"))


def _inside(path: str, directory: str) -> bool:
    """`path` as named is `directory` or inside it (a system link like /bin is in the sandbox
    as the same link)."""
    return path == directory or path.startswith(directory.rstrip(os.sep) + os.sep)
