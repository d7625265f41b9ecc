"""The ``neo4j_server`` fixture moved to ``tests/integration/conftest.py`` (shared with the
consolidation integration tests); its behaviour is unchanged."""
