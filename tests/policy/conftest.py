"""The registry fixtures of tests/registry, for the admission tests that pull."""

from tests.registry.conftest import cli_registry_env, registry  # noqa: F401
