"""What a user types (YAML files, --set values) and what errors show: one line, no traceback, no secret.

Secrets are masked by the name of their key (any key holding key, token, secret, password,
authorization or credential) at any depth, as well as by shape; the usage hint stays readable.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolgym.cli import main as cli_main
from toolgym.config import load_config
from toolgym.errors import ConfigError
from toolgym.generators.redaction import MASK, scrub

SECRETS = ("SECRETKEY9876", "tok-2xq", "hunter2x", "Zm9vYmFy")


def _two_teachers(path: Path) -> Path:
    """Two teachers with one name (an error) whose entries carry secrets at several depths."""
    teacher = ("{name: t, type: openai, api_key: SECRETKEY9876, "
               "sampling: {extra_body: {access_token: tok-2xq, logins: [{user: bob, password: hunter2x}]}}}")
    path.write_text(f"domains: [retail]\nteachers:\n  - {teacher}\n  - {teacher}\n")
    return path


def _error(capsys, *argv: str) -> str:
    assert cli_main(list(argv)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err, err
    return err


def test_a_config_error_masks_every_secret_by_key_name(tmp_path, capsys):
    config = _two_teachers(tmp_path / "job.yaml")
    with pytest.raises(ConfigError, match="teacher names must be distinct") as caught:
        load_config(config)
    shown = str(caught.value)
    assert not any(secret in shown for secret in SECRETS), shown
    assert cli_main(["generate", str(config), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "teacher names must be distinct" in err and not any(secret in err for secret in SECRETS), err
    assert not (tmp_path / "out").exists()


def test_mask_value_masks_secret_names_at_any_depth_and_keeps_the_rest():
    from toolgym.generators.redaction import mask_value

    value = {"teachers": [{"name": "t", "api_key": "K1", "sampling": {"max_tokens": 256, "extra": [{"Authorization": "K2"}]}}],
             "user": {"credentials": {"a": "K3"}, "SECRET": ["K4"], "token": None}, "note": "Bearer K5abc"}
    masked = mask_value(value)
    assert masked["teachers"][0]["api_key"] == MASK and masked["teachers"][0]["sampling"]["extra"][0] == {"Authorization": MASK}
    assert masked["user"] == {"credentials": MASK, "SECRET": MASK, "token": None}
    assert masked["teachers"][0]["sampling"]["max_tokens"] == 256 and masked["teachers"][0]["name"] == "t"
    assert "K5abc" not in masked["note"]


@pytest.mark.parametrize("text, secret", [
    ("[{'name': 't', 'api_key': 'SECRETKEY9876'}]", "SECRETKEY9876"),
    ('{"teachers": [{"sampling": {"access_token": "tok-2xq"}}]}', "tok-2xq"),
    ("line 3: password: hunter2x", "hunter2x"),
    ("--set 'teachers.5.api_key=SECRETKEY9876': teachers is a list of 1", "SECRETKEY9876"),
    ("MY_SECRET=Zm9vYmFy and more", "Zm9vYmFy"),
    ("x-auth-token: tok-2xq", "tok-2xq"),
    ("proxy credential = 'hunter2x'", "hunter2x"),
])
def test_scrub_masks_values_named_by_a_secret_key(text, secret):
    assert secret not in scrub(text) and MASK in scrub(text)


@pytest.mark.parametrize("text", [
    "--set takes key=value (such as executor.type=ray), got 'noequals'",
    "usage: prompt_tokens: 12, completion_tokens=7, max_tokens=256",
    "unknown key 'x'. Allowed here: a, b",
])
def test_scrub_leaves_hints_and_counts_alone(text):
    assert scrub(text) == text


@pytest.mark.parametrize("text", [
    "a" * 262_144, "hf-" * 87_382, "x" * 262_141 + "://", "key" * 87_382, "a." * 131_072 + "key",
    "k=" * 131_072, "http://" * 37_449, "token: " * 37_449, "sk-" + "a" * 262_141, " " * 262_139 + "token",
])
def test_scrub_is_linear_in_the_text(text):
    started = time.process_time()
    scrub(text)
    spent = time.process_time() - started
    assert spent < 1.0, f"scrub of 256 KB ({text[:12]!r}...) took {spent:.2f} s of CPU (the URL pattern took minutes)"


def test_set_without_equals_shows_the_usage_hint(capsys):
    err = _error(capsys, "generate", "configs/quickstart.yaml", "--set", "noequals")
    assert "--set takes key=value (such as executor.type=ray), got 'noequals'" in err


@pytest.mark.parametrize("assignment, words", [
    ("seed=[1", "is not valid YAML (line 1, column 3): while parsing a flow sequence"),
    ("seed=!!python/name:os.system", "!!python/name:os.system is a YAML tag"),
    ("seed=!!python/object/apply:os.system [ls]", "!!python/object/apply:os.system is a YAML tag"),
    ("domains={a: 1", "is not valid YAML"),
    ("teachers.0.api_key=\"SECRETKEY9876", "is not valid YAML"),
])
def test_bad_yaml_in_set_is_one_line(capsys, assignment, words):
    err = _error(capsys, "generate", "configs/quickstart.yaml", "--set", assignment)
    assert words in err and "SECRETKEY9876" not in err, err


@pytest.mark.parametrize("text, words", [
    ("domains: [retail\n", "config file '{path}' is not valid YAML (line 2, column 1)"),
    ("domains: !!python/name:os.system\n", "!!python/name:os.system is a YAML tag"),
    ("seed: 1\n  bad: indent\n", "is not valid YAML (line 2"),
])
def test_bad_yaml_in_a_file_is_one_line(tmp_path, capsys, text, words):
    path = tmp_path / "job.yaml"
    path.write_text(text)
    err = _error(capsys, "generate", str(path))
    assert words.format(path=path) in err, err


def _alias_bomb(levels: int = 8) -> str:
    anchors = ["&a0 [retail, retail, retail, retail, retail, retail, retail, retail, retail]"]
    anchors += [f"&a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return "domains: [" + ", ".join(anchors) + "]\n"


def test_an_alias_bomb_is_refused_before_validation(tmp_path, capsys):
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb())  # 9^8 = 43 million values in two lines
    err = _error(capsys, "generate", str(path), "--out", str(tmp_path / "out"))
    assert "expands to more than 100,000 values" in err and "aliases" in err
    assert not (tmp_path / "out").exists()
    selfish = tmp_path / "self.yaml"
    selfish.write_text("domains: &d [retail, *d]\n")  # a list that holds itself
    assert "expands to more than" in _error(capsys, "generate", str(selfish))
    with pytest.raises(ConfigError, match="expands to more than"):
        load_config("configs/quickstart.yaml", ["domains=[&a [x, x, x, x, x, x, x, x, x, x], " + ", ".join(["[*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]"] * 1100) + "]"])
    assert load_config("configs/quickstart.yaml", ["domains=[&r retail, *r]"]).domains == ["retail", "retail"]  # aliases still work


@pytest.mark.parametrize("assignment, key", [
    ("mix.tasks_per_domain=99999999999999999999999", "mix.tasks_per_domain"),
    ("mix.kinds={single: 99999999999}", "mix.kinds"),
    ("seed=99999999999999999999999", "seed"),
    ("world.seeds=[1, 99999999999999999999999]", "world.seeds.1"),
    ("samples_per_task=1000000", "samples_per_task"),
    ("executor.concurrency=1000000000", "executor.concurrency"),
    ("output.shard_rows=100000000000", "output.shard_rows"),
])
def test_counts_have_sane_bounds(assignment, key):
    with pytest.raises(ConfigError, match=rf"{key} = .*(less than or equal|between 0 and)"):
        load_config("configs/quickstart.yaml", [assignment])
