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
