"""The four model-provider wire dialects the fake provider speaks: pure rendering and parsing.

Why this module exists: a coding agent's tool loop can only be observed through its wire. The
fake provider (provider.py) answers the agent's first request with one assistant turn holding the
case's tool calls, then reads the next request, which holds the tool results exactly as the model
would see them. Everything dialect-specific — where a call's id, name and arguments go, how a
streamed turn is cut into events, how a cut-off (max-tokens) turn looks, where each result's id,
error flag and text sit in the follow-up request — lives here, as pure functions over JSON values,
so it can be tested without sockets. No I/O, no printing.

A *wire call* is what the provider emits, already named as the agent exposes the tool:
  {"id"?: ANY, "name"?: ANY, "input"?: ANY}       structured (absent keys stay absent)
  {"id"?: ANY, "name"?: ANY, "arguments_text": STR}
plus "namespace" where the agent groups tools (Codex's Responses `namespace` tools); offered
names of namespaced tools read "<namespace>.<name>".
Text slots (Anthropic's streamed `input_json_delta`, OpenAI's `arguments`) carry structured input
as its JSON text and arguments text verbatim; object slots (Anthropic's non-streamed `input`,
Gemini's `args`) carry only structured input (`Unexpressible` otherwise).

A *parsed result* is the protocol's result: {"tool_use_id", "is_error", "content", "native"}.
Where a dialect has no error flag (OpenAI Responses and Chat Completions), `is_error` is None
here and the agent adapter decides from the agent's documented carrier (see README.md).
"""

from __future__ import annotations

import json
from typing import Any, Iterable

# Dialect names, used in paths, logs and adapter declarations.
ANTHROPIC = "anthropic-messages"
RESPONSES = "openai-responses"
CHAT = "openai-chat"
GEMINI = "gemini"
ALL = (ANTHROPIC, RESPONSES, CHAT, GEMINI)

FINAL_TEXT = "Done."


class Unexpressible(Exception):
    """The call cannot be put on this dialect's wire faithfully; the message says why."""


class Event:
    """One piece of a response: an SSE event (name may be None) or a whole JSON body."""

    def __init__(self, data: Any, name: str | None = None):
        self.data = data
        self.name = name


def dumps(value: Any) -> str:
    """Compact JSON with every non-ASCII character escaped, so lone surrogates survive the wire."""
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)


def arguments_text(call: dict) -> str:
    """The arguments as a text slot carries them: verbatim text, or the structured input's JSON."""
    if "arguments_text" in call:
        return call["arguments_text"]
    if "input" not in call:
        return ""
    return json.dumps(call["input"], ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def pieces(text: str, count: int = 3) -> list[str]:
    """Splits streamed text into a few deltas, as real providers do (never an empty list)."""
    if not text:
        return [""]
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


def cut(text: str) -> str:
    """The first half of the arguments: the turn ran out of tokens inside the call's JSON."""
    return text[: max(1, len(text) // 2)] if len(text) > 1 else ""


def _put(target: dict, key: str, call: dict, source: str) -> None:
    if source in call:
        target[key] = call[source]


# ---------------------------------------------------------------------------------------------
# Rendering: one assistant turn (tool calls or final text), streamed or whole
# ---------------------------------------------------------------------------------------------


def check(dialect: str, calls: list[dict], stream: bool, cut_off: bool = False) -> None:
    """Raises Unexpressible when a call cannot be carried by this dialect in this mode."""
    object_slot = dialect == GEMINI or (dialect == ANTHROPIC and not stream)
    if cut_off and object_slot:
        raise Unexpressible(f"{dialect} {'streamed' if stream else 'whole'} responses carry arguments as a JSON object: "
                            "a call cannot be cut off inside its JSON text")
    for call in calls:
        if "raw" in call:
            raise Unexpressible("a raw tool-use block is text the model wrote; no provider wire carries one")
        if object_slot and "arguments_text" in call:
            raise Unexpressible(f"{dialect} {'streamed' if stream else 'whole'} responses carry arguments as a JSON object, not text")


def render_turn(dialect: str, calls: list[dict], stream: bool, model: str, cut_off: bool = False) -> list[Event]:
    """The assistant turn with `calls` (or the final text when `calls` is empty)."""
    check(dialect, calls, stream, cut_off)
    return {ANTHROPIC: _anthropic, RESPONSES: _responses, CHAT: _chat, GEMINI: _gemini}[dialect](calls, stream, model, cut_off)


def _anthropic(calls: list[dict], stream: bool, model: str, cut_off: bool) -> list[Event]:
    stop = "max_tokens" if cut_off else ("tool_use" if calls else "end_turn")
    usage = {"input_tokens": 10, "output_tokens": 10}
    blocks = []
    for call in calls:
        block: dict = {"type": "tool_use"}
        _put(block, "id", call, "id")
        _put(block, "name", call, "name")
        blocks.append(block)
    if not calls:
        blocks = [{"type": "text", "text": FINAL_TEXT}]
    message = {"id": "msg_fake_1", "type": "message", "role": "assistant", "model": model,
               "stop_sequence": None, "usage": usage}
    if not stream:
        for block, call in zip(blocks, calls):
            _put(block, "input", call, "input")
        return [Event({**message, "content": blocks, "stop_reason": stop})]
    events = [Event({"type": "message_start", "message": {**message, "content": [], "stop_reason": None}}, "message_start")]
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            events.append(Event({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}, "content_block_start"))
            events.append(Event({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}}, "content_block_delta"))
        else:
            call = calls[index]
            start = {**block}
            if "input" in call or "arguments_text" in call:
                start["input"] = {}
            events.append(Event({"type": "content_block_start", "index": index, "content_block": start}, "content_block_start"))
            text = arguments_text(call)
            last = cut_off and index == len(blocks) - 1
            if last:
                text = cut(text)
            if "input" in call or "arguments_text" in call:
                for piece in pieces(text):
                    events.append(Event({"type": "content_block_delta", "index": index,
                                         "delta": {"type": "input_json_delta", "partial_json": piece}}, "content_block_delta"))
            if last:
                break  # the turn ran out of tokens inside this call: no block stop
        events.append(Event({"type": "content_block_stop", "index": index}, "content_block_stop"))
    events.append(Event({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                         "usage": {"output_tokens": 10}}, "message_delta"))
    events.append(Event({"type": "message_stop"}, "message_stop"))
    return events


def _responses(calls: list[dict], stream: bool, model: str, cut_off: bool) -> list[Event]:
    items = []
    for index, call in enumerate(calls):
        item: dict = {"type": "function_call", "id": f"fc_fake_{index}", "status": "completed"}
        _put(item, "call_id", call, "id")
        _put(item, "name", call, "name")
        _put(item, "namespace", call, "namespace")
        item["arguments"] = arguments_text(call)
        items.append(item)
    if not calls:
        items = [{"type": "message", "id": "msg_fake_1", "status": "completed", "role": "assistant",
                  "content": [{"type": "output_text", "text": FINAL_TEXT, "annotations": []}]}]
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20}
    base = {"id": "resp_fake_1", "object": "response", "created_at": 0, "model": model}
    if cut_off:
        items[-1]["status"] = "incomplete"
        items[-1]["arguments"] = cut(items[-1]["arguments"])
        final = {**base, "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"},
                 "output": items, "usage": usage}
    else:
        final = {**base, "status": "completed", "incomplete_details": None, "output": items, "usage": usage}
    if not stream:
        return [Event(final)]
    events = [Event({"type": "response.created", "response": {**base, "status": "in_progress", "output": []}}, "response.created")]
    for index, item in enumerate(items):
        open_item = {**item, "status": "in_progress"}
        if item["type"] == "function_call":
            open_item["arguments"] = ""
        else:
            open_item["content"] = []
        events.append(Event({"type": "response.output_item.added", "output_index": index, "item": open_item}, "response.output_item.added"))
        if item["type"] == "function_call":
            for piece in pieces(item["arguments"]):
                events.append(Event({"type": "response.function_call_arguments.delta", "item_id": item["id"],
                                     "output_index": index, "delta": piece}, "response.function_call_arguments.delta"))
            if cut_off and index == len(items) - 1:
                break
            events.append(Event({"type": "response.function_call_arguments.done", "item_id": item["id"],
                                 "output_index": index, "arguments": item["arguments"]}, "response.function_call_arguments.done"))
        else:
            part = item["content"][0]
            events.append(Event({"type": "response.content_part.added", "item_id": item["id"], "output_index": index,
                                 "content_index": 0, "part": {**part, "text": ""}}, "response.content_part.added"))
            events.append(Event({"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                                 "content_index": 0, "delta": part["text"]}, "response.output_text.delta"))
            events.append(Event({"type": "response.output_text.done", "item_id": item["id"], "output_index": index,
                                 "content_index": 0, "text": part["text"]}, "response.output_text.done"))
            events.append(Event({"type": "response.content_part.done", "item_id": item["id"], "output_index": index,
                                 "content_index": 0, "part": part}, "response.content_part.done"))
        events.append(Event({"type": "response.output_item.done", "output_index": index, "item": item}, "response.output_item.done"))
    name = "response.incomplete" if cut_off else "response.completed"
    events.append(Event({"type": name, "response": final}, name))
    return events


def _chat(calls: list[dict], stream: bool, model: str, cut_off: bool) -> list[Event]:
    finish = "length" if cut_off else ("tool_calls" if calls else "stop")
    tool_calls = []
    for index, call in enumerate(calls):
        entry: dict = {"index": index}
        _put(entry, "id", call, "id")
        entry["type"] = "function"
        function: dict = {}
        _put(function, "name", call, "name")
        function["arguments"] = arguments_text(call)
        if cut_off and index == len(calls) - 1:
            function["arguments"] = cut(function["arguments"])
        entry["function"] = function
        tool_calls.append(entry)
    base = {"id": "chatcmpl-fake-1", "created": 0, "model": model}
    usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
    if not stream:
        message: dict = {"role": "assistant", "content": None if calls else FINAL_TEXT}
        if calls:
            message["tool_calls"] = [{k: v for k, v in entry.items() if k != "index"} for entry in tool_calls]
        return [Event({**base, "object": "chat.completion",
                       "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage})]
    chunk = {**base, "object": "chat.completion.chunk"}
    events = [Event({**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "" if not calls else None},
                                           "finish_reason": None}]})]
    if not calls:
        events.append(Event({**chunk, "choices": [{"index": 0, "delta": {"content": FINAL_TEXT}, "finish_reason": None}]}))
    for entry in tool_calls:
        head = {k: v for k, v in entry.items() if k != "function"}
        head["function"] = {**{k: v for k, v in entry["function"].items() if k != "arguments"}, "arguments": ""}
        events.append(Event({**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [head]}, "finish_reason": None}]}))
        for piece in pieces(entry["function"]["arguments"]):
            events.append(Event({**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": entry["index"], "function": {"arguments": piece}}]}, "finish_reason": None}]}))
    events.append(Event({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    events.append(Event({**chunk, "choices": [], "usage": usage}))
    events.append(Event("[DONE]"))
    return events


def _gemini(calls: list[dict], stream: bool, model: str, cut_off: bool) -> list[Event]:
    parts = []
    for call in calls:
        function_call: dict = {}
        _put(function_call, "id", call, "id")
        _put(function_call, "name", call, "name")
        _put(function_call, "args", call, "input")
        parts.append({"functionCall": function_call})
    if not calls:
        parts = [{"text": FINAL_TEXT}]
    body = {"candidates": [{"content": {"role": "model", "parts": parts},
                            "finishReason": "MAX_TOKENS" if cut_off else "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
            "modelVersion": model, "responseId": "fake-1"}
    return [Event(body)]


def encode(events: list[Event], stream: bool) -> bytes:
    """The HTTP body: SSE frames when streaming, else the single JSON document."""
    if not stream:
        return dumps(events[0].data).encode()
    out = []
    for event in events:
        data = event.data if isinstance(event.data, str) else dumps(event.data)
        out.append((f"event: {event.name}\n" if event.name else "") + f"data: {data}\n\n")
    return "".join(out).encode()


# ---------------------------------------------------------------------------------------------
# Reading requests: is it streamed, which tools it offers, and the tool results it carries
# ---------------------------------------------------------------------------------------------


def dialect_of(method: str, path: str) -> str | None:
    """Which dialect a request speaks, from its path (None: not a model request)."""
    route = path.split("?")[0].rstrip("/")
    if method != "POST":
        return None
    if route.endswith("/messages"):
        return ANTHROPIC
    if route.endswith("/responses"):
        return RESPONSES
    if route.endswith("/chat/completions"):
        return CHAT
    if ":generateContent" in route or ":streamGenerateContent" in route:
        return GEMINI
    return None


def wants_stream(dialect: str, path: str, body: dict) -> bool:
    if dialect == GEMINI:
        return ":streamGenerateContent" in path
    return bool(body.get("stream"))


def tool_names(dialect: str, body: dict) -> list[str]:
    """The names of the function tools the request offers the model."""
    names = []
    if dialect == GEMINI:
        for tool in body.get("tools") or []:
            for decl in tool.get("functionDeclarations") or tool.get("function_declarations") or []:
                names.append(decl.get("name"))
        return names
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if dialect == RESPONSES and tool.get("type") == "namespace":
            names.extend(f"{tool.get('name')}.{child.get('name')}" for child in tool.get("tools") or [] if isinstance(child, dict))
        elif dialect == CHAT or isinstance(tool.get("function"), dict):
            names.append((tool.get("function") or {}).get("name"))
        elif "name" in tool:
            names.append(tool.get("name"))
    return names


def _text_of(content: Any) -> str:
    """Text blocks concatenated in order; a plain string is itself."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content
                       if isinstance(block, dict) and block.get("type") in ("text", "input_text", "output_text"))
    return ""


def results(dialect: str, body: dict) -> list[dict]:
    """Every tool result in the request, in the order the request lists them."""
    found: list[dict] = []
    if dialect == ANTHROPIC:
        for message in _last_user_turn(body.get("messages") or [], "user"):
            content = message.get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    found.append({"tool_use_id": block.get("tool_use_id"), "is_error": bool(block.get("is_error", False)),
                                  "content": _text_of(block.get("content", "")), "native": block})
    elif dialect == RESPONSES:
        items = body.get("input")
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                found.append({"tool_use_id": item.get("call_id"), "is_error": None,
                              "content": _text_of(item.get("output", "")), "native": item})
    elif dialect == CHAT:
        for message in _last_user_turn(body.get("messages") or [], "tool"):
            if message.get("role") == "tool":
                found.append({"tool_use_id": message.get("tool_call_id"), "is_error": None,
                              "content": _text_of(message.get("content", "")), "native": message})
    elif dialect == GEMINI:
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    found.append(_gemini_result(response))
    return found


def _last_user_turn(messages: list, role: str) -> Iterable[dict]:
    """The messages after the last assistant message (where this turn's results sit)."""
    tail: list[dict] = []
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "assistant":
            tail = []
        else:
            tail.append(message)
    return tail


def _gemini_result(response: dict) -> dict:
    """Gemini has no error flag: by the API's convention the `response` object holds `output`
    (or `result`) on success and `error` on failure; the content is that key's text."""
    value = response.get("response")
    is_error = False
    if isinstance(value, dict) and set(value) == {"error"}:
        is_error, value = True, value["error"]
    elif isinstance(value, dict) and len(value) == 1 and set(value) <= {"output", "result"}:
        value = next(iter(value.values()))
    content = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return {"tool_use_id": response.get("id"), "is_error": is_error, "content": content, "native": response}
