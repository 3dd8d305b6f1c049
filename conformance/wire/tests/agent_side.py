"""The agent's side of each dialect, written independently of dialects.py, for the tests.

Why this module exists: the fake provider's rendering and parsing are checked against a second,
separate reading of each wire: decoding a response the way a client library accumulates it
(SSE events → calls with id, name, arguments text, stop reason) and writing the follow-up
request the way an agent puts tool results into it. If dialects.py and this file disagreed about
a wire, the tests fail. Standard library only.
"""

from __future__ import annotations

import json

ANTHROPIC, RESPONSES, CHAT, GEMINI = "anthropic-messages", "openai-responses", "openai-chat", "gemini"


def sse_events(body: bytes) -> list[tuple[str | None, str]]:
    """(event name, data) per SSE frame."""
    frames = []
    for frame in body.decode("utf-8").split("\n\n"):
        if not frame.strip():
            continue
        name, data = None, []
        for line in frame.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        frames.append((name, "\n".join(data)))
    return frames


def decode(dialect: str, body: bytes, stream: bool) -> dict:
    """{"calls": [{"id"?, "name"?, "namespace"?, "arguments": TEXT | "input": JSON}], "stop": STR, "text": STR}."""
    return {ANTHROPIC: _anthropic, RESPONSES: _responses, CHAT: _chat, GEMINI: _gemini}[dialect](body, stream)


def _anthropic(body: bytes, stream: bool) -> dict:
    if not stream:
        message = json.loads(body)
        calls = []
        for block in message["content"]:
            if block["type"] == "tool_use":
                calls.append({k: block[k] for k in ("id", "name", "input") if k in block})
        text = "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")
        return {"calls": calls, "stop": message["stop_reason"], "text": text}
    blocks: dict[int, dict] = {}
    stop, text = None, ""
    for name, data in sse_events(body):
        event = json.loads(data)
        assert event["type"] == name, (name, event["type"])
        if event["type"] == "content_block_start":
            block = dict(event["content_block"])
            block.pop("input", None)
            if block["type"] == "tool_use":
                block["arguments"] = ""
            blocks[event["index"]] = block
        elif event["type"] == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "input_json_delta":
                blocks[event["index"]]["arguments"] += delta["partial_json"]
            else:
                text += delta["text"]
        elif event["type"] == "message_delta":
            stop = event["delta"]["stop_reason"]
    calls = [{k: v for k, v in b.items() if k != "type"} for _, b in sorted(blocks.items()) if b["type"] == "tool_use"]
    return {"calls": calls, "stop": stop, "text": text}


def _responses(body: bytes, stream: bool) -> dict:
    if not stream:
        final = json.loads(body)
    else:
        final, args = None, {}
        for name, data in sse_events(body):
            event = json.loads(data)
            assert event["type"] == name
            if event["type"] == "response.function_call_arguments.delta":
                args[event["item_id"]] = args.get(event["item_id"], "") + event["delta"]
            if event["type"] in ("response.completed", "response.incomplete"):
                final = event["response"]
        for item in final["output"]:  # the streamed deltas must add up to the final item
            if item["type"] == "function_call":
                assert args.get(item["id"], "") == item["arguments"], (args, item)
    calls, text = [], ""
    for item in final["output"]:
        if item["type"] == "function_call":
            call = {k: item[k] for k in ("name", "namespace") if k in item}
            if "call_id" in item:
                call["id"] = item["call_id"]
            call["arguments"] = item["arguments"]
            calls.append(call)
        else:
            text += "".join(part["text"] for part in item["content"])
    stop = (final.get("incomplete_details") or {}).get("reason") or final["status"]
    return {"calls": calls, "stop": stop, "text": text}


def _chat(body: bytes, stream: bool) -> dict:
    if not stream:
        choice = json.loads(body)["choices"][0]
        calls = []
        for entry in choice["message"].get("tool_calls") or []:
            call = {k: entry[k] for k in ("id",) if k in entry}
            call.update({k: entry["function"][k] for k in ("name",) if k in entry["function"]})
            call["arguments"] = entry["function"]["arguments"]
            calls.append(call)
        return {"calls": calls, "stop": choice["finish_reason"], "text": choice["message"]["content"] or ""}
    entries: dict[int, dict] = {}
    stop, text = None, ""
    frames = sse_events(body)
    assert frames[-1][1] == "[DONE]"
    for _, data in frames[:-1]:
        chunk = json.loads(data)
        for choice in chunk["choices"]:
            delta = choice["delta"]
            text += delta.get("content") or ""
            for part in delta.get("tool_calls") or []:
                entry = entries.setdefault(part["index"], {"arguments": ""})
                if "id" in part:
                    entry["id"] = part["id"]
                function = part.get("function") or {}
                if "name" in function:
                    entry["name"] = function["name"]
                entry["arguments"] += function.get("arguments", "")
            stop = choice["finish_reason"] or stop
    return {"calls": [entries[i] for i in sorted(entries)], "stop": stop, "text": text}


def _gemini(body: bytes, stream: bool) -> dict:
    documents = [json.loads(data) for _, data in sse_events(body)] if stream else [json.loads(body)]
    calls, text, stop = [], "", None
    for document in documents:
        candidate = document["candidates"][0]
        for part in candidate["content"]["parts"]:
            if "functionCall" in part:
                fc = part["functionCall"]
                calls.append({**{k: fc[k] for k in ("id", "name") if k in fc}, **({"input": fc["args"]} if "args" in fc else {})})
            text += part.get("text", "")
        stop = candidate.get("finishReason") or stop
    return {"calls": calls, "stop": stop, "text": text}


def follow_up(dialect: str, calls: list[dict], results: list[dict]) -> dict:
    """The next request an agent sends: the prompt, the assistant's calls, then the results.

    `results` are protocol results ({"tool_use_id", "is_error", "content"}), in the order the
    harness produced them. Where the wire has no flag, the flag is not sent.
    """
    prompt = "Call the tools."
    if dialect == ANTHROPIC:
        blocks = [{"type": "tool_result", "tool_use_id": r["tool_use_id"], "is_error": r["is_error"],
                   "content": [{"type": "text", "text": r["content"]}]} for r in results]
        return {"model": "m", "stream": True, "max_tokens": 1000, "tools": [{"name": "t", "input_schema": {}}],
                "messages": [{"role": "user", "content": prompt},
                             {"role": "assistant", "content": [{"type": "tool_use", **c} for c in calls]},
                             {"role": "user", "content": blocks}]}
    if dialect == RESPONSES:
        items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}]
        items += [{"type": "function_call", **c} for c in calls]
        items += [{"type": "function_call_output", "call_id": r["tool_use_id"], "output": r["content"]} for r in results]
        return {"model": "m", "stream": True, "input": items, "tools": [{"type": "function", "name": "t", "parameters": {}}]}
    if dialect == CHAT:
        messages = [{"role": "user", "content": prompt}, {"role": "assistant", "content": None, "tool_calls": calls}]
        messages += [{"role": "tool", "tool_call_id": r["tool_use_id"], "content": r["content"]} for r in results]
        return {"model": "m", "stream": True, "messages": messages,
                "tools": [{"type": "function", "function": {"name": "t", "parameters": {}}}]}
    responses = [{"functionResponse": {"id": r["tool_use_id"], "name": "t",
                                       "response": {"error" if r["is_error"] else "output": r["content"]}}} for r in results]
    return {"contents": [{"role": "user", "parts": [{"text": prompt}]},
                         {"role": "model", "parts": [{"functionCall": c} for c in calls]},
                         {"role": "user", "parts": responses}],
            "tools": [{"functionDeclarations": [{"name": "t"}]}]}
