"""What a run builds once (robohw.support.held): built on first use, the same one handed back,
the oldest let go past the count kept; a bad count refused."""

import pytest

from robohw.support.held import Held


def test_a_thing_is_built_once_and_the_oldest_goes_first():
    built = []

    def build(name):
        built.append(name)
        return [name]

    held = Held(2)
    first = held.get("a", lambda: build("a"))
    assert held.get("a", lambda: build("a")) is first
    held.get("b", lambda: build("b"))
    held.get("c", lambda: build("c"))           # "a" goes
    assert held.get("b", lambda: build("b")) == ["b"]
    assert held.get("a", lambda: build("a")) is not first
    assert built == ["a", "b", "c", "a"]


def test_a_failed_build_holds_nothing():
    held = Held(1)
    with pytest.raises(ValueError, match="no"):
        held.get("a", lambda: (_ for _ in ()).throw(ValueError("no")))
    assert held.get("a", lambda: 3) == 3


@pytest.mark.parametrize("kept, error, message", [
    (0, ValueError, r"^kept must be at least 1, not 0$"),
    (2.0, TypeError, r"^kept must be an integer, not 2.0$"),
    (True, TypeError, r"^kept must be an integer, not True$")])
def test_a_bad_count_is_refused(kept, error, message):
    with pytest.raises(error, match=message):
        Held(kept)
