# Frozen value classes that are cheap to create (start-up of `versus verify`).
#
# `@frozen` (and `@frozen(slots=True)`, `@frozen(eq=False)`) makes the class a frozen
# dataclass would make, method for method: the same `__init__` (defaults, `field(...)`'s
# default_factory and init=False, then `__post_init__`), `__repr__`, `__eq__`, `__hash__`,
# `__match_args__`, FrozenInstanceError on assignment, `__slots__` and pickling. What it does
# not do is `dataclasses`'s cost: that module writes the source of six methods per class and
# compiles them with `exec`, ≈ 1 ms a class on the 2-core VM, and `versus verify` loads about
# forty such classes. Here `__init__` is compiled (the source dataclasses writes: the signature
# is the class's own); `__eq__` and `__hash__` too, but on their first call (`versus verify`
# compares none); `__repr__` and the frozen `__setattr__`/`__delattr__` are shared functions
# over the tuple of field names. A class costs ≈ 0.15 ms.
#
# `dataclasses.fields`, `replace`, `asdict` and `is_dataclass` work on these classes:
# `__dataclass_fields__` is computed on first use, by running `dataclasses.dataclass` on a
# stand-in class with the same fields, so those functions see the Field objects the decorator
# would have made, and `dataclasses` itself is imported only then.
#
# Supported: fields declared in the class body (no inheritance of fields, no ClassVar or
# InitVar, no keyword-only fields), `field(default=, default_factory=, init=, repr=, compare=)`,
# methods the class defines itself (kept, as dataclasses keeps them).
from __future__ import annotations

import reprlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar, dataclass_transform, overload

T = TypeVar("T", bound=type)
MISSING: Any = object()


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()  # __init__'s default for a field with a default_factory


class Field:
    """One field's options, as `dataclasses.field` takes them (the subset used here)."""

    __slots__ = ("compare", "default", "default_factory", "init", "repr")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool) -> None:
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] = MISSING,
          init: bool = True, repr: bool = True, compare: bool = True) -> Any:
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, compare)


@overload
def frozen(cls: T, /) -> T: ...
@overload
def frozen(*, slots: bool = False, eq: bool = True) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: Any = None, /, *, slots: bool = False, eq: bool = True) -> Any:
    """`@dataclass(frozen=True, slots=slots, eq=eq)`, cheaper to create (see above)."""
    if cls is None:
        return lambda c: _make(c, slots, eq)
    return _make(cls, slots, eq)


def _make(cls: type, slots: bool, eq: bool) -> type:
    if cls.__bases__ != (object,):
        raise TypeError(f"@frozen class {cls.__qualname__} may not have base classes")
    specs = _fields(cls)
    names = tuple(specs)
    if slots:
        cls = _slotted(cls, names)
    else:  # dataclasses leaves plain defaults as class attributes and removes the field()s
        for name, spec in specs.items():
            if isinstance(cls.__dict__.get(name), Field):
                if spec.default is MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
    own = cls.__dict__
    methods: dict[str, Any] = {
        "__init__": _init(cls, specs),
        "__repr__": _repr([n for n, s in specs.items() if s.repr]),
        "__setattr__": _frozen_setattr(cls, names),
        "__delattr__": _frozen_delattr(cls, names),
        "__match_args__": tuple(n for n, s in specs.items() if s.init),
        "__dataclass_fields__": _LazyFields(cls, specs, eq),
    }
    if eq:
        eq_method, hash_method = _comparison(cls, [n for n, s in specs.items() if s.compare])
        methods["__eq__"] = eq_method
        explicit_hash = own.get("__hash__", MISSING)
        if explicit_hash is MISSING or (explicit_hash is None and "__eq__" in own):
            cls.__hash__ = hash_method  # type: ignore[method-assign]
    if slots:
        methods["__getstate__"] = _getstate(names)
        methods["__setstate__"] = _setstate(names)
    if sys.version_info >= (3, 13):
        methods["__replace__"] = _replace
    for name, value in methods.items():
        if name in ("__setattr__", "__delattr__") and name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
        if name not in own:
            setattr(cls, name, value)
    return cls


def _fields(cls: type) -> dict[str, Field]:
    specs: dict[str, Field] = {}
    defaulted = False
    for name, annotation in _annotations(cls).items():
        if str(annotation).startswith(("ClassVar", "InitVar", "typing.ClassVar",
                                       "dataclasses.InitVar")):
            raise TypeError(f"{cls.__qualname__}.{name}: @frozen takes plain fields only")
        value = cls.__dict__.get(name, MISSING)
        spec = value if isinstance(value, Field) else Field(value, MISSING, True, True, True)
        default = spec.default
        if default is not MISSING and type(default).__hash__ is None:
            raise ValueError(f"mutable default {type(default)} for field {name} is not "
                             "allowed: use default_factory")
        if spec.init:
            has_default = default is not MISSING or spec.default_factory is not MISSING
            if defaulted and not has_default:
                raise TypeError(f"non-default argument {name!r} follows default argument")
            defaulted = defaulted or has_default
        specs[name] = spec
    return specs


def _annotations(cls: type) -> dict[str, Any]:
    # the class's own, as dataclasses reads them (inspect.get_annotations would import inspect)
    annotations = cls.__dict__.get("__annotations__")  # noqa: RUF063
    if annotations is None and sys.version_info >= (3, 14):  # lazily evaluated (PEP 649)
        raise TypeError(f"@frozen class {cls.__qualname__} needs `from __future__ import "
                        "annotations` in its module (its fields are read from them)")
    return annotations or {}


def _slotted(cls: type, names: tuple[str, ...]) -> type:
    """The class again, with __slots__ for its fields (dataclasses' `slots=True`)."""
    body = dict(cls.__dict__)
    body["__slots__"] = names
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    new = type(cls)(cls.__name__, cls.__bases__, body)
    new.__qualname__ = cls.__qualname__
    return new


def _init(cls: type, specs: dict[str, Field]) -> Callable[..., None]:
    """__init__, compiled from the source dataclasses writes: the signature and assignments."""
    self = "__value_self__" if "self" in specs else "self"
    scope: dict[str, Any] = {"__value_set__": object.__setattr__,
                             "__value_has_factory__": _HAS_FACTORY}
    params, lines = [self], []
    for name, spec in specs.items():
        if spec.default_factory is not MISSING:
            scope[f"__value_factory_{name}__"] = spec.default_factory
            if spec.init:
                params.append(f"{name}=__value_has_factory__")
                value = (f"__value_factory_{name}__() if {name} is __value_has_factory__ "
                         f"else {name}")
            else:
                value = f"__value_factory_{name}__()"
        elif spec.default is not MISSING:
            scope[f"__value_default_{name}__"] = spec.default
            if spec.init:
                params.append(f"{name}=__value_default_{name}__")
            value = name if spec.init else f"__value_default_{name}__"
        elif spec.init:
            params.append(name)
            value = name
        else:
            continue  # set by __post_init__
        lines.append(f"  __value_set__({self}, {name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        lines.append(f"  {self}.__post_init__()")
    source = (f"def __init__({', '.join(params)}):\n"
              + ("\n".join(lines) or "  pass") + "\n")
    exec(source, scope)  # our own source, made of the field names
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    annotations = _annotations(cls)
    init.__annotations__ = {n: annotations[n] for n, s in specs.items() if s.init}
    init.__annotations__["return"] = None
    if cls.__doc__ is None:  # dataclasses writes the signature there
        shown = []
        for name, spec in specs.items():
            if spec.init:
                default = _HAS_FACTORY if spec.default_factory is not MISSING else spec.default
                shown.append(f"{name}: {annotations[name]!r}"
                             + ("" if default is MISSING else f" = {default!r}"))
        cls.__doc__ = f"{cls.__name__}({', '.join(shown)})"
    return init


def _comparison(cls: type, compared: list[str]) -> tuple[Callable[..., Any], ...]:
    """__eq__ and __hash__ over the tuple of the compared fields, as dataclasses writes them,
    compiled when first called: most classes are never compared while `versus verify` runs,
    and once compiled they run at the dataclasses' speed (the engine's loops compare and hash
    its values). The first call puts the compiled pair on the class in place of these two."""

    def compiled() -> dict[str, Any]:
        mine, theirs = (f"({''.join(f'{who}.{name},' for name in compared)})"
                        for who in ("self", "other"))
        # as this Python's dataclasses compares: the tuples up to 3.12, then field by field
        # (from 3.13 a field equal to itself by identity but not by value, NaN, differs)
        same = (" and ".join(f"self.{name} == other.{name}" for name in compared) or "True"
                if sys.version_info >= (3, 13) else f"{mine} == {theirs}")
        scope: dict[str, Any] = {}
        exec(f"def __eq__(self, other):\n"  # our own source, made of the field names
             f"  if other.__class__ is self.__class__:\n"
             f"    return {same}\n"
             f"  return NotImplemented\n"
             f"def __hash__(self):\n"
             f"  return hash({mine})\n", scope)
        for name, stand_in in (("__eq__", __eq__), ("__hash__", __hash__)):
            scope[name].__qualname__ = f"{cls.__qualname__}.{name}"
            if cls.__dict__.get(name) is stand_in:
                setattr(cls, name, scope[name])
        return scope

    def __eq__(self: Any, other: Any) -> Any:
        return compiled()["__eq__"](self, other)

    def __hash__(self: Any) -> int:
        return compiled()["__hash__"](self)  # type: ignore[no-any-return]

    return __eq__, __hash__


def _repr(names: list[str]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _frozen_error(name: str, verb: str = "assign to") -> Exception:
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot {verb} field {name!r}")


def _frozen_setattr(cls: type, names: tuple[str, ...]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(name)
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: type, names: tuple[str, ...]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(name, "delete")
        super(cls, self).__delattr__(name)

    return __delattr__


def _getstate(names: tuple[str, ...]) -> Callable[[Any], list[Any]]:
    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, name) for name in names]

    return __getstate__


def _setstate(names: tuple[str, ...]) -> Callable[[Any, list[Any]], None]:
    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=False):
            object.__setattr__(self, name, value)

    return __setstate__


def _replace(self: Any, /, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(self, **changes)


class _LazyFields:
    """`__dataclass_fields__` on first use: the Field objects `dataclasses.dataclass` makes for
    a stand-in class with the same fields (and `__dataclass_params__` with them)."""

    def __init__(self, cls: type, specs: dict[str, Field], eq: bool) -> None:
        self.cls, self.specs, self.eq = cls, specs, eq
        self.fields: dict[str, Any] | None = None

    def __get__(self, instance: Any, owner: type) -> dict[str, Any]:
        if self.fields is None:
            import dataclasses

            cls = self.cls  # (owner may be a subclass)
            body: dict[str, Any] = {"__annotations__": dict(_annotations(cls)),
                                    "__module__": cls.__module__,
                                    "__qualname__": cls.__qualname__}
            for name, spec in self.specs.items():
                default, factory = (dataclasses.MISSING if x is MISSING else x
                                    for x in (spec.default, spec.default_factory))
                body[name] = dataclasses.field(default=default, default_factory=factory,
                                               init=spec.init, repr=spec.repr,
                                               compare=spec.compare)
            stand_in = dataclasses.dataclass(frozen=True, eq=self.eq)(
                type(cls.__name__, (), body))
            cls.__dataclass_params__ = stand_in.__dataclass_params__  # type: ignore[attr-defined]
            self.fields = stand_in.__dataclass_fields__
        return self.fields
