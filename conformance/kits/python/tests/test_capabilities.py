"""The hello is built from typed capabilities and refuses words outside the protocol's vocabulary."""

import pytest

from harness_conformance_adapter import Cap, Capabilities, Deadline, ErrorCode, Implementation, KitError, hello

TOY = Implementation("toy", "python", "0.1", "https://example.invalid/toy")


def test_a_full_hello_says_exactly_what_was_declared():
    caps = Capabilities(cap=Cap("bytes", 4096, ("head_tail", "head_only"), configurable=True),
                        codes={"invalid_arguments": "BAD_ARGS"}, retryability=True,
                        deadline=Deadline(configurable=True, default_ms=30000), keywords=["type"],
                        call_forms=["structured", "raw"], parallel=True, history=True, features=["budget"],
                        folds={"malformed_call": "invalid_arguments"}, behaviors=["non_finite_in"],
                        call_ids=False, dialect="anthropic-messages")
    assert hello(TOY, caps) == {
        "protocol": 1,
        "implementation": {"name": "toy", "language": "python", "version": "0.1", "homepage": "https://example.invalid/toy"},
        "capabilities": {
            "cap": {"unit": "bytes", "limit": 4096, "configurable": True, "strategies": ["head_tail", "head_only"]},
            "codes": {"invalid_arguments": "BAD_ARGS"}, "retryability": True,
            "deadline": {"configurable": True, "default_ms": 30000}, "keywords": ["type"],
            "call_forms": ["structured", "raw"], "parallel": True, "history": True, "features": ["budget"],
            "folds": {"malformed_call": "invalid_arguments"}, "behaviors": ["non_finite_in"],
            "call_ids": False, "dialect": "anthropic-messages"},
    }


def test_the_defaults_are_the_conservative_values():
    assert hello(Implementation("t", "python", ""), Capabilities())["capabilities"] == {
        "cap": None, "retryability": False, "keywords": [], "call_forms": ["structured"], "parallel": False,
        "history": False}


@pytest.mark.parametrize("caps, field", [
    (Capabilities(cap=Cap("words", 10)), "cap.unit"),  # type: ignore[arg-type]
    (Capabilities(cap=Cap("chars", 0)), "cap.limit"),
    (Capabilities(cap=Cap("chars", 10, ())), "cap.strategies"),
    (Capabilities(cap=Cap("chars", 10, ("middle_out",))), "cap.strategies"),
    (Capabilities(cap=Cap("chars", 10, ("head_tail", "head_tail"))), "cap.strategies"),
    (Capabilities(codes={"invalid_argument": "X"}), "codes"),
    (Capabilities(codes={"timeout": 3}), "codes.timeout"),  # type: ignore[dict-item]
    (Capabilities(deadline=Deadline(True, -1)), "deadline.default_ms"),
    (Capabilities(call_forms=["structured", "json"]), "call_forms"),
    (Capabilities(keywords=["type", "type"]), "keywords"),
    (Capabilities(features=["Budget"]), "features"),
    (Capabilities(keywords=["type", "typo"]), "keywords"),
    (Capabilities(folds={"timeout": "internal_error"}), "folds.timeout"),  # the target has no code
    (Capabilities(codes={"timeout": "T"}, folds={"timeout": "slow"}), "folds.timeout"),
    (Capabilities(behaviors=["dance"]), "behaviors"),
    (Capabilities(parallel="yes"), "parallel"),  # type: ignore[arg-type]
    (Capabilities(call_ids="no"), "call_ids"),  # type: ignore[arg-type]
    (Capabilities(dialect="anthropic"), "dialect"),
])
def test_a_wrong_capability_is_refused_naming_its_field(caps, field):
    with pytest.raises(KitError) as info:
        hello(TOY, caps)
    assert info.value.code is ErrorCode.INVALID_CAPABILITY
    assert info.value.details["field"] == field


def test_an_implementation_without_a_name_is_refused():
    with pytest.raises(KitError) as info:
        hello(Implementation("", "python", "1"), Capabilities())
    assert info.value.code is ErrorCode.INVALID_IMPLEMENTATION
