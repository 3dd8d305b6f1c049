"""Tests of the shared adapter plumbing: generated outputs, JSON pointers, schema translation.

Run with any adapter venv that has pydantic (ci/adapters.sh uses mcp-python's):
    conformance/adapters/mcp-python/.venv/bin/python -m unittest discover -s conformance/adapters/python-common
"""

import json
import math
import unittest

import hcproto
import schema2py
from pydantic import BaseModel, ValidationError


class Generate(unittest.TestCase):
    def test_lines_fill_the_size_without_passing_it_and_end_with_last(self):
        text = hcproto.expand({"lines": {"size": 100, "width": 10, "last": "END"}}, "chars")
        self.assertLessEqual(len(text), 100)
        self.assertGreater(len(text) + 11, 100)  # one more line would not fit
        self.assertTrue(text.endswith("\nEND"))
        self.assertEqual(text.split("\n")[0], "000001 xxx")

    def test_repeat_counts_whole_units_in_the_requested_unit(self):
        self.assertEqual(hcproto.expand({"repeat": "é", "size": 5}, "bytes"), "éé")
        self.assertEqual(hcproto.expand({"repeat": "é", "size": 5}, "chars"), "ééééé")

    def test_concat_joins_in_order(self):
        gen = {"concat": [{"text": "a"}, {"repeat": "b", "size": 2}, {"text": "c"}]}
        self.assertEqual(hcproto.expand(gen, "chars"), "abbc")


class Behaviours(unittest.TestCase):
    raisers = hcproto.Raisers(domain=ValueError, transport=ConnectionError, internal=RuntimeError)

    def test_mutation_reaches_nested_values_and_echo_sees_it(self):
        args = {"o": {"a": "x"}, "l": [1, 2]}
        behavior = {"mutate_args": {"set": {"/o/a": "y", "/l/0": 9, "/new": True}}, "then": {"return": {"echo_args": True}}}
        out = hcproto.perform_sync(behavior, args, "chars", self.raisers)
        self.assertEqual(out, {"o": {"a": "y"}, "l": [9, 2], "new": True})

    def test_each_raise_kind_uses_its_harness_idiom(self):
        for kind, exc in [("domain", ValueError), ("transport", ConnectionError), ("internal", RuntimeError)]:
            with self.assertRaises(exc):
                hcproto.perform_sync({"raise": {"kind": kind, "message": "m"}}, {}, "chars", self.raisers)

    def test_non_finite_is_a_float_and_reports_spell_it_out(self):
        value = hcproto.perform_sync({"return": {"non_finite": "-inf"}}, {}, "chars", self.raisers)
        self.assertTrue(math.isinf(value) and value < 0)
        self.assertEqual(json.dumps(hcproto.jsonable([value]), allow_nan=False), '[{"$non_finite": "-inf"}]')

    def test_invocations_copy_arguments_on_entry(self):
        log, args = hcproto.Invocations(), {"a": [1]}
        log.record("t", "id1", args)
        args["a"].append(2)
        self.assertEqual(log.entries, [{"tool": "t", "args": {"a": [1]}, "tool_use_id": "id1"}])


class Translation(unittest.TestCase):
    def model(self, schema):
        return schema2py.root_model(schema, "t")

    def test_closed_object_refuses_unknown_fields_and_open_object_keeps_them(self):
        closed = self.model({"type": "object", "properties": {"n": {"type": "integer"}}, "additionalProperties": False})
        with self.assertRaises(ValidationError):
            closed.model_validate({"n": 1, "x": 2})
        opened = self.model({"type": "object", "properties": {"n": {"type": "integer"}}})
        self.assertEqual(hcproto.jsonable(opened.model_validate({"n": 1, "x": 2})), {"n": 1, "x": 2})

    def test_bounds_enum_and_required_are_enforced(self):
        m = self.model({"type": "object", "required": ["k"], "properties": {
            "k": {"enum": ["a", "b"]}, "n": {"type": "integer", "minimum": 1, "maximum": 3},
            "s": {"type": "string", "maxLength": 2}, "l": {"type": "array", "items": {"type": "string"}, "maxItems": 1}}})
        m.model_validate({"k": "a", "n": 2, "s": "xy", "l": ["q"]})
        for bad in [{}, {"k": "c"}, {"k": "a", "n": 4}, {"k": "a", "s": "xyz"}, {"k": "a", "l": ["q", "r"]}]:
            with self.assertRaises(ValidationError, msg=bad):
                m.model_validate(bad)

    def test_absent_optional_fields_stay_absent(self):
        m = self.model({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}})
        self.assertEqual(hcproto.jsonable(m.model_validate({"a": "x"})), {"a": "x"})

    def test_the_generated_schema_states_what_the_case_states(self):
        m = self.model({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
                        "required": ["n"], "additionalProperties": False})
        schema = m.model_json_schema()
        self.assertEqual(schema["required"], ["n"])
        self.assertIs(schema["additionalProperties"], False)
        self.assertEqual(schema["properties"]["n"]["minimum"], 0)

    def test_unexpressible_keywords_are_refused_not_dropped(self):
        for schema in [
            {"type": "object", "properties": {"a": {"type": "array", "uniqueItems": True}}},
            {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}},
            {"type": "object", "properties": {"a": {"enum": [1.5]}}},
            {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}},
            {"type": "array"},
        ]:
            with self.assertRaises(schema2py.Untranslatable, msg=schema):
                self.model(schema)

    def test_a_signature_cannot_close_the_object(self):
        with self.assertRaises(schema2py.Untranslatable):
            schema2py.parameters({"type": "object", "properties": {}, "additionalProperties": False}, "t")

    def test_property_names_that_are_not_identifiers_use_aliases(self):
        m = self.model({"type": "object", "properties": {"weird-name": {"type": "string"}}})
        self.assertTrue(schema2py.uses_aliases(m))
        self.assertEqual(hcproto.jsonable(m.model_validate({"weird-name": "w"})), {"weird-name": "w"})
        self.assertTrue(issubclass(m, BaseModel))


if __name__ == "__main__":
    unittest.main()
