"""Translate a case's JSON Schema into the pydantic types a harness builds its tools from.

Optional: needs pydantic (`pip install harness-conformance-adapter[pydantic]`); the rest of the kit
is standard library only. Moved here from the repository's adapters (python-common/schema2py.py):
translation is adapter-side work, and every pydantic-based harness needs the same rules.

Why this module exists: MCPServer, pydantic-ai and langchain tools are built from Python
signatures and pydantic models, not from raw JSON Schema. To test those harnesses on the suite's
cases, an adapter must write, for each case schema, the model an ordinary user would have written
by hand. This module does that for the keywords listed in KEYWORDS, and raises Untranslatable for
anything else (an unknown keyword, a float enum, `uniqueItems`, `oneOf`, a schema-valued
`additionalProperties` beside `properties`, ...), so the adapter can SKIP the case with that reason
instead of testing a weaker schema than the case declares.

Translation rules (each is what a user writing the model by hand would write):
- `type`: string→str, integer→int, number→float, boolean→bool, null→None, array→list[...],
  object→a nested model (with `properties`) or dict[str, ...]; a list of types → a Union.
- `properties`/`required`: model fields; a field not in `required` defaults to UNSET (never shown),
  or to the schema's `default` when it has one.
- `additionalProperties: false` → `extra="forbid"`; absent or true → `extra="allow"` (the schema
  allows unknown fields, so the model keeps them; no policy is imposed that the schema does not state).
- `enum`/`const` → Literal[...] (strings, integers, booleans, null only).
- `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`/`minLength`/`maxLength`/
  `pattern`/`minItems`/`maxItems` → pydantic Field constraints.
- `anyOf` → Union (pydantic's smart mode).
- `description`/`title` are carried as annotations.

Most harnesses of this kind hand a tool's validated arguments to the user's function as keyword
arguments. The tools at the end build that side for an adapter, so that every such adapter
does it the same way: `keyword_function` (the function itself, its signature written from the
schema: MCPServer, FastMCP), `keyword_model` (the model a harness validates with, for harnesses
that take one beside the function: langchain, Agent Framework, CrewAI; `model_for` when the harness
also accepts property names that are not identifiers: LlamaIndex) and `keyword_handler` (the
function for such a model).

pydantic's default (lax) mode is kept on purpose: it is what the harness does for its users.
"""

from __future__ import annotations

import inspect
import keyword
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from .behaviours import AsyncHandler
from .case import Tool
from .jsonio import UNSET
from .turn import Skip, Turn

KEYWORDS = [
    "type", "properties", "required", "additionalProperties", "enum", "const",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "items", "minItems", "maxItems",
    "anyOf", "description", "title", "default",
]

_SCALARS = {"string": str, "integer": int, "number": float, "boolean": bool, "null": type(None)}
_NUMERIC = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt",
            "multipleOf": "multiple_of"}
_LENGTH = {"minLength": "min_length", "maxLength": "max_length", "pattern": "pattern"}
_ITEMS = {"minItems": "min_length", "maxItems": "max_length"}


class Untranslatable(Skip):
    """The schema uses something the harness's types cannot express; the message says what and where.

    A `Skip`: raised out of an adapter's `build`, the case is skipped with this reason. Adapters
    usually prefix the tool's name (`skip_for`).
    """


def skip_for(tool_name: str, exc: Untranslatable) -> Skip:
    """The Skip an adapter raises for a tool whose schema cannot be translated."""
    return Skip(f"tool {tool_name!r}: {exc}")


def present_arguments(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the model sent, from a signature's keyword arguments (UNSET defaults dropped)."""
    return {k: v for k, v in kwargs.items() if v is not UNSET}


class _Names:
    def __init__(self, prefix: str) -> None:
        self.prefix, self.count = prefix, 0

    def next(self) -> str:
        self.count += 1
        return f"{self.prefix}_{self.count}"


def _check_keywords(schema: Mapping[str, Any], path: str) -> None:
    for key in schema:
        if key not in KEYWORDS:
            raise Untranslatable(f"keyword {key!r} at {path or '/'} has no equivalent in pydantic types")


def _literal(values: list[Any], path: str) -> Any:
    for v in values:
        if not (v is None or isinstance(v, (str, int, bool))) or isinstance(v, float):
            raise Untranslatable(f"enum/const value {v!r} at {path or '/'} cannot be a typing.Literal")
    return Literal[tuple(values)]


def annotation(schema: Any, path: str, names: _Names) -> Any:
    """The annotation (with constraints) a hand-written model would use for `schema`."""
    if schema is True or schema == {}:
        return Any
    if not isinstance(schema, dict):
        raise Untranslatable(f"schema {schema!r} at {path or '/'} cannot be expressed as a type")
    _check_keywords(schema, path)
    if "const" in schema:
        return _literal([schema["const"]], path)
    if "enum" in schema:
        return _literal(list(schema["enum"]), path)
    if "anyOf" in schema:
        extra = set(schema) - {"anyOf", "description", "title", "default"}
        if extra:
            raise Untranslatable(f"anyOf beside {sorted(extra)} at {path or '/'}")
        members = [annotation(s, f"{path}/anyOf/{i}", names) for i, s in enumerate(schema["anyOf"])]
        return Union[tuple(members)]
    types = schema.get("type")
    if types is None:
        constrained = set(schema) - {"description", "title", "default"}
        if constrained:
            raise Untranslatable(f"keywords {sorted(constrained)} without `type` at {path or '/'}")
        return Any
    if isinstance(types, list):
        non_null = [t for t in types if t != "null"]
        if len(non_null) == 1 and "null" in types:
            return Optional[annotation({**schema, "type": non_null[0]}, path, names)]
        if set(schema) - {"type", "description", "title", "default"}:
            raise Untranslatable(f"a list of types with constraints at {path or '/'}")
        return Union[tuple(annotation({"type": t}, path, names) for t in types)]
    if types in _SCALARS:
        base = _SCALARS[types]
        constraints: dict[str, Any] = {}
        for key, arg in {**_NUMERIC, **_LENGTH}.items():
            if key in schema:
                allowed = _NUMERIC if types in ("integer", "number") else _LENGTH if types == "string" else {}
                if key not in allowed:
                    raise Untranslatable(f"{key!r} on type {types!r} at {path or '/'}")
                constraints[arg] = schema[key]
        _reject(schema, path, _ITEMS, "properties", "items", "required", "additionalProperties")
        return Annotated[base, Field(**constraints)] if constraints else base
    if types == "array":
        _reject(schema, path, _NUMERIC, _LENGTH, "properties", "required", "additionalProperties")
        items = schema.get("items", True)
        if isinstance(items, list):
            raise Untranslatable(f"tuple-form `items` at {path or '/'}")
        inner = annotation(items, f"{path}/items", names)
        constraints = {arg: schema[key] for key, arg in _ITEMS.items() if key in schema}
        return Annotated[list[inner], Field(**constraints)] if constraints else list[inner]  # type: ignore[valid-type]
    if types == "object":
        _reject(schema, path, _NUMERIC, _LENGTH, _ITEMS, "items")
        return object_model(schema, path, names)
    raise Untranslatable(f"unknown type {types!r} at {path or '/'}")


def _reject(schema: Mapping[str, Any], path: str, *groups: Any) -> None:
    for group in groups:
        keys = group if isinstance(group, dict) else {group: None}
        for key in keys:
            if key in schema:
                raise Untranslatable(f"{key!r} on type {schema.get('type')!r} at {path or '/'}")


def object_model(schema: Mapping[str, Any], path: str, names: _Names) -> Any:
    """A pydantic model class for an object schema (or dict[str, T] for a map without properties)."""
    props = schema.get("properties")
    extra_schema = schema.get("additionalProperties", True)
    if props is None and extra_schema is not False:
        if extra_schema is True:
            return dict[str, Any]
        return dict[str, annotation(extra_schema, f"{path}/additionalProperties", names)]  # type: ignore[misc]
    if extra_schema not in (True, False):
        raise Untranslatable(f"schema-valued additionalProperties beside properties at {path or '/'}")
    fields: dict[str, Any] = {}
    for i, (key, sub) in enumerate((props or {}).items()):
        field = key if plain_name(key) else f"f{i}"
        fields[field] = field_definition(key, sub, key in schema.get("required", []), f"{path}/{key}", names)
    missing = set(schema.get("required", [])) - set(props or {})
    if missing:
        raise Untranslatable(f"required names {sorted(missing)} without properties at {path or '/'}")
    config = ConfigDict(extra="forbid" if extra_schema is False else "allow", populate_by_name=False)
    return create_model(names.next(), __config__=config, **fields)


def plain_name(key: str) -> bool:
    """Whether a property can be a pydantic field under its own name (else it gets an alias)."""
    return (key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_")
            and not hasattr(BaseModel, key))


def uses_aliases(model: Any) -> bool:
    """Whether any field of `model` or its nested models is stored under a name other than its property's."""
    fields = getattr(model, "model_fields", None)
    if fields is None:
        return any(uses_aliases(a) for a in getattr(model, "__args__", ()) or ())
    return any((info.alias is not None and info.alias != name) or uses_aliases(info.annotation)
               for name, info in fields.items())


def field_definition(key: str, schema: Any, required: bool, path: str, names: _Names) -> tuple[Any, Any]:
    ann = annotation(schema, path, names)
    meta: dict[str, Any] = {} if plain_name(key) else {"alias": key}
    if isinstance(schema, dict) and "description" in schema:
        meta["description"] = schema["description"]
    if required:
        return ann, Field(**meta)
    default = schema.get("default", UNSET) if isinstance(schema, dict) else UNSET
    return ann, Field(default=default, **meta)


def root_model(schema: Any, tool_name: str) -> type[BaseModel]:
    """The arguments model for a tool: the top-level schema must be an object with properties."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Untranslatable("the tool's input schema is not `type: object`; a Python tool takes keyword arguments")
    _check_keywords(schema, "")
    schema = dict(schema)
    schema.setdefault("properties", {})
    model: type[BaseModel] = object_model(schema, "", _Names(safe_name(tool_name) + "_args"))
    return model


def parameters(schema: Any, tool_name: str) -> list[tuple[str, Any, Any]]:
    """(name, annotation, default) for each top-level property, for a function signature.

    A signature cannot say `additionalProperties: false` or hold a property that is not a Python
    identifier; both are Untranslatable.
    """
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise Untranslatable("the tool's input schema is not `type: object`; a Python function takes keyword arguments")
    _check_keywords(schema, "")
    extra = set(schema) - {"type", "properties", "required", "description", "title", "additionalProperties"}
    if extra:
        raise Untranslatable(f"top-level {sorted(extra)} cannot be expressed in a function signature")
    if schema.get("additionalProperties", True) is not True:
        raise Untranslatable("a function signature cannot close the argument object (additionalProperties: false)")
    names = _Names(safe_name(tool_name))
    out = []
    required = schema.get("required", [])
    missing = set(required) - set(schema.get("properties", {}))
    if missing:
        raise Untranslatable(f"required names {sorted(missing)} without properties")
    for key, sub in schema.get("properties", {}).items():
        if not key.isidentifier() or keyword.iskeyword(key) or key.startswith("_"):
            raise Untranslatable(f"property {key!r} is not usable as a Python parameter name")
        ann = annotation(sub, f"/{key}", names)
        if isinstance(sub, dict) and "description" in sub:
            ann = Annotated[ann, Field(description=sub["description"])]
        if key in required:
            default = inspect.Parameter.empty
        else:
            default = sub.get("default", UNSET) if isinstance(sub, dict) else UNSET
        out.append((key, ann, default))
    return out


def safe_name(name: str) -> str:
    """A Python identifier made from a tool's name (for generated functions and models)."""
    cleaned = "".join(c if c.isalnum() else "_" for c in name) or "tool"
    return cleaned if cleaned[0].isalpha() else "t_" + cleaned


def keyword_handler(tool: Tool, turn: Turn) -> AsyncHandler:
    """An async function `handler(**arguments)` that performs the tool's script (recorded as an
    invocation) on the arguments the model sent: the keyword arguments a harness passes, less the
    UNSET defaults of fields the model left out (`present_arguments`)."""
    handle = turn.async_handler(tool)

    async def handler(**kwargs: Any) -> Any:
        return await handle(present_arguments(kwargs))

    return handler


def keyword_function(tool: Tool, turn: Turn, schema: Any = None) -> AsyncHandler:
    """The function a user would write for this tool: keyword-only parameters from its input schema
    (`parameters`; `schema`, when given, in its place), annotated, for a harness that builds its
    validator from the function's signature. Raises Skip when a signature cannot state the schema."""
    try:
        params = parameters(tool.input_schema if schema is None else schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None
    handler = keyword_handler(tool, turn)
    handler.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
    )
    handler.__annotations__ = {p: a for p, a, _ in params}
    handler.__name__ = safe_name(tool.name)
    return handler


def model_for(tool: Tool) -> type[BaseModel]:
    """The model a user would write for the tool's arguments (`root_model`); Skip, naming the tool,
    when its input schema cannot be translated."""
    try:
        return root_model(tool.input_schema, tool.name)
    except Untranslatable as exc:
        raise skip_for(tool.name, exc) from None


def keyword_model(tool: Tool, passes: str) -> type[BaseModel]:
    """The model a user would write for the tool's arguments (`model_for`), for a harness that
    validates with it and passes the validated fields to the function by name. Raises Skip when the
    schema cannot be translated, or when a property name is not a Python identifier (no keyword
    argument can carry it); `passes` ends that reason, saying who passes the fields and how
    ("langchain passes validated arguments by field name")."""
    model = model_for(tool)
    if uses_aliases(model):
        raise Skip(f"tool {tool.name!r}: a property name is not a Python identifier, and {passes}")
    return model

def closed_signature(schema: Any, tool_name: str) -> tuple[inspect.Signature, dict[str, Any]]:
    """The keyword-only signature (and its `__annotations__`) for a harness that validates calls
    against the whole signature (`pydantic.validate_call`), where a plain signature is a closed
    object: unknown keyword arguments are refused, and the schema written from it says
    `additionalProperties: false`.

    `additionalProperties: false` gives the plain signature; absent or true adds `**kwargs: Any`,
    the only form of an open object a signature has; a schema-valued one is Untranslatable.
    Optional parameters default to `UNSET` (`present_arguments` drops them).
    """
    extra = schema.get("additionalProperties", True) if isinstance(schema, dict) else True
    if extra not in (True, False):
        raise Untranslatable("a schema-valued additionalProperties has no form in a function signature")
    if isinstance(schema, dict):
        schema = {k: v for k, v in schema.items() if k != "additionalProperties"}
    params = parameters(schema, tool_name)
    signature = [inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d) for p, a, d in params]
    annotations = {p: a for p, a, _ in params}
    if extra is True:
        name = "kwargs"
        while name in annotations:
            name = "_" + name
        signature.append(inspect.Parameter(name, inspect.Parameter.VAR_KEYWORD, annotation=Any))
        annotations[name] = Any
    return inspect.Signature(signature), annotations
