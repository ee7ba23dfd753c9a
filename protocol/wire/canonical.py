# Canonical msgpack: the one byte encoding of everything the protocol hashes or signs.
#
# A signature or a hash is only meaningful if both peers (and an auditor years later, in another
# language) turn the same value into the same bytes. So the protocol uses a small subset of
# msgpack where every value has exactly one encoding: nil, booleans, 64-bit signed integers in
# their shortest form, bin (bytes), str (UTF-8) and arrays. No floats (rounding), no maps (key
# order), no ext types. Tuples encode as arrays; decoding always yields lists.
#
# Encoding leans on msgpack's C packer, which already picks the shortest form for every length
# and integer; we only walk the value first to refuse anything outside the subset. Decoding runs
# the C unpacker with maps and ext types disabled, walks the result for the subset and the
# limits, and finally re-encodes: if the bytes differ, the input used a non-minimal form (an int8
# where a fixint fits, a str16 for three characters) and is refused. That last step is what makes
# "decode then hash" and "hash the received bytes" agree.
#
# Errors: encoding a value outside the subset is our own bug (LocalProtocolError); decoding bad
# bytes raises MalformedMessage (or OversizeField), which is also a ValueError for callers that
# read files rather than a peer.
#
# Every hash in the protocol is `SHA-256(tag || encode(fields))` with a tag from DOMAIN_TAGS:
# the tag separates purposes, the canonical array frames the fields, so no two purposes or field
# splits can collide. `tagged_hash` is that rule in one place.
from __future__ import annotations

import hashlib
import re
from typing import Any

import msgpack

from versus.protocol.errors import LocalProtocolError, MalformedMessage, OversizeField

INT_MIN = -(2**63)
INT_MAX = 2**63 - 1

DEFAULT_MAX_DEPTH = 16
DEFAULT_MAX_ARRAY_LEN = 65_536
DEFAULT_MAX_BYTES_LEN = 1 << 20
DEFAULT_MAX_STR_LEN = 4_096

HASH_SIZE = 32

# Every domain tag of the layers in this package (SPEC §4.2). None is a prefix of another, so a
# tag followed by data can never be read as another tag followed by other data.
TAG_ENVELOPE_SIGNATURE = b"versus/v1/envelope-sig"
TAG_ENVELOPE_HASH = b"versus/v1/envelope-hash"
TAG_GENESIS = b"versus/v1/genesis"
TAG_MATCH_ID = b"versus/v1/match-id"
TAG_COIN_COMMIT = b"versus/v1/coin-commit"
TAG_COIN_RESULT = b"versus/v1/coin-result"
TAG_CARD_COMMIT = b"versus/v1/card-commit"
TAG_DECK_ROOT = b"versus/v1/deck-root"
TAG_DECKLIST = b"versus/v1/decklist"
TAG_DRAW_SEED_COMMIT = b"versus/v1/draw-seed-commit"
TAG_DRAW_ORDER = b"versus/v1/draw-order"
TAG_RANDOM_STREAM = b"versus/v1/random-stream"
TAG_DECKLIST_COMMIT = b"versus/v1/deck-list-commit"
TAG_PEER_RNG = b"versus/v1/peer-rng"
TAG_CHANCE_LINK = b"versus/v1/chance-link"
TAG_CHANCE_ROLL = b"versus/v1/chance-roll"
# solo runs (protocol/solo/, SPEC Part 11 "Solo runs")
TAG_SOLO_CHALLENGE_SIG = b"versus/v1/solo/challenge-sig"
TAG_SOLO_CHALLENGE = b"versus/v1/solo/challenge-digest"
TAG_SOLO_COMMIT = b"versus/v1/solo/secret-commit"
TAG_SOLO_DAILY = b"versus/v1/solo/daily-secret"
TAG_SOLO_VALUE = b"versus/v1/solo/value"
TAG_SOLO_ATTEST = b"versus/v1/solo/attest"
TAG_SOLO_RECORD_SIG = b"versus/v1/solo/record-sig"
TAG_SOLO_RECORD = b"versus/v1/solo/record-hash"
TAG_SOLO_GENESIS = b"versus/v1/solo/genesis"
TAG_SOLO_REQUEST = b"versus/v1/solo/reveal-request"

# The hedged proof nonces of the shared-pool deal (SPEC §5.4). They belong to the deal's own
# framing (`protocol.group.hash_parts`: SHA-512 of length-framed parts, reduced mod L), not to
# `tagged_hash`, so they are not in DOMAIN_TAGS; each is a `versus/v1/deal/…` tag that is no
# prefix of another deal tag. One per proof kind: a nonce of one kind never serves another.
TAG_DEAL_NONCE_SCHNORR = b"versus/v1/deal/nonce/schnorr"
TAG_DEAL_NONCE_DLEQ = b"versus/v1/deal/nonce/dleq"
TAG_DEAL_NONCE_SHUFFLE = b"versus/v1/deal/nonce/shuffle"

DOMAIN_TAGS = (
    TAG_ENVELOPE_SIGNATURE,
    TAG_ENVELOPE_HASH,
    TAG_GENESIS,
    TAG_MATCH_ID,
    TAG_COIN_COMMIT,
    TAG_COIN_RESULT,
    TAG_CARD_COMMIT,
    TAG_DECK_ROOT,
    TAG_DECKLIST,
    TAG_DRAW_SEED_COMMIT,
    TAG_DRAW_ORDER,
    TAG_RANDOM_STREAM,
    TAG_DECKLIST_COMMIT,
    TAG_PEER_RNG,
    TAG_CHANCE_LINK,
    TAG_CHANCE_ROLL,
    TAG_SOLO_CHALLENGE_SIG,
    TAG_SOLO_CHALLENGE,
    TAG_SOLO_COMMIT,
    TAG_SOLO_DAILY,
    TAG_SOLO_VALUE,
    TAG_SOLO_ATTEST,
    TAG_SOLO_RECORD_SIG,
    TAG_SOLO_RECORD,
    TAG_SOLO_GENESIS,
    TAG_SOLO_REQUEST,
)

_packer = msgpack.Packer(use_bin_type=True, autoreset=True)


def encode(obj: Any) -> bytes:
    """The canonical encoding of `obj`: None, bool, int (64-bit signed), bytes, str, list/tuple.

    Raises LocalProtocolError naming the offending value and its path when `obj` is outside
    the subset: building such a message is a bug on our side.
    """
    try:
        value = _plain(obj)
    except _NotPlain:  # name the offending value and its path (or normalise a rare type)
        value = _normalize(obj, "value")
    return _packer.pack(value)


def encode_after(checked: list[Any], value: Any) -> bytes:
    """`encode([*checked, value])` where every item of `checked` is already known canonical (an
    int in range, bytes: an envelope's header fields, checked field by field before): only
    `value` is walked."""
    try:
        plain = _plain(value)
    except _NotPlain:
        plain = _normalize(value, f"value[{len(checked)}]")
    checked.append(plain)
    return _packer.pack(checked)


def decode(
    data: bytes,
    *,
    max_size: int,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_array_len: int = DEFAULT_MAX_ARRAY_LEN,
    max_bytes_len: int = DEFAULT_MAX_BYTES_LEN,
    max_str_len: int = DEFAULT_MAX_STR_LEN,
) -> Any:
    """Decode canonical bytes into None/bool/int/bytes/str/list values.

    Raises OversizeField when `data` or one of its fields exceeds a limit, MalformedMessage
    for anything else that is not exactly one canonical value. Never another exception.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise MalformedMessage(f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) > max_size:
        raise OversizeField(f"message of {len(data)} bytes exceeds the limit of {max_size}", [data])
    if not data:
        raise MalformedMessage("empty message", [data])
    if len(data) > _SMALL and too_deep(data, max_depth):
        raise OversizeField(f"nesting deeper than {max_depth}: {_preview(data)}", [data])
    try:
        # The C unpacker's own limits (bounded by len(data)) keep a forged length header from
        # allocating memory; ours are checked precisely in _check_limits with the field's path.
        obj = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            max_map_len=0,
            max_ext_len=0,
            max_array_len=min(len(data), max_array_len + 1),
            max_bin_len=min(len(data), max_bytes_len + 1),
            max_str_len=min(len(data), max_str_len + 1),
        )
    except Exception as exc:  # the C unpacker raises a zoo of types; all mean "not msgpack"
        raise _unpack_error(exc, data) from exc
    _check_limits(obj, data, max_depth, max_array_len, max_bytes_len, max_str_len)
    if _packer.pack(obj) != data:
        raise MalformedMessage(
            f"non-canonical encoding (a shorter form exists): {_preview(data)}", [data]
        )
    return obj


# --- nesting pre-scan ----------------------------------------------------------------------
#
# The C unpacker pre-allocates a list for every array header it meets (up to ~10,000 slots,
# 80 KB, however few bytes follow) and only refuses nesting at its stack limit of 1,024 levels,
# so 3 KB of `dc ff ff` repeated held ~80 MB until the input ran out. Depth can only be checked
# before unpacking, by walking the headers: `too_deep` does that without building anything,
# skipping runs of one-byte values (the only way to pack a million items into a megabyte) with
# a regular expression, so the walk costs microseconds for real messages and stays linear for
# hostile ones. Bad or truncated bytes stop the walk: the unpacker reports them.

_ONE_BYTE_RUN = re.compile(rb"[\x00-\x7f\xa0\xc0\xc2\xc3\xe0-\xff]*")
_SCALAR_SIZE = {**{b: 1 for b in (*range(0x80), *range(0xE0, 0x100), 0xC0, 0xC2, 0xC3)},
                **{b: 1 + (b & 0x1F) for b in range(0xA0, 0xC0)},
                0xCA: 5, 0xCB: 9, 0xCC: 2, 0xCD: 3, 0xCE: 5, 0xCF: 9, 0xD0: 2, 0xD1: 3,
                0xD2: 5, 0xD3: 9, 0xD4: 3, 0xD5: 4, 0xD6: 6, 0xD7: 10, 0xD8: 18}
#: header byte -> (length field size, bytes after the length field per unit, items per unit);
#: a sized value (bin, str, ext) counts bytes, a container counts items (a map: 2 per entry)
_SIZED = {0xC4: (1, 0), 0xC5: (2, 0), 0xC6: (4, 0), 0xD9: (1, 0), 0xDA: (2, 0), 0xDB: (4, 0),
          0xC7: (1, 1), 0xC8: (2, 1), 0xC9: (4, 1)}
_CONTAINER = {**{b: (0, 1) for b in range(0x90, 0xA0)}, **{b: (0, 2) for b in range(0x80, 0x90)},
              0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}


#: below this size the pre-scan is skipped: every array the unpacker pre-allocates is bounded by
#: len(data) slots and there are at most len(data) of them, a few MB at worst, and the depth is
#: then refused by `_check_limits` (or the unpacker's own stack limit) like any other limit
_SMALL = 1024


def too_deep(data: bytes, max_depth: int) -> bool:
    """Whether the msgpack `data` nests containers more than `max_depth` levels deep (see above).
    """
    end, pos, left = len(data), 0, [1]  # left: items still to read at each open level
    while left:
        if not left[-1]:
            left.pop()
            continue
        if pos >= end:
            return False
        byte = data[pos]
        size = _SCALAR_SIZE.get(byte)
        if size == 1:  # a run of one-byte values, skipped in C
            run = _ONE_BYTE_RUN.match(data, pos, min(end, pos + left[-1])).end() - pos
            left[-1] -= run
            pos += run
            continue
        left[-1] -= 1
        if size is not None:
            pos += size
        elif byte in _SIZED:
            width, extra = _SIZED[byte]
            pos += 1 + width + extra + int.from_bytes(data[pos + 1:pos + 1 + width], "big")
        elif byte in _CONTAINER:
            width, per = _CONTAINER[byte]
            count = (int.from_bytes(data[pos + 1:pos + 1 + width], "big") if width
                     else byte & 0x0F) * per
            pos += 1 + width
            if count:
                if len(left) > max_depth:
                    return True
                left.append(count)
        else:
            return False  # 0xc1, never used: the unpacker refuses it
    return False


def tagged_hash(tag: bytes, *fields: Any) -> bytes:
    """SHA-256(tag || encode(list(fields))): the one hashing rule of the protocol."""
    return hashlib.sha256(tag + encode(fields)).digest()


class _NotPlain(Exception):
    pass


def _plain(obj: Any) -> Any:
    # `_normalize` for the common case (exact types, in range) without a path string per
    # item; anything else raises _NotPlain and `_normalize` decides, with the path.
    kind = type(obj)
    if kind is list or kind is tuple:
        return [_plain(item) for item in obj]
    if kind is bytes or obj is None or kind is bool:
        return obj
    if kind is int:
        if INT_MIN <= obj <= INT_MAX:
            return obj
    elif kind is str and obj.isascii():  # ASCII is valid UTF-8
        return obj
    raise _NotPlain


def _normalize(obj: Any, path: str) -> Any:
    # bool before int: bool is an int subclass but has its own msgpack type.
    if obj is None or obj is True or obj is False:
        return obj
    kind = type(obj)
    if kind is bytes or kind is str:
        if kind is str:
            _check_utf8(obj, path)
        return obj
    if kind is int or (isinstance(obj, int) and not isinstance(obj, bool)):
        if not INT_MIN <= obj <= INT_MAX:
            raise LocalProtocolError(f"{path}: integer {obj} outside the 64-bit signed range")
        return int(obj)
    if kind is list or kind is tuple:
        return [_normalize(item, f"{path}[{i}]") for i, item in enumerate(obj)]
    raise LocalProtocolError(
        f"{path}: {kind.__name__} {obj!r:.60} is not canonical (allowed: None, bool, int, "
        f"bytes, str, list, tuple)"
    )


def _check_utf8(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise LocalProtocolError(f"{path}: string {text!r:.60} is not valid UTF-8") from exc


def _check_limits(
    obj: Any, data: bytes, max_depth: int, max_array: int, max_bytes: int, max_str: int
) -> None:
    # The common case, valid input, without building a path string per field: a plain walk;
    # only when it finds a violation does the walk below run again to name the field.
    if _limits_ok(obj, max_depth, max_array, max_bytes, max_str):
        return
    _check_limits_named(obj, data, max_depth, max_array, max_bytes, max_str)


def _limits_ok(obj: Any, max_depth: int, max_array: int, max_bytes: int, max_str: int) -> bool:
    # Only arrays go on the stack (with their depth); scalars are checked where they stand,
    # without a tuple each. False may be a false alarm: the named walk then has the last word.
    stack: list[tuple[list[Any], int]] = [([obj], 0)]
    push, pop = stack.append, stack.pop
    while stack:
        items, depth = pop()
        if depth > max_depth or len(items) > max_array:
            return False
        for item in items:
            kind = type(item)
            if kind is list:
                push((item, depth + 1))
            elif kind is bytes:
                if len(item) > max_bytes:
                    return False
            elif kind is str:
                if len(item) > max_str // 4 and len(item.encode("utf-8")) > max_str:
                    return False
            elif kind is int:
                if not INT_MIN <= item <= INT_MAX:
                    return False
            elif item is not None and kind is not bool:
                return False
    return True


def _check_limits_named(
    obj: Any, data: bytes, max_depth: int, max_array: int, max_bytes: int, max_str: int
) -> None:
    # Iterative, so a deeply nested input cannot exhaust Python's recursion limit.
    stack: list[tuple[Any, int, str]] = [(obj, 1, "value")]
    while stack:
        item, depth, path = stack.pop()
        kind = type(item)
        if kind is list:
            if depth > max_depth:
                raise OversizeField(f"{path}: nesting deeper than {max_depth}", [data])
            if len(item) > max_array:
                raise OversizeField(
                    f"{path}: array of {len(item)} items exceeds {max_array}", [data]
                )
            stack.extend((sub, depth + 1, f"{path}[{i}]") for i, sub in enumerate(item))
        elif kind is bytes:
            if len(item) > max_bytes:
                raise OversizeField(
                    f"{path}: {len(item)} bytes exceed the limit of {max_bytes}", [data]
                )
        elif kind is str:
            if len(item.encode("utf-8")) > max_str:
                raise OversizeField(f"{path}: string exceeds {max_str} bytes", [data])
        elif kind is int:
            if not INT_MIN <= item <= INT_MAX:
                raise MalformedMessage(f"{path}: integer {item} outside 64-bit signed", [data])
        elif item is not None and kind is not bool:
            raise MalformedMessage(f"{path}: {kind.__name__} is not allowed", [data])


def _unpack_error(exc: Exception, data: bytes) -> MalformedMessage:
    text = str(exc)
    if isinstance(exc, msgpack.StackError):
        return OversizeField(f"nesting too deep for the decoder: {_preview(data)}", [data])
    if "exceeds max_" in text and "max_map_len" not in text and "max_ext_len" not in text:
        return OversizeField(f"field too long ({text}) in {_preview(data)}", [data])
    if isinstance(exc, msgpack.ExtraData):
        return MalformedMessage(f"trailing bytes after one value in {_preview(data)}", [data])
    if "max_map_len" in text:
        return MalformedMessage(f"maps are not allowed: {_preview(data)}", [data])
    if "max_ext_len" in text:
        return MalformedMessage(f"ext types are not allowed: {_preview(data)}", [data])
    return MalformedMessage(f"not msgpack ({type(exc).__name__}: {text}): {_preview(data)}", [data])


def _preview(data: bytes, limit: int = 24) -> str:
    head = data[:limit].hex()
    return f"{head}{'…' if len(data) > limit else ''} ({len(data)} bytes)"
