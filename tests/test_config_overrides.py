"""--set reaches list items; small inputs that used to crash: usage shapes, confirmation text."""

from __future__ import annotations

import pytest

from toolgym.config import load_config
from toolgym.envs.conversation import asks_confirmation
from toolgym.errors import ConfigError
from toolgym.generators.usage import Usage


def test_set_reaches_list_items_in_a_shipped_config():
    config = load_config("configs/openai_teacher.yaml", ["teachers.0.base_url=http://10.1.2.3:9000/v1",
                                                           "teachers.0.sampling.temperature=0.1"])
    assert config.teachers[0].base_url == "http://10.1.2.3:9000/v1"
    assert config.teachers[0].sampling["temperature"] == 0.1
    single = load_config("configs/quickstart.yaml", ["teachers.0.reasoning=true"])  # `teacher:` in the file
    assert single.teachers[0].reasoning is True


@pytest.mark.parametrize("assignment, words", [
    ("teachers.5.base_url=x", "teachers is a list of 1; use an index 0..0"),
    ("teachers.name=x", "teachers is a list of 1"),
    ("seed.x=1", "'seed' is not a section"),
])
def test_set_errors_name_the_way_out(assignment, words):
    with pytest.raises(ConfigError, match=words):
        load_config("configs/openai_teacher.yaml", [assignment])


def test_credentials_in_base_url_are_not_in_the_public_config():
    config = load_config("configs/openai_teacher.yaml", ["teachers.0.base_url=http://bob:s3cret-pw@host:1/v1?api_key=k9z"])
    shown = str(config.public_dict())
    assert "s3cret-pw" not in shown and "k9z" not in shown and "host:1" in shown


@pytest.mark.parametrize("usage", [None, 5, "x", [1], {"prompt_tokens": "7"}, {"prompt_tokens": -3},
                                   {"completion_tokens_details": 5}, {"prompt_tokens": True}])
def test_usage_takes_only_sane_counts(usage):
    total = Usage()
    total.add(usage)
    assert total.calls == 1 and total.prompt_tokens == total.completion_tokens == total.reasoning_tokens == 0


@pytest.mark.parametrize("text, asks", [
    ("Shall I proceed? (yes/no)", True),
    ("Can you confirm the address?", True),
    ("I will go ahead. Anything else?", False),
    ("Please confirm. Thanks", False),
    ("Confirm this, then we go on?", True),
    ("unconfirmed?", False),
    ("I'll cancel order #W1. Shall I?", True),
    ("Refund $12.50 to the Visa. Do you want me to do that?", True),
    ("OK to switch the plan now?", True),
    ("Is there anything else I can help with?", False),
])
def test_confirmation_reading(text, asks):
    assert asks_confirmation(text) is asks


@pytest.mark.parametrize("text, secret", [
    ("key sk-abc123 rejected", "sk-abc123"),
    ("key sk-onlyletters rejected", "sk-onlyletters"),
    ("Authorization: Bearer tok-77", "tok-77"),
    ('{"authorization": "Bearer q1w2"}', "q1w2"),
    ("http://alice:pw-9@host/v1", "pw-9"),
    ("GET /v1?api_key=z9y8&x=1", "z9y8"),
])
def test_scrub_masks_secret_shapes(text, secret):
    from toolgym.generators.redaction import scrub

    assert secret not in scrub(text) and "[redacted]" in scrub(text)


def test_scrub_keeps_ordinary_words():
    from toolgym.generators.redaction import scrub

    assert scrub("hf_dataset of task-12 from http://host:8000/v1") == "hf_dataset of task-12 from http://host:8000/v1"
