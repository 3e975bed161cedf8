"""Bad input quoted in an error message: whole when short, cut in the middle when long."""

from __future__ import annotations

import pytest

from onze_vision.messages import LONGEST_QUOTED, quoted


@pytest.mark.parametrize(("value", "shown"), [
    pytest.param("QX", "'QX'", id="a short code, whole"),
    pytest.param(12, "12", id="a number, whole"),
    pytest.param("Q" * 100, "'" + "Q" * 29 + "..." + "Q" * 29 + "' (102 characters)", id="a long code, cut"),
    pytest.param(10 ** 5000, "a number of about 5001 digits", id="a number Python cannot write"),
    pytest.param([10 ** 5000], "a list too long to quote", id="a list holding one"),
    pytest.param("a\x00b", "'a\\x00b'", id="a NUL shown escaped"),
])
def test_what_is_quoted(value: object, shown: str) -> None:
    assert quoted(value) == shown


def test_a_quotation_is_never_much_longer_than_the_limit() -> None:
    assert len(quoted("x" * 1_000_000)) < LONGEST_QUOTED + 30
