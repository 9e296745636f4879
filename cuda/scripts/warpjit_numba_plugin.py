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


# Test modules by their package names. The wheel installs numba-cuda's package `numba.cuda` as
# numba_cuda/numba/cuda (found through a redirecting import hook), and numba_cuda/numba has no
# __init__.py, so pytest (in every import mode) names a test module after its path below it,
# `cuda.tests.cudapy.test_x`: a name that shadows NVIDIA's `cuda` package, which child processes
# (multiprocessing's spawn, the suite's isolated subprocess tests) then cannot import, and which
# tests that check `__module__` see. This collects each such module under its real name.
import importlib
import pathlib


def _package_name(path):
    parts = pathlib.Path(path).with_suffix("").parts
    if "numba_cuda" not in parts:
        return None
    i = len(parts) - 1 - parts[::-1].index("numba_cuda")
    name = ".".join(parts[i + 1 :])
    return name if name.startswith("numba.cuda.tests.") else None


class _NamedModule(pytest.Module):
    def _getobj(self):
        try:
            return importlib.import_module(self._package_name)
        except pytest.skip.Exception:
            raise
        except Exception as e:
            raise self.CollectError(f"importing {self._package_name}: {e!r}") from e


def pytest_pycollect_makemodule(module_path, parent):
    name = _package_name(module_path)
    if name is None:
        return None
    m = _NamedModule.from_parent(parent, path=module_path)
    m._package_name = name
    return m
