"""Adapter: the Google GenAI Python SDK's automatic function calling behind the conformance protocol.

What is tested: `client.aio.chats.create(model=..., config=GenerateContentConfig(tools=[fn, ...]))`
and `chat.send_message(...)` — automatic function calling (AFC) as the SDK recommends it (its
`AsyncModels.generate_content` logs that direct use "is not recommended. Instead, we recommend to
use AFC in AsyncChat.send_message"). The client's HTTP client is an `httpx2.AsyncClient` over an
`httpx2.MockTransport` (`HttpOptions(httpx_async_client=...)`, the SDK's own hook; no network).
The fake Gemini API answers the first `generateContent` request with the case's calls as
`functionCall` parts of one candidate, exactly as the case wrote them (JSON on the wire, parsed by
the SDK as any response); the SDK runs them (`google/genai/models.py` AFC loop →
`_extra_utils.get_function_response_parts_async` → `convert_argument_from_function` →
`invoke_function_from_dict_args_async`), and the adapter reports the `functionResponse` parts of
the NEXT request — what the model is shown — in order.

What the model sees: Gemini has no error flag; by the API's documented convention the
`functionResponse.response` object holds the output on success and `error` on failure (the SDK
writes `{"result": ...}` or `{"error": str(exc)}`). The parsing — `is_error` when the object is
exactly `{"error": ...}`, content the value's text — is the fake provider's
(`conformance/wire/dialects.py`, shared with the Gemini CLI column).

Tools: plain Python functions (the SDK's documented AFC form) whose signature the kit's
`pydantic_schema.parameters` writes from the case's schema (an optional parameter defaults to
`None`, as users write it); the SDK builds each `FunctionDeclaration` from the signature and
converts arguments by their annotations. The
function's `__name__` is the tool's name (AFC looks tools up by `__name__`). What a signature
cannot state (a closed argument object, `oneOf`, ...) SKIPs.

Handler errors: the SDK has no tool error type: every exception becomes `{"error": "Failed to
invoke function ... because of error <text>"}`. Domain → `ValueError`, transport →
`ConnectionError`, internal → `RuntimeError`.

Calls: Gemini's `functionCall` carries `args` as an object, never text: other forms SKIP. No cap,
no deadline, no codes. Feature `offered-tools`: the turn's subset is stated the Gemini way,
`tool_config.function_calling_config` with mode `ANY` and `allowed_function_names` (the API's
"allowed functions" list; the SDK keeps every tool in its function map).

When the SDK raises (an unknown tool's name is looked up in a dict, ...), the turn is over and the
model sees nothing: no results are reported and the kit writes the exception to stderr.

The protocol itself (loop, JSON, hello, scripted behaviours, invocation log) is the kit's:
conformance/kits/python.
"""

from __future__ import annotations

import inspect
import logging
import os
import sys
import warnings
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

import httpx2
from google import genai
from google.genai import types
from harness_conformance_adapter import UNSET, Adapter, Capabilities, Errors, Implementation, Tool, Turn, to_json
from harness_conformance_adapter.pydantic_schema import KEYWORDS, Untranslatable, parameters, present_arguments, skip_for

# The Gemini wire (rendering a turn, reading the function responses of a request) is the fake provider's,
# shared with the coding-agent adapters: conformance/wire/dialects.py, driven by conformance/wire/inprocess.py.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "wire"))
import dialects  # noqa: E402
from inprocess import ScriptedProvider  # noqa: E402

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)

JSON = {"content-type": "application/json"}
MODEL = "gemini-2.5-flash"


def tool_for(tool: Tool, turn: Turn) -> Any:
    """The function a user would write for this tool (AFC takes plain callables)."""
    try:
        params = parameters(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    # An optional parameter defaults to None, as a user writes it: the SDK copies defaults into the
    # declaration it sends, and a placeholder default would not survive that. Python does not apply a
    # `__signature__`'s defaults, so the function still receives exactly the arguments the SDK passes.
    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=None if d is UNSET else d)
         for p, a, d in params]
    )
    handler.__annotations__ = {p: a for p, a, _ in params}
    handler.__name__ = tool.name
    handler.__qualname__ = tool.name
    handler.__doc__ = tool.description or None
    return handler


@dataclass
class Scripted:
    client: genai.Client
    api: ScriptedProvider
    config: types.GenerateContentConfig


def build(turn: Turn) -> Scripted:
    tools = [tool_for(t, turn) for t in turn.case.tools]
    api = ScriptedProvider(dialects.GEMINI, turn, MODEL)
    transport = httpx2.MockTransport(lambda r: httpx2.Response(200, content=api.answer(r.content), headers=JSON))
    client = genai.Client(api_key="conformance", http_options=types.HttpOptions(
        base_url="http://gemini.invalid", httpx_async_client=httpx2.AsyncClient(transport=transport),
        retry_options=types.HttpRetryOptions(attempts=1),
    ))
    tool_config = None
    if turn.case.offered is not None:
        tool_config = types.ToolConfig(function_calling_config=types.FunctionCallingConfig(
            mode=types.FunctionCallingConfigMode.ANY, allowed_function_names=list(turn.case.offered)))
    config = types.GenerateContentConfig(tools=tools or None, tool_config=tool_config)
    return Scripted(client, api, config)


def history_entry(call: Any) -> Any:
    out = {k: call[k] for k in ("id", "name") if k in call}
    if "args" in call:
        out["input"] = call["args"]
    return out


async def run_turn(scripted: Scripted, turn: Turn) -> None:
    turn.history = [{k: c[k] for k in ("id", "name", "input") if k in c} for c in scripted.api.calls]
    with turn.harness_may_raise(turn.case.calls):
        chat = scripted.client.aio.chats.create(model=MODEL, config=scripted.config)
        await chat.send_message("run the tools")
    request = scripted.api.next_request()
    if request is None:
        return
    contents = request.get("contents") or []
    for content in contents:
        calls = [p["functionCall"] for p in content.get("parts") or [] if isinstance(p, dict) and "functionCall" in p]
        if calls:
            turn.history = [history_entry(c) for c in calls]
    for result in scripted.api.results() or []:
        turn.report(result["tool_use_id"], is_error=result["is_error"], content=result["content"],
                    native=to_json(result["native"]))


adapter = Adapter(
    Implementation("Google GenAI SDK automatic function calling (AsyncChat.send_message)", "python",
                   version("google-genai"), "https://github.com/googleapis/python-genai"),
    Capabilities(cap=None, retryability=False, keywords=KEYWORDS, call_forms=["structured"], parallel=True,
                 history=True, features=["offered-tools"]),
    Errors(domain=ValueError, transport=ConnectionError, internal=RuntimeError),
    build,
    run_turn,
)

if __name__ == "__main__":
    raise SystemExit(adapter.serve())
