"""The value checks of URL- and JSON-valued settings (pure, used by :mod:`.config`).

A Neo4j URI must speak Bolt, an HTTP URL must have a host, a Qdrant URL must be one
qdrant-client opens; each check names the setting's problem and an example that works.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from langgraph_prax_memory.errors import ConfigError

__all__ = ["check_neo4j_uri"]

#: The URI schemes of the Neo4j driver's Bolt protocol, the one the graph store speaks.
NEO4J_SCHEMES: tuple[str, ...] = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")
#: A host name (letters, digits, '-', '_' between dots) or an IPv6 address, brackets optional.
_HOST = re.compile(r"^(?:[\w-]+(?:\.[\w-]+)*\.?|\[?[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\]?)$")


def check_neo4j_uri(uri: str) -> str:
    """Return ``uri`` if the Neo4j driver can open it with the Bolt protocol, else raise.

    ``http://host:7474`` is Neo4j's browser / HTTP port, not something the graph store can
    speak: it is refused here instead of failing later inside the driver.

    Raises:
        ConfigError: Not a ``bolt://`` / ``neo4j://`` URI (with ``+s`` / ``+ssc``) with a host.

    Example:
        >>> check_neo4j_uri("bolt://localhost:7687")
        'bolt://localhost:7687'
    """
    problem = _neo4j_uri_problem(uri)
    if problem is not None:
        raise ConfigError(f"NEO4J_URI {uri!r}: {problem}")
    return uri


def _neo4j_uri_problem(uri: str) -> str | None:
    """What is wrong with ``uri`` as a Bolt URI, or ``None``."""
    hint = "use e.g. bolt://localhost:7687 or neo4j+s://<host>:7687"
    try:
        parts = urlsplit(uri.strip())
        port = parts.port
    except ValueError as exc:
        return f"not a URI ({exc}); {hint}"
    scheme = parts.scheme.lower()
    if scheme not in NEO4J_SCHEMES:
        shown = f"{scheme}://" if scheme else "(none)"
        http = " (7474 is Neo4j's HTTP port; Bolt listens on 7687)" if port == 7474 else ""
        return (
            f"scheme {shown} is not the Bolt protocol the graph store speaks "
            f"({', '.join(NEO4J_SCHEMES)}); {hint}{http}"
        )
    if not parts.hostname or not _HOST.match(parts.hostname):
        return f"no valid host name; {hint}"
    return None


def _check_http_url(value: str, *, what: str) -> str:
    """``value`` if it is an ``http(s)://host[:port][/path]`` URL, else a ``ValueError``."""
    example = "e.g. http://localhost:8000/v1"
    try:
        parts = urlsplit(value.strip())
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        raise ValueError(f"{what} is not a URL ({exc}); {example}") from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise ValueError(f"{what} must start with http:// or https://; {example}")
    if not parts.hostname or not _HOST.match(parts.hostname):
        raise ValueError(f"{what} has no valid host name; {example}")
    return value.strip()


def _check_qdrant_url(value: str) -> str:
    """``value`` if Qdrant's client accepts it as a server URL (or it is ``:memory:``).

    The same rules as qdrant-client, so a value that passes here also opens: ``http(s)://``
    or no scheme (``localhost:6333``, ``qdrant``), and a host without spaces or other
    characters a host name cannot have.
    """
    url = value.strip()
    if url == ":memory:":
        return url
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    hint = "use e.g. http://localhost:6333, ':memory:', or leave it unset for the embedded store"
    try:
        parsed = parse_url(f"//{url}" if url.startswith("localhost") else url)
    except LocationParseError as exc:
        raise ValueError(f"not a Qdrant URL ({exc}); {hint}") from exc
    if parsed.scheme and parsed.scheme.lower() not in ("http", "https"):
        raise ValueError(f"scheme {parsed.scheme}:// is not http:// or https://; {hint}")
    if not parsed.host or not _HOST.match(parsed.host):
        raise ValueError(f"no valid host name; {hint}")
    return url


def _json_object(value: Any, *, example: str) -> Any:
    """Parse a JSON string (an environment variable's value) into an object; pass others."""
    if not isinstance(value, str):
        return value
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
            f"expected an object such as {example}"
        ) from exc
    if not isinstance(parsed, dict):
        raise ValueError(f"expected a JSON object such as {example}, got {type(parsed).__name__}")
    return parsed
