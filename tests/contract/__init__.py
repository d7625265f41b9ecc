"""Contract suites shared by unit tests (embedded backends) and integration tests (servers)."""
