# engine/frozen.py makes the classes `@dataclass(frozen=True, ...)` makes, cheaper:
# each case below declares one class both ways and checks they behave alike.
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from versus.engine.frozen import field, frozen


def both(slots: bool = False, eq: bool = True, **body: Any) -> tuple[type, type]:
    """The class `body` declares (annotations in '__annotations__', defaults and methods by
    name), made once by dataclasses and once by @frozen, under one name."""

    def declare(make_field: Any) -> type:
        namespace = {k: (make_field(**v) if isinstance(v, FieldSpec) else v)
                     for k, v in body.items()}
        namespace["__module__"] = __name__
        namespace["__qualname__"] = "Value"
        return type("Value", (), namespace)

    real = dataclasses.dataclass(frozen=True, slots=slots, eq=eq)(declare(dataclasses.field))
    ours = frozen(slots=slots, eq=eq)(declare(field))
    return real, ours


class FieldSpec(dict):  # field(...)'s keyword arguments, for either maker
    pass


CASES: dict[str, dict[str, Any]] = {
    "plain": {"__annotations__": {"player": "int", "kind": "str"}},
    "defaults": {"__annotations__": {"a": "int", "b": "str", "c": "tuple[int, ...]"},
                 "b": "x", "c": ()},
    "empty": {"__annotations__": {}},
    "one": {"__annotations__": {"handle": "int"}},
    "fields": {"__annotations__": {"rows": "int", "hidden": "bytes", "memo": "dict[str, int]",
                                   "extra": "dict[str, int]"},
               "hidden": FieldSpec(default=b"s", repr=False),
               "memo": FieldSpec(init=False, compare=False),
               "extra": FieldSpec(default_factory=dict, compare=False),
               "__post_init__": lambda self: object.__setattr__(self, "memo", {"r": self.rows})},
}
ARGS = {"plain": (1, "k"), "defaults": (1,), "empty": (), "one": (7,), "fields": (3,)}


@pytest.mark.parametrize("slots", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_frozen_behaves_as_a_frozen_dataclass(case: str, slots: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    real, ours = both(slots=slots, **CASES[case])
    monkeypatch.setitem(globals(), "Value", ours)  # pickle finds the class by its name
    args = ARGS[case]
    r, o = real(*args), ours(*args)
    assert repr(r) == repr(o)
    assert str(inspect.signature(real)) == str(inspect.signature(ours))
    assert ours.__init__.__qualname__ == real.__init__.__qualname__
    assert (o == ours(*args), o != ours(*args), o == r) == (True, False, False)
    assert hash(o) == hash(ours(*args)) == hash(r)  # the same tuple of the compared fields
    # compiled on first use, then the class's own: the dataclasses' code, at its speed
    assert [getattr(ours, m).__qualname__ for m in ("__eq__", "__hash__")] == \
        [getattr(real, m).__qualname__ for m in ("__eq__", "__hash__")]
    assert (o == ours(*args), o != ours(*args), o == r, hash(o) == hash(r)) == \
        (True, False, False, True)
    assert ours.__match_args__ == real.__match_args__
    assert hasattr(ours, "__slots__") == slots and hasattr(o, "__dict__") != slots
    if slots:
        assert ours.__slots__ == real.__slots__
    assert {k for k in vars(real) if not k.startswith("__")} == \
        {k for k in vars(ours) if not k.startswith("__")}
    for name in ("x", *real.__dataclass_fields__):
        with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(o, name, 1)
        with pytest.raises(FrozenInstanceError):
            delattr(o, name)
    assert pickle.loads(pickle.dumps(o)) == o and copy.deepcopy(o) == o
    # dataclasses' own functions see the same fields
    assert dataclasses.is_dataclass(ours) and dataclasses.is_dataclass(o)
    assert [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare)
            for f in dataclasses.fields(o)] == \
        [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.compare)
         for f in dataclasses.fields(r)]
    assert dataclasses.asdict(o) == dataclasses.asdict(r)
    assert dataclasses.replace(o) == o


def test_frozen_refuses_what_dataclasses_refuses() -> None:
    bad_order = {"__annotations__": {"a": "int", "b": "int"}, "a": 1}
    mutable = {"__annotations__": {"a": "list[int]"}, "a": []}
    for body, error in ((bad_order, TypeError), (mutable, ValueError)):
        with pytest.raises(error) as real:
            both(**body)
        with pytest.raises(error) as ours:
            frozen(type("Value", (), dict(body)))
        assert str(real.value) == str(ours.value)
    with pytest.raises(TypeError) as missing:
        both(**CASES["plain"])[1](1)
    assert str(missing.value) == \
        "Value.__init__() missing 1 required positional argument: 'kind'"


def test_frozen_keeps_the_methods_a_class_defines() -> None:
    def fixed_eq(self: Any, other: Any) -> bool:
        return True

    def fixed_repr(self: Any) -> str:
        return "mine"

    real, ours = both(eq=False, __annotations__={"a": "int"}, __eq__=fixed_eq,
                      __repr__=fixed_repr, __hash__=lambda self: 5)
    assert (repr(ours(1)), ours(1) == ours(2), hash(ours(1))) == \
        (repr(real(1)), real(1) == real(2), hash(real(1)))
    o = ours(1)
    assert (o == o, o != ours(1)) == (True, False)
    _, identity = both(eq=False, __annotations__={"a": "int"})
    o = identity(1)
    assert (o == o, o == identity(1), hash(o) == object.__hash__(o)) == (True, False, True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_frozen_writes_the_docstring_dataclasses_writes(case: str) -> None:
    real, ours = both(**CASES[case])
    assert ours.__doc__ == real.__doc__


def test_equality_follows_this_pythons_dataclasses_and_delete_says_delete() -> None:
    """Review: dataclasses compares field by field from Python 3.13 (a NaN field makes two
    values unequal) and tuples before; @frozen compared tuples everywhere. And `del` said
    "cannot assign to"."""
    import dataclasses

    from versus.engine.frozen import frozen

    @frozen
    class F:
        a: float
        b: int = 0

    @dataclasses.dataclass(frozen=True)
    class D:
        a: float
        b: int = 0

    nan = float("nan")
    assert (F(nan) == F(nan)) == (D(nan) == D(nan))
    assert (F(1.0) == F(1.0)) and hash(F(1.0, 2)) == hash(D(1.0, 2))
    for value in (F(1.0), D(1.0)):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'a'"):
            del value.a
