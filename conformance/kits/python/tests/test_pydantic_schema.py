"""JSON Schema → pydantic translation (the optional `pydantic` extra): faithful, or refused.

Needs pydantic (requirements-dev.txt has it); the rest of the kit is tested without it.
"""

import asyncio
import inspect

import pytest
from pydantic import BaseModel, ValidationError

from harness_conformance_adapter import Case, Errors, Skip, Turn, to_json
from harness_conformance_adapter.pydantic_schema import (
    UNSET, Untranslatable, keyword_function, keyword_handler, keyword_model, model_for, parameters, present_arguments,
    root_model, skip_for, uses_aliases,
)


def model(schema):
    return root_model(schema, "t")


def test_closed_object_refuses_unknown_fields_and_open_object_keeps_them():
    closed = model({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False})
    with pytest.raises(ValidationError):
        closed.model_validate({"n": 1, "x": 2})
    opened = model({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert to_json(opened.model_validate({"n": 1, "x": 2})) == {"n": 1, "x": 2}


@pytest.mark.parametrize("bad", [{}, {"k": "c"}, {"k": "a", "n": 4}, {"k": "a", "s": "xyz"}, {"k": "a", "l": ["q", "r"]}])
def test_bounds_enum_and_required_are_enforced(bad):
    m = model({"type": "object", "required": ["k"], "properties": {
        "k": {"enum": ["a", "b"]}, "n": {"type": "integer", "minimum": 1, "maximum": 3},
        "s": {"type": "string", "maxLength": 2}, "l": {"type": "array", "items": {"type": "string"}, "maxItems": 1}}})
    m.model_validate({"k": "a", "n": 2, "s": "xy", "l": ["q"]})
    with pytest.raises(ValidationError):
        m.model_validate(bad)


def test_absent_optional_fields_stay_absent():
    m = model({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
    assert to_json(m.model_validate({"a": "x"})) == {"a": "x"}
    assert present_arguments({"a": "x", "b": UNSET}) == {"a": "x"}


def test_the_generated_schema_states_what_the_case_states():
    m = model({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
               "required": ["n"], "additionalProperties": False})
    schema = m.model_json_schema()
    assert schema["required"] == ["n"] and schema["additionalProperties"] is False
    assert schema["properties"]["n"]["minimum"] == 0


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True}}},
    {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}},
    {"type": "object", "properties": {"a": {"enum": [1.5]}}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
    {"type": "array"},
])
def test_unexpressible_keywords_are_refused_not_dropped(schema):
    with pytest.raises(Untranslatable):
        model(schema)


def test_a_signature_cannot_close_the_object_and_a_refusal_is_a_skip():
    with pytest.raises(Untranslatable) as info:
        parameters({"type": "object", "properties": {}, "additionalProperties": False}, "t")
    skip = skip_for("t", info.value)
    assert isinstance(skip, Skip) and str(skip).startswith("tool 't': a function signature cannot close")


def test_property_names_that_are_not_identifiers_use_aliases():
    m = model({"type": "object", "properties": {"weird-name": {"type": "string"}}})
    assert uses_aliases(m) and issubclass(m, BaseModel)
    assert to_json(m.model_validate({"weird-name": "w"})) == {"weird-name": "w"}


def turn_with(schema):
    """A turn of one tool `set-n` with this input schema, whose handler echoes its arguments."""
    case = Case.parse({"id": "x", "calls": [], "tools": [{
        "name": "set-n", "input_schema": schema, "behavior": {"return": {"echo_args": True}}}]})
    return Turn(case=case, unit="chars", errors=Errors(domain=ValueError, transport=ConnectionError,
                                                       internal=RuntimeError))


OPTIONAL_N = {"type": "object", "properties": {"n": {"type": "integer"}, "note": {"type": "string"}}, "required": ["n"]}


def test_a_keyword_function_has_the_schemas_signature_and_runs_the_script():
    turn = turn_with(OPTIONAL_N)
    fn = keyword_function(turn.case.tools[0], turn)
    params = inspect.signature(fn).parameters
    assert list(params) == ["n", "note"] and fn.__name__ == "set_n"
    assert params["n"].kind is inspect.Parameter.KEYWORD_ONLY and params["n"].default is inspect.Parameter.empty
    assert params["note"].default is UNSET and fn.__annotations__["n"] is int
    # An optional field the model left out is not passed on: the handler sees what the model sent.
    assert asyncio.run(fn(n=3, note=UNSET)) == {"n": 3}
    assert turn.invocations == [{"tool": "set-n", "args": {"n": 3}}]


def test_a_keyword_function_takes_another_schema_and_skips_what_a_signature_cannot_say():
    closed = {**OPTIONAL_N, "additionalProperties": False}
    turn = turn_with(closed)
    with pytest.raises(Skip, match=r"^tool 'set-n': a function signature cannot close"):
        keyword_function(turn.case.tools[0], turn)
    fn = keyword_function(turn.case.tools[0], turn, schema=OPTIONAL_N)
    assert list(inspect.signature(fn).parameters) == ["n", "note"]


def test_a_keyword_model_validates_and_its_handler_gets_the_fields_by_name():
    turn = turn_with(OPTIONAL_N)
    model = keyword_model(turn.case.tools[0], "the harness passes them by name")
    fields = model.model_validate({"n": 5})
    handler = keyword_handler(turn.case.tools[0], turn)
    assert asyncio.run(handler(**dict(fields))) == {"n": 5}
    with pytest.raises(ValidationError):
        model.model_validate({"n": "x"})


@pytest.mark.parametrize("schema, reason", [
    ({"type": "object", "properties": {"weird-name": {"type": "string"}}},
     "tool 'set-n': a property name is not a Python identifier, and the harness passes them by name"),
    ({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}, "tool 'set-n': "),
])
def test_a_keyword_model_skips_what_keyword_arguments_cannot_carry(schema, reason):
    turn = turn_with(schema)
    with pytest.raises(Skip) as info:
        keyword_model(turn.case.tools[0], "the harness passes them by name")
    assert str(info.value).startswith(reason)


def test_model_for_keeps_names_that_are_not_identifiers_and_skips_the_untranslatable():
    turn = turn_with({"type": "object", "properties": {"weird-name": {"type": "string"}}})
    model = model_for(turn.case.tools[0])
    assert to_json(model.model_validate({"weird-name": "w"})) == {"weird-name": "w"}
    turn = turn_with({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}})
    with pytest.raises(Skip, match=r"^tool 'set-n': "):
        model_for(turn.case.tools[0])

def test_closed_signature_is_closed_for_a_closed_object_and_takes_kwargs_for_an_open_one():
    from pydantic import validate_call

    from harness_conformance_adapter.pydantic_schema import closed_signature

    def function_for(schema):
        signature, annotations = closed_signature(schema, "t")

        def fn(**kwargs):
            return present_arguments(kwargs)

        fn.__signature__, fn.__annotations__ = signature, annotations
        return validate_call(fn)

    props = {"n": {"type": "integer"}}
    closed = function_for({"type": "object", "properties": props, "additionalProperties": False})
    assert closed(n=1) == {"n": 1}
    with pytest.raises(ValidationError):
        closed(n=1, x=2)
    opened = function_for({"type": "object", "properties": props})
    assert opened(n=1, x=2) == {"n": 1, "x": 2}
    with pytest.raises(Untranslatable):
        closed_signature({"type": "object", "properties": props, "additionalProperties": {"type": "string"}}, "t")
