"""harness-conformance-adapter: put a Python harness behind the harness-conformance protocol.

An adapter is a small program the `harness-conformance` runner drives over JSON lines: for each
case it builds the case's tools in a fresh harness, feeds the case's calls as one assistant turn,
and reports what the model would be shown; the runner decides pass or fail. This kit owns
everything that is the same for every harness — the protocol loop, strict JSON, the hello and its
vocabulary, the scripted tool behaviours, invocation recording and the blame rule (harness failed
/ cannot express the case / adapter failed) — so an adapter is two functions:

    from harness_conformance_adapter import Adapter, Capabilities, Errors, Implementation, Turn

    def build(turn: Turn) -> MyHarness:                 # the case's tools, in a fresh harness
        harness = MyHarness()
        for tool in turn.case.tools:
            harness.register(tool.name, tool.input_schema, turn.handler(tool))
        return harness

    def run_turn(harness: MyHarness, turn: Turn) -> None:  # one turn; report what the model sees
        for call in turn.case.calls:
            with turn.harness_may_raise(call):
                out = harness.call(call.name, call.input)
                turn.report(call.id, is_error=out.error, content=out.text)

    adapter = Adapter(Implementation("my-harness", "python", "1.0"), Capabilities(keywords=["type"]),
                      Errors(domain=ToolError, transport=ConnectionError, internal=RuntimeError),
                      build, run_turn)
    if __name__ == "__main__":
        raise SystemExit(adapter.serve())

Standard library only; Python 3.10+. See README.md for the whole surface and how to extend it.
"""

from .adapter import Adapter, serve
from .behaviours import ContentBlocks, Errors, HandlerStopped, McpResult, ReturnInstead, Script, Stream, expand, measure
from .capabilities import Cap, Capabilities, Deadline, Implementation, TokenEstimator, Wrapper, hello
from .case import MISSING, Call, Case, Config, Tool
from .errors import ErrorCode, KitError
from .jsonio import UNSET, Json, dumps, loads, to_json
from .turn import HarnessRaised, Skip, Turn

__all__ = [
    "MISSING", "UNSET", "Adapter", "Call", "Cap", "Capabilities", "Case", "Config", "Deadline", "ErrorCode",
    "ContentBlocks", "Errors", "HandlerStopped", "HarnessRaised", "McpResult", "Implementation", "Json", "KitError", "ReturnInstead", "Script", "Skip", "Stream", "Tool",
    "TokenEstimator", "Turn", "Wrapper", "dumps", "expand", "hello", "loads", "measure", "serve", "to_json",
]
__version__ = "1.1.0"
