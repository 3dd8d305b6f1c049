"""Scripted behaviours: generated sizes in the case's unit, each raise kind in the harness's idiom."""

import asyncio
import math
import time

import pytest

from harness_conformance_adapter import ErrorCode, Errors, KitError, ReturnInstead, Script, expand

ERRORS = Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError)


def perform(behavior, args=None, unit="chars", **kw):
    return Script(behavior, unit, ERRORS, **kw).run({} if args is None else args)


@pytest.mark.parametrize("gen, unit, text", [
    ({"text": "abc"}, "chars", "abc"),
    ({"repeat": "é", "size": 5}, "bytes", "éé"),
    ({"repeat": "é", "size": 5}, "chars", "ééééé"),
    ({"repeat": "😀", "size": 9}, "bytes", "😀😀"),
    ({"repeat": "ab", "size": 1}, "chars", ""),
    ({"concat": [{"text": "a"}, {"repeat": "b", "size": 2}, {"text": "c"}]}, "chars", "abbc"),
    ({"lines": {"size": 5, "width": 8, "last": "END"}}, "chars", "END"),
    ({"lines": {"size": 21, "width": 8, "last": "END"}}, "chars", "000001 x\n000002 x\nEND"),
])
def test_generators_expand_exactly(gen, unit, text):
    assert expand(gen, unit) == text


def test_lines_fill_the_size_without_passing_it():
    for unit, last in [("chars", "ÉND"), ("bytes", "ÉND")]:
        text = expand({"lines": {"size": 100, "width": 10, "last": last}}, unit)
        size = len(text.encode()) if unit == "bytes" else len(text)
        assert size <= 100 < size + 11  # one more line would not fit
        assert text.split("\n")[0] == "000001 xxx" and text.endswith("\n" + last)


def test_line_numbers_wrap_so_the_prefix_stays_seven_chars():
    text = expand({"lines": {"size": 1_000_001 * 8 + 1, "width": 7, "last": ""}}, "chars")
    lines = text.split("\n")
    assert lines[999_999] == "000000 " and lines[1_000_000] == "000001 "


@pytest.mark.parametrize("output, value", [
    ({"text": "t"}, "t"),
    ({"json": {"a": [1, None]}}, {"a": [1, None]}),
    ({"json": "t"}, "t"),
    ({"generate": {"repeat": "x", "size": 3}}, "xxx"),
])
def test_returns(output, value):
    assert perform({"return": output}) == value


def test_non_finite_returns_the_float_itself():
    assert math.isnan(perform({"return": {"non_finite": "nan"}}))
    assert perform({"return": {"non_finite": "-inf"}}) == -math.inf


def test_non_finite_in_places_floats_inside_a_structured_value():
    out = perform({"return": {"non_finite_in": {"value": {"a": [1, 2], "b": {}}, "at": {"/a/1": "inf", "/b/c": "nan"}}}})
    assert out["a"] == [1, math.inf] and math.isnan(out["b"]["c"])
    assert math.isinf(perform({"return": {"non_finite_in": {"value": 0, "at": {"": "-inf"}}}}))


def test_json_return_is_a_fresh_copy_each_time():
    behavior = {"return": {"json": {"a": [1]}}}
    first = perform(behavior)
    first["a"].append(2)
    assert perform(behavior) == {"a": [1]}


def test_mutation_reaches_nested_values_and_echo_sees_it():
    args = {"o": {"a": "x"}, "l": [1, 2]}
    out = perform({"mutate_args": {"set": {"/o/a": "y", "/l/0": 9, "/l/-": 3, "/new": True, "/a~1b~0": 1}},
                   "then": {"return": {"echo_args": True}}}, args)
    assert out == {"o": {"a": "y"}, "l": [9, 2, 3], "new": True, "a/b~": 1}
    assert args["o"]["a"] == "y"  # in the handler's own arguments object


@pytest.mark.parametrize("kind, exc", [("domain", ValueError), ("transport", ConnectionError), ("internal", RuntimeError)])
def test_each_raise_kind_uses_its_harness_idiom(kind, exc):
    with pytest.raises(exc, match="^boom$"):
        perform({"raise": {"kind": kind, "message": "boom", "secret": "S"}})


def test_an_error_factory_may_return_instead_of_raising():
    script = Script({"raise": {"kind": "domain", "message": "no"}}, "chars",
                    Errors(domain=lambda m: ReturnInstead({"isError": True, "text": m}), transport=OSError,
                           internal=RuntimeError))
    assert script.run({}) == {"isError": True, "text": "no"}


def test_present_turns_values_into_the_harness_type_knowing_the_kind():
    seen = []
    out = perform({"return": {"json": "x"}}, present=lambda v, k: seen.append(k) or f"<{v}>")
    assert out == "<x>" and seen == ["json"]


def test_an_async_sleep_lets_the_event_loop_run_and_a_sync_one_blocks():
    script = Script({"sleep_ms": 20, "then": {"return": {"text": "late"}}}, "chars", ERRORS)
    order = []

    async def sleeper():
        order.append(f"script {await script.run_async({})}")

    async def other():
        order.append("loop ran")

    async def both():
        await asyncio.gather(sleeper(), other())

    asyncio.run(both())
    assert order == ["loop ran", "script late"]

    async def blocking():
        task = asyncio.ensure_future(other())
        order.clear()
        assert script.run({}) == "late"
        assert order == []  # nothing else ran during the synchronous sleep
        await task
        assert order == ["loop ran"]

    asyncio.run(blocking())


@pytest.mark.parametrize("behavior, code", [
    ({"dance": True}, ErrorCode.UNKNOWN_BEHAVIOUR),
    ({"return": {"image": "x"}}, ErrorCode.UNKNOWN_BEHAVIOUR),
    ({"return": {"generate": {"zigzag": 1}}}, ErrorCode.UNKNOWN_BEHAVIOUR),
    ({"raise": {"kind": "cosmic", "message": "m"}}, ErrorCode.UNKNOWN_BEHAVIOUR),
    ({"mutate_args": {"set": {"/no/such": 1}}, "then": {"return": {"text": ""}}}, ErrorCode.BAD_POINTER),
    ({"mutate_args": {"set": {"": 1}}, "then": {"return": {"text": ""}}}, ErrorCode.BAD_POINTER),
])
def test_what_the_kit_cannot_perform_is_a_kit_error_reported_to_the_adapter(behavior, code):
    failures = []
    with pytest.raises(KitError) as info:
        perform(behavior, on_kit_error=failures.append)
    assert info.value.code is code and failures == [info.value]


def test_non_json_builds_pythons_own_values():
    import datetime

    from harness_conformance_adapter.behaviours import Handle
    out = perform({"return": {"non_json": {"value": {"a": [0], "b": None},
                                           "at": {"/a/0": "set", "/b": "bytes", "/d": "date",
                                                  "/h": "opaque", "/me": "cycle"}}}})
    assert out["a"][0] == {1, 2, 3}
    assert out["b"] == b"\x00\xffA"
    assert out["d"] == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert isinstance(out["h"], Handle) and not hasattr(out["h"], "__dict__")
    assert out["me"] is out
    assert perform({"return": {"non_json": {"value": {}, "at": {"": "set"}}}}) == {1, 2, 3}


def test_content_blocks_and_mcp_results_are_values_for_the_adapter_to_present():
    from harness_conformance_adapter import ContentBlocks, McpResult
    from harness_conformance_adapter.mcp_host import blocks_of
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    out = perform({"return": {"content_blocks": [{"type": "text", "text": "chart:"}, image]}})
    assert out == ContentBlocks([{"type": "text", "text": "chart:"}, image])
    raw = {"content": [{"type": "text", "text": "no such table"}], "isError": True}
    assert perform({"return": {"mcp_result": raw}}) == McpResult(raw)
    # The host reports blocks only for a result holding more than text, fields it reads only.
    assert blocks_of(raw) is None
    assert blocks_of({"content": [{**image, "annotations": {"audience": ["user"]}}]}) == [image]


def test_a_stream_is_a_value_whose_chunks_wait_where_the_case_waits():
    from harness_conformance_adapter import Stream
    out = perform({"return": {"stream": [{"text": "a\n"}, {"sleep_ms": 30},
                                         {"generate": {"repeat": "b", "size": 3}}]}})
    assert out == Stream(("a\n", 30, "bbb"))
    assert out.text() == "a\nbbb"
    started = time.monotonic()
    assert list(out.chunks()) == ["a\n", "bbb"]
    assert time.monotonic() - started >= 0.03

    async def collect():
        return [part async for part in out.achunks()]
    assert asyncio.run(collect()) == ["a\n", "bbb"]
