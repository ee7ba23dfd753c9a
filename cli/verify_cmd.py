# `versus verify FILE...`: the offline audit of match transcripts, for people and for scripts.
#
# How it works. Each file is checked against a size limit before anything is read (a stat), and
# a transcript is never read whole: `open_transcript` walks its length prefixes and the verifier
# reads one chain envelope at a time, so memory stays bounded whatever the file holds (standard
# input, and a solo run of at most MAX_RUN bytes, are read whole). The transcript goes to
# `protocol.verify.verify_transcript`, which checks
# everything a live peer checks plus the end of the match (SPEC §4.11 "Offline verification").
# This module only reads files and prints: a human summary per file by default, or with `--json`
# one JSON document, a list with one report per file, in the order given. Human output shows
# only printable text (`protocol.text.printable`): a file name, a catalogue error or anything a
# transcript says could otherwise carry escape sequences that forge a verdict line; the JSON
# document is safe as it is (json escapes every control and non-ASCII character).
#
# Exit status: 0 when every file is a valid transcript, 1 when at least one is not (including a
# file that is not a transcript at all, or over the size limit), 2 on a usage error or when a
# file cannot be read (missing, a directory, no permission); 2 wins over 1. A file that cannot
# be used is one line (never a traceback). The verifier turns whatever a file makes the game or
# its own code raise into a verdict (`internal-error` at the record, blaming no one); should
# anything escape it still, `verify_data` says so in the same one INVALID line (exit 1).
#
# The game. A transcript names its game (the rules in its HELLOs carry the registry id), and it
# is replayed through that game (engine/registry.py). A transcript of a game this program does
# not know (not registered: its plugin is not loaded, VERSUS_GAMES) cannot be checked: that is
# not a verdict on the match, so it is said as such, one line naming the game id, like an
# unreadable file (exit 2, check "unknown-game" in JSON), never as INVALID. A `--catalogue` file
# is card data of the registry's default game, read through the Game interface
# (`Game.load_catalogue`); a match of another game is checked against it as given (its digest
# then differs: `catalogue-mismatch`).
from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, Any

from versus.engine import CatalogueError, UnknownGameError
from versus.engine.registry import DEFAULT_GAME, get_game
from versus.protocol.errors import RemoteProtocolError
from versus.protocol.match.verify import INTERNAL_ERROR, SHOWN_TEXT, Report, verify_transcript
from versus.protocol.solo import MAX_RUN, is_run
from versus.protocol.wire.text import printable
from versus.protocol.wire.transcript import MAX_TRANSCRIPT_SIZE, Transcript, open_transcript

from .files import UnreadableFile, read_limited

EXIT_VALID, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2
MAX_FILE_SIZE = MAX_TRANSCRIPT_SIZE  # read at call time (tests lower it)
MAX_CATALOGUE_FILE = 4 << 20
SHOWN_PATH = 4096  # PATH_MAX: a file name is shown whole, only escaped


@dataclass(frozen=True)
class FileVerdict:
    path: str
    report: Report | None  # None: the file could not be read, or its game is unknown
    error: str = ""
    check: str = "unreadable"  # why there is no report: "unreadable" or "unknown-game"

    @property
    def status(self) -> int:
        if self.report is None:
            return EXIT_UNREADABLE
        return EXIT_VALID if self.report.ok else EXIT_INVALID

    def to_dict(self) -> dict[str, Any]:
        if self.report is None:
            return {"file": self.path, "ok": False, "records": 0, "bad_index": None,
                    "check": self.check, "player": None, "message": self.error,
                    "summary": {}}
        return {"file": self.path, **self.report.to_dict()}

    @property
    def shown_path(self) -> str:
        """The file name as human output shows it (a name can hold escape sequences too)."""
        return printable(self.path, SHOWN_PATH)

    def describe(self) -> str:
        if self.report is None:
            label = "UNKNOWN GAME" if self.check == "unknown-game" else "UNREADABLE"
            return f"{self.shown_path}: {label}: {printable(self.error, SHOWN_TEXT)}"
        return f"{self.shown_path}: {self.report.describe()}"


def transcript_game(data: bytes | Transcript) -> str | None:
    """The registry id of the game a transcript's first HELLO names (a transcript of the
    first rules format: versus42), or None when it cannot be read that far."""
    from versus.protocol.match.rules import DEFAULT_GAME, RULES_FORMAT, RULES_FORMAT_V1
    from versus.protocol.match.setup import open_hello
    from versus.protocol.wire.canonical import decode
    from versus.protocol.wire.transcript import load_transcript

    try:
        transcript = data if isinstance(data, Transcript) else load_transcript(data)
        fields = decode(open_hello(transcript.hellos[0]).ruleset, max_size=64 * 1024)
    except Exception:  # not a transcript as far as its first HELLO: the verifier says why
        return None
    if type(fields) is list and fields and fields[0] == RULES_FORMAT_V1:
        return DEFAULT_GAME
    if type(fields) is list and len(fields) > 1 and fields[0] == RULES_FORMAT and \
            type(fields[1]) is str:
        return fields[1]
    return None


def unknown_game(data: bytes | Transcript, game: str | None = None) -> str | None:
    """Why a transcript's game (`game`, else read from it) cannot be replayed here (one line
    naming its id), or None: the game is registered, or the transcript names none the verifier
    could read."""
    game = game or transcript_game(data)
    if game is None:
        return None
    try:
        get_game(game)
    except UnknownGameError as error:
        known = str(error).partition("; ")[2]
        return (f"the match is a game of {printable(game, 40)!r}, which this program does "
                f"not know ({known}); load the game's plugin with VERSUS_GAMES=module")
    return None


def verify_file(path: str, catalogue: Any = None,
                challenge: Any = None) -> FileVerdict:
    """`challenge`: a solo Challenge every run must be played on (--challenge): a run of
    another one, or a match transcript, is INVALID with check "wrong-challenge"."""
    try:
        if path == "-":
            return verify_data(path, read_limited(path, MAX_FILE_SIZE), catalogue, challenge)
        with open(path, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):  # a pipe or a device: read with the limit
                return verify_data(path, _read_open(file, MAX_FILE_SIZE), catalogue, challenge)
            if info.st_size > MAX_FILE_SIZE:
                return verify_data(path, None)
            head = file.read(64)
            file.seek(0)
            if is_run(head) or challenge is not None:
                limit = MAX_RUN if is_run(head) else MAX_FILE_SIZE
                data = None if info.st_size > limit else _read_open(file, limit)
                return verify_data(path, data, catalogue, challenge, limit)
            try:
                return _verify_open(path, file, catalogue)
            except Exception as error:  # untrusted input: a verdict, never a traceback
                return _failed(path, error)
    except OSError as error:
        return FileVerdict(path, None, error.strerror or str(error))
    except UnreadableFile as error:
        return FileVerdict(path, None, str(error))


def _read_open(file: IO[bytes], limit: int) -> bytes | None:
    data = file.read(limit + 1)
    return None if len(data) > limit else data


def _verify_open(path: str, file: IO[bytes], catalogue: Any) -> FileVerdict:
    """A transcript file verified as it is read (open_transcript): bounded memory."""
    try:
        transcript = open_transcript(file, max_size=MAX_FILE_SIZE)  # type: ignore[arg-type]
    except RemoteProtocolError as error:
        return FileVerdict(path, Report(False, 0, None, error.code, None, str(error)))
    report = verify_transcript(transcript, catalogue)
    if not report.ok and report.bad_index in (0, 1) and (why := unknown_game(transcript)):
        return FileVerdict(path, None, why, "unknown-game")
    return FileVerdict(path, report)


def verify_data(path: str, data: bytes | None, catalogue: Any = None,
                challenge: Any = None, limit: int | None = None) -> FileVerdict:
    """`verify_file` on bytes already read (None: over the limit, `limit` or the transcript
    limit); a `--cluster` task (cli/cluster.py) runs it on a worker."""
    if data is None:
        what = "solo run" if limit == MAX_RUN else "transcript"
        return FileVerdict(path, Report(False, 0, None, "oversize-field", None,
                                        f"the file exceeds the {what} limit of "
                                        f"{limit or MAX_FILE_SIZE} bytes"))
    try:
        return _verify_data(path, data, catalogue, challenge)
    except Exception as error:  # a file is untrusted input: a verdict, never a traceback
        return _failed(path, error)


def _failed(path: str, error: Exception) -> FileVerdict:
    return FileVerdict(path, Report(False, 0, None, INTERNAL_ERROR, None,
                                    f"the verifier failed on this file: "
                                    f"{type(error).__name__}: {error}"))


def _verify_data(path: str, data: bytes, catalogue: Any,
                 challenge: Any) -> FileVerdict:
    if is_run(data) or challenge is not None:  # a solo run
        from versus.protocol.solo.run import RunReport, verify_run

        if not is_run(data):
            return FileVerdict(path, RunReport(  # type: ignore[arg-type]
                False, "wrong-challenge", None, "not a solo run, so not a run of challenge "
                f"{challenge.id!r}"))
        return FileVerdict(path, verify_run(data, challenge))  # type: ignore[arg-type]
    report = verify_transcript(data, catalogue)
    if not report.ok and report.bad_index in (0, 1) and (why := unknown_game(data)):
        return FileVerdict(path, None, why, "unknown-game")
    return FileVerdict(path, report)


def load_catalogue_file(path: str, game: str = DEFAULT_GAME) -> Any:
    """The card data given with --catalogue, read by `game` (a registry id: the default
    game's, whose matches --catalogue is for) through the Game interface; UnreadableFile with a
    one-line reason."""
    data = read_limited(path, MAX_CATALOGUE_FILE)
    if data is None:
        raise UnreadableFile(f"{path}: over {MAX_CATALOGUE_FILE} bytes")
    try:
        return get_game(game).load_catalogue(data)
    except CatalogueError as error:
        raise UnreadableFile(f"{path}: not a catalogue: {error}") from None


def load_challenge_file(path: str) -> Any:
    """A solo challenge given with --challenge; UnreadableFile with a one-line reason."""
    from versus.protocol.solo.challenge import MAX_CHALLENGE, ChallengeError, parse_challenge

    try:
        data = read_limited(path, MAX_CHALLENGE)
    except UnreadableFile as error:
        raise UnreadableFile(f"{path}: {error}") from None
    if data is None:
        raise UnreadableFile(f"{path}: over {MAX_CHALLENGE} bytes")
    try:
        return parse_challenge(data)
    except ChallengeError as error:
        raise UnreadableFile(f"{path}: {error}") from None


def verify_on_cluster(address: str, paths: Sequence[str], catalogue: Any,
                      challenge: Any) -> list[Any]:
    """The FileVerdicts of `paths`, in order, each checked in a cluster task (a file that
    cannot be read is judged here, as the local path does); cli/cluster.py runs the tasks."""
    from .cluster import TASK_RETRIES, open_client

    with open_client(address) as client:
        slots: list[Any] = []
        for path in paths:
            try:
                data = read_limited(path, MAX_FILE_SIZE)
            except UnreadableFile as error:
                slots.append(FileVerdict(path, None, str(error)))
                continue
            if data is None:  # the local path's oversize verdict
                slots.append(verify_data(path, None, catalogue, challenge))
                continue
            slots.append(client.submit(verify_data, path, data, catalogue, challenge,
                                       pure=False, retries=TASK_RETRIES))
        futures = [s for s in slots if not isinstance(s, FileVerdict)]
        results = iter(client.gather(futures))
        return [s if isinstance(s, FileVerdict) else next(results) for s in slots]


def cmd_verify(args: argparse.Namespace, out: IO[str]) -> int:
    catalogue = None
    if args.catalogue is not None:
        try:
            catalogue = load_catalogue_file(args.catalogue)
        except UnreadableFile as error:
            shown = printable(error, SHOWN_PATH + SHOWN_TEXT)  # a path, then the reason
            print(f"versus verify: cannot use the catalogue: {shown}", file=sys.stderr)
            return EXIT_UNREADABLE
    challenge = None
    if getattr(args, "challenge", None) is not None:
        try:
            challenge = load_challenge_file(args.challenge)
        except UnreadableFile as error:
            shown = printable(error, SHOWN_PATH + SHOWN_TEXT)
            print(f"versus verify: cannot use the challenge: {shown}", file=sys.stderr)
            return EXIT_UNREADABLE
    if getattr(args, "cluster", None):
        from .cluster import ClusterError

        try:
            verdicts = verify_on_cluster(args.cluster, args.files, catalogue, challenge)
        except ClusterError as error:
            print(f"versus verify: {error}", file=sys.stderr)
            return EXIT_UNREADABLE
    else:
        verdicts = [verify_file(path, catalogue, challenge) for path in args.files]
    if args.json:
        json.dump([v.to_dict() for v in verdicts], out, indent=2)
        out.write("\n")
    else:
        for verdict in verdicts:
            if verdict.report is None:
                print(f"versus verify: {verdict.describe()}", file=sys.stderr)
            elif args.quiet:
                print(f"{verdict.shown_path}: {verdict.report.describe().splitlines()[0]}",
                      file=out)
            else:
                print(verdict.describe(), file=out)
        if len(verdicts) > 1:
            valid = sum(v.status == EXIT_VALID for v in verdicts)
            print(f"{valid} of {len(verdicts)} transcripts valid", file=out)
    return max(v.status for v in verdicts)
