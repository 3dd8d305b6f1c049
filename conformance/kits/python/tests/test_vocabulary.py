"""The kit's vocabulary is the protocol's: generated from the schemas, and every word implemented.

A word the protocol gains (a behaviour, an output, a capability field) fails these tests until
the kit implements it; a hand edit of vocabulary.py fails the first one.
"""

import dataclasses
import importlib.util
import sys
from pathlib import Path

from harness_conformance_adapter import Capabilities, Errors, Implementation, behaviours, vocabulary

KITS = Path(__file__).resolve().parents[2]


def load_generator():
    spec = importlib.util.spec_from_file_location("generate_vocabulary", KITS / "generate_vocabulary.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_vocabulary"] = module
    spec.loader.exec_module(module)
    return module


def test_the_vocabulary_modules_are_what_the_schemas_give():
    assert load_generator().stale() == []


def test_the_installed_vocabulary_is_the_generated_one():
    expected = load_generator().vocabulary()
    for name, value in expected.items():
        got = getattr(vocabulary, name)
        assert (list(got) if isinstance(got, tuple) else got) == value, name


def test_every_behaviour_output_and_generator_is_implemented():
    assert list(behaviours.STEPS) == list(vocabulary.BEHAVIOURS)
    assert list(behaviours.OUTPUTS) == list(vocabulary.OUTPUTS)
    assert list(behaviours.GENERATORS) == list(vocabulary.GENERATORS)
    assert sorted(behaviours._NON_FINITE) == sorted(vocabulary.NON_FINITE)


def test_every_raise_kind_has_an_error_factory():
    assert [f.name for f in dataclasses.fields(Errors)] == list(vocabulary.RAISE_KINDS)


def test_every_capability_and_implementation_field_is_modelled():
    assert [f.name for f in dataclasses.fields(Capabilities)] == list(vocabulary.CAPABILITY_FIELDS)
    assert [f.name for f in dataclasses.fields(Implementation)] == list(vocabulary.IMPLEMENTATION_FIELDS)


def test_every_optional_behaviour_is_implemented():
    implemented = (set(behaviours.STEPS) | set(behaviours.OUTPUTS) | set(behaviours.GENERATORS)
                   | set(behaviours.TOOL_OPTIONS) | set(behaviours.BLOCK_KINDS))
    assert set(vocabulary.OPTIONAL_BEHAVIOURS) <= implemented
