"""Finding an `Adapter` from a `MODULE:ATTRIBUTE` spec (the command line and the pytest plugin).

Why this module exists: both entry points accept the same spec, and both must fail with the same
clear error when it names nothing usable.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any

from .adapter import Adapter
from .errors import ErrorCode, KitError, quote


def _import(module: str) -> Any:
    if module.endswith(".py") or os.sep in module:
        path = os.path.abspath(module)
        name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise KitError(ErrorCode.BAD_ADAPTER_SPEC, spec=quote(module), problem="not a Python file")
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[name] = loaded
        sys.path.insert(0, os.path.dirname(path))
        spec.loader.exec_module(loaded)
        return loaded
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return importlib.import_module(module)


def load_adapter(spec: str) -> Adapter[Any]:
    """The Adapter that `MODULE:ATTRIBUTE` names (raises KitError(BAD_ADAPTER_SPEC))."""
    module, sep, attribute = spec.rpartition(":")
    if not sep or not module or not attribute:
        raise KitError(ErrorCode.BAD_ADAPTER_SPEC, spec=quote(spec), problem="expected MODULE:ATTRIBUTE")
    try:
        loaded = _import(module)
    except ImportError as exc:
        raise KitError(ErrorCode.BAD_ADAPTER_SPEC, spec=quote(spec), problem=f"cannot import: {exc}") from None
    value = getattr(loaded, attribute, None)
    if not isinstance(value, Adapter):
        raise KitError(ErrorCode.BAD_ADAPTER_SPEC, spec=quote(spec),
                       problem=f"{attribute} is a {type(value).__name__}, not an Adapter")
    return value
