"""Strict JSON both ways: the traps of Python's json module are closed."""

import math

import pytest

from harness_conformance_adapter import UNSET, ErrorCode, KitError, dumps, loads, to_json


@pytest.mark.parametrize("text", ['{"a": NaN}', "[Infinity]", "-Infinity", '{"a": 1, "a": 2}', "{", '{"a": 1} x'])
def test_loads_refuses_what_is_not_strict_json(text):
    with pytest.raises(KitError) as info:
        loads(text)
    assert info.value.code is ErrorCode.INVALID_JSON


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, {"a": [math.nan]}, {1: "x"}, {"a": object()}])
def test_dumps_refuses_what_has_no_strict_json_form(value):
    with pytest.raises(KitError) as info:
        dumps(value)
    assert info.value.code is ErrorCode.UNENCODABLE


def test_integers_beyond_python_digit_limit_round_trip():
    digits = "9" * 5000
    value = loads(f'{{"n": -{digits}}}')
    assert value["n"] == -int(digits[:4000]) * 10**1000 - int(digits[4000:])
    assert dumps(value) == f'{{"n":-{digits}}}'


def test_an_integer_of_a_million_digits_is_refused_at_once():
    # Issue 28, N16: converting it is quadratic in its length (55-76 s before); the bound is
    # counted on the text, before any conversion, so the refusal costs the scan of the line.
    from harness_conformance_adapter.jsonio import MAX_INT_DIGITS

    loads("[" + "7" * MAX_INT_DIGITS + "]")
    with pytest.raises(KitError) as info:
        loads('{"n": -' + "1" * 1_000_000 + "}")
    assert info.value.code is ErrorCode.INVALID_JSON
    assert "1000000 digits" in str(info.value)


def test_output_is_ascii_and_lone_surrogates_survive_as_escapes():
    line = dumps({"s": "é\ud800\n"})
    assert line == '{"s":"\\u00e9\\ud800\\n"}'
    assert line.isascii()
    assert loads(line) == {"s": "é\ud800\n"}


def test_floats_and_constants_keep_their_json_spelling():
    assert dumps([1.5, 1e300, -0.0, True, False, None, (1, 2)]) == "[1.5,1e+300,-0.0,true,false,null,[1,2]]"


def test_to_json_spells_out_non_finite_drops_unset_and_never_fails():
    class Model:
        def model_dump(self, **_):
            return {"x": math.inf}

    assert to_json({"a": math.nan, "b": UNSET, "c": (Model(),), "d": {1, 2} and frozenset()}) == {
        "a": {"$non_finite": "nan"}, "c": [{"x": {"$non_finite": "inf"}}], "d": "frozenset()"}


def test_to_json_survives_a_cyclic_value():
    from harness_conformance_adapter.jsonio import to_json
    value: dict = {"a": 1}
    value["self"] = value
    assert to_json(value) == {"a": 1, "self": "$cycle"}
    shared = [1]
    assert to_json({"x": shared, "y": shared}) == {"x": [1], "y": [1]}
