"""A pytest plugin for running numba-cuda's test suite from its wheel.

numba-cuda's test classes use the fixture `initialize_from_pytest_config` and the option
`--dump-failed-filechecks`, which the project's repository defines in a conftest.py that the
wheel does not ship; this plugin defines both (`pytest -p warpjit_numba_plugin`, with this
directory on PYTHONPATH; numba_suite.sh does that)."""
import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--dump-failed-filechecks",
        action="store_true",
        help="Dump reproducers for FileCheck tests that fail (numba-cuda's option).",
    )


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    """Gives the test class the option's value, as numba-cuda's conftest does."""
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")


# A per-test time limit (WARPJIT_TEST_TIMEOUT seconds, default 300; 0 turns it off), so that one
# test that hangs (a child process waiting forever, a kernel in an endless loop) fails with a
# reason instead of stopping the run. pytest-timeout does this too; this avoids a dependency.
import os
import signal

_TIMEOUT = float(os.environ.get("WARPJIT_TEST_TIMEOUT", "300"))


class TestTimeout(Exception):
    """A test ran longer than WARPJIT_TEST_TIMEOUT seconds."""


def _on_alarm(signum, frame):
    raise TestTimeout(f"test exceeded WARPJIT_TEST_TIMEOUT={_TIMEOUT:g} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _TIMEOUT <= 0 or not hasattr(signal, "setitimer"):
        yield
        return
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
