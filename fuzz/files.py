# Fuzz targets for the decoders of files, services and gateways (fuzz/targets.py has those of
# the match wire): every game's position reader and start, solo challenges, secrets, published
# secrets and run files, the reveal service's requests and answers, invites and relay
# addresses, and the PCP and NAT-PMP datagrams a gateway (or anyone on the LAN) sends.
#
# Same contract as fuzz/targets.py: a target returns normally on any input, its decoder's
# documented errors swallowed; anything else escaping is a finding. On inputs a decoder accepts,
# the target checks what must then hold: a position is canonical after one round trip and its
# state can be hashed and played on; a run file gets a verdict (verify_run never raises); an
# accepted invite prints back to itself; an accepted datagram re-encodes.
#
# SSDP answers are not ours to fuzz: UPnP discovery and its XML are miniupnpc's (C), reached
# through its binding only (p2p/nat/hosting.py), and what it returns is range-checked there.
from __future__ import annotations

import functools
from typing import Any

from versus.engine.api import DecisionKind, Finished, Setup
from versus.engine.errors import PositionError
from versus.engine.registry import BUILTIN_GAMES, get_game
from versus.p2p.errors import InviteError
from versus.p2p.invite import parse_invite
from versus.p2p.nat import natpmp, pcp
from versus.p2p.nat.errors import NatProtocolError, RelayAddressError
from versus.p2p.nat.relay import RelayAddress
from versus.protocol.crypto.identity import Identity
from versus.protocol.solo import run as solo_run
from versus.protocol.solo import service
from versus.protocol.solo.challenge import (
    ChallengeError,
    new_challenge,
    parse_challenge,
    parse_secret,
)

from .rng import seeded_rng

#: the games whose position reader is fuzzed (every built-in one), picked by the first byte
POSITION_GAMES = tuple(sorted(BUILTIN_GAMES))
#: inputs played from an accepted position (turns, choices and chance only: deals and reveals
#: need hidden identities a position does not carry)
PLAY_STEPS = 12


# --- positions -----------------------------------------------------------------------------


def fuzz_position(data: bytes) -> None:
    """data[0] % 4 picks the game, bit 2 reads the text as a start (the rules that fold it in,
    then a new game from them); data[1:] is the position text."""
    if not data:
        return
    game = get_game(POSITION_GAMES[data[0] % len(POSITION_GAMES)])
    text = data[1:]
    if data[0] & 4:
        _fuzz_start(game, text)
        return
    try:
        state = game.load_position(text)
    except PositionError:
        return
    canonical = game.dump_position(state)
    again = game.load_position(canonical)
    assert game.dump_position(again) == canonical, "position text not canonical after a trip"
    _play_on(game, state)


def _fuzz_start(game: Any, text: bytes) -> None:
    member = getattr(game, "rules_for_position", None)
    if member is None:
        return
    try:
        rules = member(text)
    except PositionError:
        return
    assert game.decode_rules(game.encode_rules(rules)) == rules, "start rules round trip"
    state = game.new_game(Setup(rules, game.default_catalogue(), bytes(64)))
    _play_on(game, state)


def _play_on(game: Any, state: Any) -> None:
    """Hash the state and play the first legal input a few times: a position a reader accepts
    must not break the engine or its encoding."""
    game.state_hash(state)
    for _ in range(PLAY_STEPS):
        decision = game.decision(state)
        if isinstance(decision, Finished) or decision.kind in (DecisionKind.DEAL,
                                                               DecisionKind.REVEAL):
            return
        legal = game.legal_actions(state)
        assert legal, f"{game.id}: a pending {decision.kind.name} with no legal input"
        state = game.step(state, legal[len(legal) // 2])
        game.state_hash(state)


@functools.cache
def _real_positions(game_id: str) -> tuple[str, ...]:
    """Positions of real games: the new game and a few inputs in (full-information play with
    the first legal input, deals from the deck's first handles, reveals as dealt)."""
    from versus.cli.bot_check import scripted_deal

    game = get_game(game_id)
    rules, catalogue = game.default_rules(), game.default_catalogue()
    seed = b"fuzz/positions/" + game_id.encode()
    identity, orders = scripted_deal(game, rules, catalogue, seed)
    dealt = [0] * len(orders)
    state = game.new_game(Setup(rules, catalogue, (seed * 4)[:64]))
    texts = []
    for step in range(80):
        if step % 20 == 0:
            texts.append(game.dump_position(state))
        decision = game.decision(state)
        if isinstance(decision, Finished):
            break
        if decision.kind is DecisionKind.DEAL:
            handle = orders[decision.deck][dealt[decision.deck]]
            dealt[decision.deck] += 1
            inp = game.deal_input(handle)
        elif decision.kind is DecisionKind.REVEAL:
            state = _revealed(game, state, decision.handle, identity)
            continue
        else:
            legal = game.legal_actions(state)
            inp = legal[step % len(legal)]
        state = game.step(state, inp)
    return tuple(texts)


def _revealed(game: Any, state: Any, handle: int, identity: dict[int, str]) -> Any:
    """The state after the reveal of `handle`: the scripted identity where the game deals by
    handle, else the first card id the engine accepts (a game whose handles are not deal
    slots; these are only seeds)."""
    from versus.engine.errors import IllegalActionError

    for card in dict.fromkeys((identity.get(handle), *sorted(set(identity.values())))):
        if card is None:
            continue
        try:
            return game.step(state, game.reveal_input(handle, card))
        except IllegalActionError:
            continue
    raise AssertionError(f"{game.id}: no card can be revealed at handle {handle}")


def position_seeds() -> list[bytes]:
    seeds = []
    for index, game_id in enumerate(POSITION_GAMES):
        for text in _real_positions(game_id):
            seeds.append(bytes([index]) + text.encode())
            seeds.append(bytes([index | 4]) + text.encode())
    return seeds


# --- solo challenges, secrets and runs ---------------------------------------------------------


@functools.cache
def _solo() -> tuple[Any, Any, bytes]:
    """A real challenge, its organiser secret and a whole run file played on it."""
    from versus.cli.solo import make_bot
    from versus.engine.multiverse import MULTIVERSE

    rng = seeded_rng("solo")
    organiser, player = Identity.generate(rng), Identity.generate(rng)
    rules = MULTIVERSE.rules_from_options({"difficulty": "easy"})
    challenge, secret = new_challenge(organiser, MULTIVERSE, rules, "fuzz", rng)
    reveal = service.RevealService(challenge, secret).reveal
    run, _state = solo_run.play(MULTIVERSE, challenge, player, reveal, make_bot("greedy", 1))
    return challenge, secret, run.to_bytes()


def fuzz_solo(data: bytes) -> None:
    """data[0] % 4: a challenge file, a run file (verified against nothing, then against the
    real challenge), an organiser secret file, a published secret file."""
    if not data:
        return
    mode, body = data[0] % 4, data[1:]
    challenge = _solo()[0]
    if mode == 0:
        try:
            parsed = parse_challenge(body)
        except ChallengeError:
            return
        assert parse_challenge(parsed.to_bytes()) == parsed, "challenge round trip"
    elif mode == 1:
        for expected in (None, challenge):
            report = solo_run.verify_run(body, expected)
            assert isinstance(report, solo_run.RunReport), "verify_run gave no report"
            report.describe()
    elif mode == 2:
        try:
            parse_secret(body, challenge)
        except ChallengeError:
            return
    else:
        try:
            service.parse_published(body, challenge)
        except ChallengeError:
            return


def solo_seeds() -> list[bytes]:
    challenge, secret, run = _solo()
    return [b"\x00" + challenge.to_bytes(), b"\x01" + run, b"\x02" + secret.to_bytes(),
            b"\x03" + service.published_bytes(secret)]


# --- the reveal service's messages ----------------------------------------------------------


@functools.cache
def _reveal_pair() -> tuple[Any, Any, bytes]:
    """A real request of the fuzz run's player and the real service's answer bytes."""
    challenge, secret, _run = _solo()
    player = Identity.generate(seeded_rng("reveal-player"))
    server = service.RevealService(challenge, secret)
    stream = sorted(server.ledger.limits)[0] if hasattr(server.ledger, "limits") else "deck"
    request = service.RevealRequest.signed(player, challenge.digest, stream, 0,
                                           solo_run.genesis(challenge.digest, player.public_key))
    answer, refused = server.answer(request.to_bytes())
    assert refused is None, f"the fuzz seed's request was refused: {refused}"
    return challenge, request, answer


def fuzz_reveal(data: bytes) -> None:
    """data[0] even: a request as the service reads it; odd: an answer as the player reads it
    (against the real request and organiser key)."""
    if not data:
        return
    challenge, request, _answer = _reveal_pair()
    body = data[1:]
    if data[0] % 2 == 0:
        try:
            parsed = service.RevealRequest.from_bytes(body)
        except service.RevealRefused:
            return
        assert service.RevealRequest.from_bytes(parsed.to_bytes()) == parsed, "request trip"
        parsed.signature_ok()
        return
    try:
        service.parse_answer(body, request, challenge.organiser)
    except (service.RevealRefused, service.BadAnswer):
        return


def reveal_seeds() -> list[bytes]:
    _challenge, request, answer = _reveal_pair()
    refused = service.refusal_bytes(service.OutOfOrder("step 3 before step 2"))
    return [b"\x00" + request.to_bytes(), b"\x01" + answer, b"\x01" + refused]


# --- invites and relay addresses --------------------------------------------------------------


def fuzz_invite(data: bytes) -> None:
    """data[0] even: an invite; odd: a relay address (`tcp:HOST:PORT`). The text is data[1:]
    as UTF-8, undecodable bytes kept as surrogates (as a shell hands them over)."""
    if not data:
        return
    text = data[1:].decode("utf-8", "surrogateescape")
    if data[0] % 2 == 0:
        try:
            invite = parse_invite(text)
        except InviteError:
            return
        assert parse_invite(str(invite)) == invite, "invite does not print back to itself"
        return
    try:
        relay = RelayAddress.parse(text)
    except RelayAddressError:
        return
    assert RelayAddress.parse(f"tcp:{_host(relay.host)}:{relay.port}") == relay, "relay trip"


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def invite_seeds() -> list[bytes]:
    fingerprint = Identity.generate(seeded_rng("invite")).fingerprint
    invites = [f"versus://192.0.2.7:47820#{fingerprint}",
               f"versus://[2001:db8::1]:1,host.example:2?relay=tcp:relay.example:4001"
               f"&room=abcdefghijklmnop#{fingerprint}"]
    return [b"\x00" + x.encode() for x in invites] + [b"\x01tcp:[::1]:4001",
                                                      b"\x01tcp:relay.example.org:4001"]


# --- PCP and NAT-PMP datagrams -----------------------------------------------------------------

_NAT_DECODERS = (pcp.decode_response, pcp.MapRequest.decode, natpmp.decode_response,
                 natpmp.decode_request)


def fuzz_nat(data: bytes) -> None:
    """data[0] % 4: a PCP response, a PCP MAP request, a NAT-PMP response, a NAT-PMP request.
    What a decoder accepts encodes to a datagram it reads back as the same value (reserved
    bytes are ignored on receipt, so the bytes themselves may differ)."""
    if not data:
        return
    decode = _NAT_DECODERS[data[0] % 4]
    try:
        decoded = decode(data[1:])
    except NatProtocolError:
        return
    encode = getattr(decoded, "encode", None)
    if encode is not None:
        assert decode(encode()) == decoded, f"{type(decoded).__name__} does not round-trip"


def nat_seeds() -> list[bytes]:
    import ipaddress

    client = ipaddress.ip_address("192.168.1.20")
    request = pcp.MapRequest(client, 47820, bytes(range(12)), pcp.Protocol.TCP, 7200, 47820)
    response = pcp.MapResponse(pcp.ResultCode.SUCCESS, 7200, 99, bytes(range(12)),
                               pcp.Protocol.TCP, 47820, 47820,
                               ipaddress.ip_address("203.0.113.5"), ())
    pmp_request = natpmp.MappingRequest(natpmp.Opcode.MAP_TCP, 47820, 47820, 7200)
    pmp_response = natpmp.MappingResponse(natpmp.Opcode.MAP_TCP, natpmp.ResultCode.SUCCESS,
                                          99, 47820, 47820, 7200)
    address = natpmp.ExternalAddressResponse(natpmp.ResultCode.SUCCESS, 99,
                                             ipaddress.ip_address("203.0.113.5"))
    return [b"\x00" + response.encode(), b"\x01" + request.encode(),
            b"\x02" + pmp_response.encode(), b"\x02" + address.encode(),
            b"\x03" + pmp_request.encode(), b"\x03" + natpmp.ExternalAddressRequest().encode()]
