# The shared argument types: good values pass through, bad ones are argparse's one-line errors.
from __future__ import annotations

import argparse

import pytest

from versus.cli.argtypes import count, count_or_zero, seconds_up_to


def test_good_values() -> None:
    assert count("3") == 3 and count_or_zero("0") == 0 and seconds_up_to(10)("2.5") == 2.5


@pytest.mark.parametrize(("parse", "text", "message"), [
    (count, "0", "'0' must be at least 1"),
    (count, "x", "'x' is not a whole number"),
    (count, "1.5", "'1.5' is not a whole number"),
    (count_or_zero, "-1", "'-1' must be at least 0"),
    (seconds_up_to(10), "0", "'0' must be in (0, 10] seconds"),
    (seconds_up_to(10), "11", "'11' must be in (0, 10] seconds"),
    (seconds_up_to(10), "nan", "'nan' must be in (0, 10] seconds"),
    (seconds_up_to(10), "soon", "'soon' is not a number of seconds"),
])
def test_bad_values_are_one_line_errors(parse, text: str, message: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        parse(text)
    assert str(caught.value) == message
