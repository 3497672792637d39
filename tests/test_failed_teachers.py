"""Teachers that fail: the job exits non-zero, says why, and a resume against a good server
produces every row of a clean run. Secrets never reach a file or the output."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from tests.test_generate import _rows
from tests.test_openai_job import _serve
from toolgym.cli import main as cli_main

SPLITS = ("sft", "no_tool", "rl_tasks")


def _config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "job.yaml"
    path.write_text(
        "domains: [toy]\nworld: {size: default}\nmix: {tasks_per_domain: 10, no_tool_share: 0.3}\n"
        f"teachers:\n  - {{name: served, type: openai, base_url: '{url}', model: toolgym-oracle, send_task: true,\n"
        "     timeout: 3.0, max_retries: 0, concurrency: 16}\n"
        "failures: {retry: true, max_attempts: 3, max_rate: 0.0}\n"
    )
    return path


def _ids(out: Path) -> dict[str, list[str]]:
    return {split: sorted(r["id"] for r in _rows(out, split)) for split in SPLITS}


@pytest.fixture(scope="module")
def good_server():
    process, url = _serve()
    yield url
    process.kill()
    process.wait()


@pytest.mark.parametrize("fault", [["--error-rate", "1"], ["--garbage-rate", "1"],
                                   ["--timeout-rate", "1", "--hang-s", "30"], ["--drip-rate", "1", "--drip-s", "0.2"]],
                         ids=["500", "garbage", "hang", "drip"])
def test_a_failing_teacher_fails_the_job_and_a_resume_completes_it(toy_domain, tmp_path, good_server, fault, capsys):
    config = _config(tmp_path, good_server)
    assert cli_main(["generate", str(config), "-q", "--out", str(tmp_path / "clean")]) == 0
    clean = _ids(tmp_path / "clean")
    assert clean["sft"] and clean["no_tool"]

    bad, bad_url = _serve(*fault)
    try:
        out = tmp_path / "out"
        code = cli_main(["generate", str(config), "-q", "--out", str(out), "--set", f"teachers.0.base_url={bad_url}"])
    finally:
        bad.kill()
        bad.wait()
    err = capsys.readouterr().err
    assert code == 1, err
    assert "tasks failed" in err and "failures.max_rate=0" in err and "run the same command again" in err
    assert (out / "failures.jsonl").read_text().count("\n") == 10  # each task failed, none finished for good
    assert _ids(out) == {split: [] for split in SPLITS}

    with pytest.warns(UserWarning, match="different config"):  # the base_url changed
        code = cli_main(["generate", str(config), "-q", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert _ids(out) == clean
    assert not (out / "failures.jsonl").read_text().strip()  # the retried tasks succeeded


def test_failures_past_max_attempts_are_final(toy_domain, tmp_path):
    bad, url = _serve("--error-rate", "1")
    config = _config(tmp_path, url)
    out = tmp_path / "out"
    try:
        codes = [cli_main(["generate", str(config), "-q", "--out", str(out), "--set", "failures.max_attempts=2"])
                 for _ in range(3)]
    finally:
        bad.kill()
        bad.wait()
    assert codes == [1, 1, 1]
    manifest = (out / "manifest.jsonl").read_text().splitlines()
    flushed = sum(line.count('"retryable":true') for line in manifest if '"type":"flush"' in line)
    assert flushed == 20, "two attempts per task, then the failure is final and the third run retries nothing"


def test_no_retry_failures_keeps_failures_final(toy_domain, tmp_path, good_server):
    bad, url = _serve("--error-rate", "1")
    config = _config(tmp_path, url)
    out = tmp_path / "out"
    try:
        assert cli_main(["generate", str(config), "-q", "--out", str(out), "--no-retry-failures"]) == 1
    finally:
        bad.kill()
        bad.wait()
    with pytest.warns(UserWarning, match="different config"):
        code = cli_main(["generate", str(config), "-q", "--out", str(out), "--no-retry-failures",
                         "--set", f"teachers.0.base_url={good_server}"])
    assert code == 1  # still 10 of 10 failed: nothing was retried
    assert _ids(out) == {split: [] for split in SPLITS}


class _EchoingServer:
    """A server that answers 500 and echoes the request's Authorization header in its error."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def _run(self) -> None:
        from aiohttp import web

        async def echo(request: web.Request) -> web.Response:
            told = f"bad request from {request.headers.get('Authorization')} at {request.url}"
            return web.json_response({"error": {"message": told}}, status=500)

        async def start() -> None:
            app = web.Application()
            app.router.add_route("*", "/{tail:.*}", echo)
            self.runner = web.AppRunner(app, access_log=None)
            await self.runner.setup()
            site = web.TCPSite(self.runner, "127.0.0.1", 0)
            await site.start()
            self.port = site._server.sockets[0].getsockname()[1]
            self.ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def test_secrets_never_reach_a_file_or_the_output(toy_domain, tmp_path, monkeypatch, capsys):
    key, password = "sk-short1", "hunter2-pass"  # a key shorter than 16 characters after sk-
    monkeypatch.setenv("OPENAI_API_KEY", key)
    server = _EchoingServer()
    out = tmp_path / "out"
    try:
        config = _config(tmp_path, f"http://alice:{password}@127.0.0.1:{server.port}/v1")
        code = cli_main(["generate", str(config), "--out", str(out)])
    finally:
        server.close()
    captured = capsys.readouterr()
    assert code == 1
    written = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    assert len(written) >= 4  # manifest, failures, card, lock
    assert b"Bearer" in (out / "failures.jsonl").read_bytes(), "the echoed header is in the failure, masked"
    for secret in (key, password, f"alice:{password}"):
        for path, data in written.items():
            assert secret.encode() not in data, f"{secret!r} written to {path}"
        assert secret not in captured.out and secret not in captured.err
