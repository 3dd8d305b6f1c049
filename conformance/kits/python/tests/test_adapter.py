"""The protocol loop and the blame rule, end to end over in-memory pipes."""

import asyncio
import io
import json

import pytest

from harness_conformance_adapter import (
    MISSING, Adapter, Cap, Capabilities, Errors, Implementation, Skip, Turn, loads,
)


class Refused(Exception):
    pass


class Toy:
    """A tiny harness: unknown tools and non-object arguments are error results; crashes on 'crash'."""

    def __init__(self):
        self.tools = {}

    def call(self, name, args):
        if name == "crash":
            raise OSError("the harness fell over")
        if name not in self.tools:
            return True, f"unknown tool {name!r}"
        if not isinstance(args, dict):
            return True, "arguments must be an object"
        try:
            out = self.tools[name](args)
        except Refused as exc:
            return True, str(exc)
        except Exception:
            return True, "the tool failed"
        return False, out if isinstance(out, str) else json.dumps(out)


def build(turn: Turn) -> Toy:
    toy = Toy()
    for tool in turn.case.tools:
        if tool.name == "unexpressible":
            raise Skip("this harness cannot express that tool")
        toy.tools[tool.name] = turn.handler(tool)
    return toy


def run_turn(toy: Toy, turn: Turn) -> None:
    for call in turn.case.calls:
        turn.current_call = call
        with turn.harness_may_raise(call):
            is_error, content = toy.call(call.name, call.input)
            turn.report(call.id, is_error=is_error, content=content)


ERRORS = Errors(domain=Refused, transport=ConnectionError, internal=RuntimeError)
ADAPTER = Adapter(Implementation("toy", "python", "0"), Capabilities(keywords=["type"]), ERRORS, build, run_turn)


def tool(name="t", behavior=None):
    return {"name": name, "description": "", "input_schema": {"type": "object"},
            "behavior": behavior or {"return": {"text": "ok"}}}


def serve(lines, adapter=ADAPTER):
    stdin = io.BytesIO("".join(json.dumps(m) + "\n" for m in lines).encode())
    stdout = io.StringIO()
    status = adapter.serve(stdin, stdout)
    return status, [loads(line) for line in stdout.getvalue().splitlines()]


def run_one(case, adapter=ADAPTER):
    case = {"id": "area/case", **case}
    status, out = serve([{"cmd": "start", "protocol": 1}, {"cmd": "run", "seq": 3, "case": case}, {"cmd": "stop"}],
                        adapter)
    assert status == 0 and len(out) == 2 and out[1]["seq"] == 3 and out[1]["case"] == "area/case"
    return out[1]


def test_start_run_stop():
    status, out = serve([{"cmd": "start", "protocol": 1}, {"cmd": "stop"}, {"cmd": "start", "protocol": 1}])
    assert status == 0
    assert out == [ADAPTER.hello()]  # nothing after stop


def test_another_protocol_version_is_refused_without_an_answer(capsys):
    status, out = serve([{"cmd": "start", "protocol": 2}])
    assert status == 1 and out == []
    assert "speaks protocol 1, the runner asked for 2" in capsys.readouterr().err


def test_a_line_that_is_not_strict_json_ends_the_adapter(capsys):
    stdin, stdout = io.BytesIO(b'{"cmd": "start", "protocol": NaN}\n'), io.StringIO()
    assert ADAPTER.serve(stdin, stdout) == 2 and stdout.getvalue() == ""
    assert "not strict JSON" in capsys.readouterr().err


def test_results_and_invocations_with_args_copied_on_entry():
    reply = run_one({"tools": [tool("t", {"mutate_args": {"set": {"/a": 2}}, "then": {"return": {"echo_args": True}}})],
                     "calls": [{"id": "c1", "name": "t", "input": {"a": 1}}, {"id": "c2", "name": "nope", "input": {}}]})
    assert reply == {"seq": 3, "case": "area/case",
                     "results": [{"tool_use_id": "c1", "is_error": False, "content": '{"a": 2}'},
                                 {"tool_use_id": "c2", "is_error": True, "content": "unknown tool 'nope'"}],
                     "invocations": [{"tool": "t", "args": {"a": 1}, "tool_use_id": "c1"}]}


def test_absent_input_differs_from_null():
    case = {"id": "x", "tools": [], "calls": [{"id": "a"}, {"id": "b", "input": None}]}
    from harness_conformance_adapter import Case
    parsed = Case.parse(case)
    assert parsed.calls[0].input is MISSING and parsed.calls[1].input is None


def test_offered_names_the_turns_tool_subset():
    from harness_conformance_adapter import Case, KitError
    tools = [{"name": n, "input_schema": {"type": "object"}, "behavior": {"return": {"text": "x"}}}
             for n in ("read", "delete")]
    every = Case.parse({"id": "x", "tools": tools, "calls": []})
    assert every.offered is None and [t.name for t in every.offered_tools()] == ["read", "delete"]
    subset = Case.parse({"id": "x", "tools": tools, "calls": [], "offered": ["read"]})
    assert subset.offered == ("read",) and [t.name for t in subset.offered_tools()] == ["read"]
    with pytest.raises(KitError):
        Case.parse({"id": "x", "tools": tools, "calls": [], "offered": "read"})


def test_stop_reason_is_read_and_checked():
    from harness_conformance_adapter import Case, KitError
    assert Case.parse({"id": "x", "tools": [], "calls": []}).stop_reason is None
    cut = Case.parse({"id": "x", "tools": [], "calls": [], "stop_reason": "max_tokens"})
    assert cut.stop_reason == "max_tokens"
    with pytest.raises(KitError):
        Case.parse({"id": "x", "tools": [], "calls": [], "stop_reason": "length"})


def test_cancel_and_parallel_calls_are_read_and_checked():
    from harness_conformance_adapter import Case, KitError
    plain = Case.parse({"id": "x", "tools": [], "calls": []})
    assert plain.cancel_after_ms is None and plain.parallel_calls is None
    case = Case.parse({"id": "x", "tools": [], "calls": [], "cancel_after_ms": 100, "parallel_calls": False})
    assert case.cancel_after_ms == 100 and case.parallel_calls is False
    for bad in ({"cancel_after_ms": -1}, {"cancel_after_ms": True}, {"parallel_calls": "no"}):
        with pytest.raises(KitError):
            Case.parse({"id": "x", "tools": [], "calls": [], **bad})


def _sleepy_turn():
    from harness_conformance_adapter import Case
    case = Case.parse({"id": "x", "calls": [],
                       "tools": [tool("slow", {"sleep_ms": 5000, "then": {"return": {"text": "late"}}})]})
    return Turn(case=case, unit="chars", errors=ERRORS)


def test_a_cancelled_thread_handler_stops_in_its_sleep_and_says_so():
    import threading
    from harness_conformance_adapter import HandlerStopped
    turn, cancel = _sleepy_turn(), threading.Event()
    threading.Timer(0.05, cancel.set).start()
    with pytest.raises(HandlerStopped):
        turn.handler("slow", cancel)({"q": 1})
    assert turn.invocations == [{"tool": "slow", "args": {"q": 1}, "stopped": True}]


def test_a_cancelled_task_stops_in_its_sleep_and_says_so():
    turn = _sleepy_turn()

    async def main():
        task = asyncio.ensure_future(turn.async_handler("slow")({"q": 1}))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert turn.invocations == [{"tool": "slow", "args": {"q": 1}, "stopped": True}]


def test_a_harness_that_raises_shows_nothing_for_that_call_and_says_so(capsys):
    reply = run_one({"tools": [tool()], "calls": [{"id": "c1", "name": "crash", "input": {}},
                                                  {"id": "c2", "name": "t", "input": {}}]})
    assert reply["results"] == [{"tool_use_id": "c2", "is_error": False, "content": "ok"}]
    assert "harness raised: OSError: the harness fell over [for call 'c1']" in capsys.readouterr().err


def test_the_harness_raised_line_is_one_bounded_line_with_controls_escaped():
    from harness_conformance_adapter.turn import one_line
    line = one_line(OSError("a\x1b[31mb\nc" + "x" * 5000))
    assert line.startswith("OSError: a\\x1b[31mb c") and len(line) <= 1000 + 3 * 5 and "\n" not in line


def test_skip_carries_its_reason():
    reply = run_one({"tools": [tool("unexpressible")], "calls": []})
    assert reply == {"seq": 3, "case": "area/case", "skip": "this harness cannot express that tool"}


def test_an_adapter_bug_is_an_error_not_a_result(capsys):
    def broken(toy, turn):
        raise KeyError("oops")

    adapter = Adapter(ADAPTER.implementation, ADAPTER.capabilities, ERRORS, build, broken)
    reply = run_one({"tools": [], "calls": []}, adapter)
    assert reply["error"] == "adapter failed: KeyError: 'oops'"
    assert "Traceback" in capsys.readouterr().err


def test_a_kit_failure_inside_a_handler_is_the_adapters_even_when_the_harness_swallows_it():
    # The toy harness turns any handler exception into "the tool failed"; the bad pointer is still ours.
    reply = run_one({"tools": [tool("t", {"mutate_args": {"set": {"/x/y": 1}}, "then": {"return": {"text": ""}}})],
                     "calls": [{"id": "c1", "name": "t", "input": {}}]})
    assert "error" in reply and "mutate_args pointer '/x/y'" in reply["error"]


def test_generated_sizes_use_the_declared_cap_unit_when_the_case_sets_none():
    caps = Capabilities(cap=Cap("bytes", 100), keywords=["type"])
    adapter = Adapter(ADAPTER.implementation, caps, ERRORS, build, run_turn)
    gen = {"return": {"generate": {"repeat": "é", "size": 6}}}
    reply = run_one({"tools": [tool("t", gen)], "calls": [{"id": "c", "name": "t", "input": {}}]}, adapter)
    assert reply["results"][0]["content"] == "ééé"
    reply = run_one({"config": {"cap": {"unit": "chars"}}, "tools": [tool("t", gen)],
                     "calls": [{"id": "c", "name": "t", "input": {}}]}, adapter)
    assert reply["results"][0]["content"] == "éééééé"


def test_async_build_and_turn_share_one_fresh_loop():
    loops = []

    async def abuild(turn):
        loops.append(asyncio.get_running_loop())
        return {t.name: turn.async_handler(t) for t in turn.case.tools}

    async def aturn(handlers, turn):
        loops.append(asyncio.get_running_loop())
        for call in turn.case.calls:
            out = await handlers[call.name](call.input, tool_use_id=call.id)
            turn.report(call.id, is_error=False, content=out)
        turn.history = [c.to_json() for c in turn.case.calls]

    adapter = Adapter(ADAPTER.implementation, ADAPTER.capabilities, ERRORS, abuild, aturn)
    case = {"tools": [tool("t", {"sleep_ms": 1, "then": {"return": {"text": "slept"}}})],
            "calls": [{"id": "c", "name": "t", "input": {"k": [1]}}]}
    reply = run_one(case, adapter)
    assert reply["results"][0]["content"] == "slept"
    assert reply["invocations"] == [{"tool": "t", "args": {"k": [1]}, "tool_use_id": "c"}]
    assert reply["history"] == [{"id": "c", "name": "t", "input": {"k": [1]}}]
    run_one(case, adapter)
    assert len(loops) == 4 and loops[0] is loops[1] and loops[2] is not loops[0]


def test_a_result_of_the_wrong_shape_is_an_adapter_error():
    def bad(toy, turn):
        turn.report("c", is_error=False, content=b"bytes")

    reply = run_one({"tools": [], "calls": []}, Adapter(ADAPTER.implementation, ADAPTER.capabilities, ERRORS, build, bad))
    assert reply["error"].startswith("adapter failed: KitError: result content")


def test_native_values_without_a_json_form_are_spelled_out_not_a_broken_line():
    def nan(toy, turn):
        turn.report("c", is_error=False, content="x", native={"v": float("nan")})

    reply = run_one({"tools": [], "calls": []}, Adapter(ADAPTER.implementation, ADAPTER.capabilities, ERRORS, build, nan))
    assert reply["results"][0]["native"] == {"v": {"$non_finite": "nan"}}


def test_an_invalid_hello_stops_the_adapter_before_it_answers(capsys):
    adapter = Adapter(ADAPTER.implementation, Capabilities(call_forms=["telepathy"]), ERRORS, build, run_turn)
    assert serve([{"cmd": "start", "protocol": 1}], adapter) == (2, [])
    assert "capability call_forms: 'telepathy' is not one of" in capsys.readouterr().err


@pytest.mark.parametrize("message", [{"cmd": "dance"}, {"nocmd": 1}])
def test_unknown_commands_are_logged_and_ignored(message, capsys):
    status, out = serve([message, {"cmd": "start", "protocol": 1}])
    assert status == 0 and out == [ADAPTER.hello()]
    assert "unknown command" in capsys.readouterr().err
