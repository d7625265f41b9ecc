"""A read-only, user-scoped ``Neo4jGraph`` look-alike for LangChain's Cypher chains.

``GraphCypherQAChain`` (langchain-neo4j) asks a model for Cypher and runs it through
``graph.query(cypher)``. Run against a plain ``Neo4jGraph`` that query sees every user's
memory graph and may write. :class:`ScopedCypherGraph` is what to hand the chain instead: it
has the ``GraphStore`` surface the chain uses (``query``, ``get_schema``,
``get_structured_schema``, ``refresh_schema``) and runs a query only when

1. it passes :func:`check_scoped_cypher`: every node pattern carries the pin
   ``{user_id: $user_id}`` in its property map, no procedure call (``CALL``), no namespaced or
   quoted function (``apoc.*``, ``db.*``), no ``LOAD CSV`` / ``USE`` / ``SHOW`` / write clause, no
   variable-length or quantified relationship (their intermediate nodes would be unpinned),
   no comment; the check is fail-closed (a query it cannot classify is refused);
2. ``$user_id`` is bound by the view, never by the caller;
3. it runs in a **read** transaction (the server refuses writes in it);
4. every node, relationship and path in the answer belongs to the user (checked again on the
   raw records before they are turned into dicts).

Anything else raises :class:`CypherScopeError` before the server sees the query.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import neo4j
import neo4j.graph

from langgraph_prax_memory._validation import check_user_id
from langgraph_prax_memory.errors import MemoryValidationError


class ReadQueryRunner(Protocol):
    """What a scoped graph needs of a store (``Neo4jGraphStore`` is one)."""

    def run_read_query(
        self, query: str, params: Mapping[str, Any], *, timeout: float | None = None
    ) -> list[neo4j.Record]:
        """Run one Cypher query in a read transaction and return its records."""
        ...


__all__ = [
    "SCOPED_CYPHER_INSTRUCTIONS",
    "CypherScopeError",
    "ScopedCypherGraph",
    "check_scoped_cypher",
    "scoped_cypher_prompt",
]


class CypherScopeError(MemoryValidationError):
    """A Cypher query is not read-only or not pinned to one user; it was not run."""


#: What a Cypher-writing model must be told (part of :func:`scoped_cypher_prompt`).
SCOPED_CYPHER_INSTRUCTIONS = (
    "Every node pattern must carry the property map {user_id: $user_id}, for example "
    "MATCH (p:Entity {user_id: $user_id})-[r:RELATES_TO]->(o:Entity {user_id: $user_id}). "
    "Read only: no CREATE, MERGE, SET, DELETE, CALL, LOAD CSV; no variable-length "
    "relationships (*) and no path quantifiers."
)

# Functions a query may call (plain names, case-insensitive). Anything else in call
# position is treated like a bare parenthesis (and so must be a pinned pattern or refused).
_FUNCTIONS = frozenset(
    [
        "abs",
        "acos",
        "all",
        "any",
        "asin",
        "atan",
        "atan2",
        "avg",
        "ceil",
        "char_length",
        "character_length",
        "coalesce",
        "collect",
        "cos",
        "cot",
        "count",
        "date",
        "datetime",
        "degrees",
        "duration",
        "e",
        "elementid",
        "endnode",
        "exists",
        "exp",
        "floor",
        "haversin",
        "head",
        "id",
        "isempty",
        "isnan",
        "keys",
        "labels",
        "last",
        "left",
        "length",
        "localdatetime",
        "localtime",
        "log",
        "log10",
        "ltrim",
        "max",
        "min",
        "nodes",
        "none",
        "normalize",
        "percentilecont",
        "percentiledisc",
        "pi",
        "properties",
        "radians",
        "rand",
        "range",
        "reduce",
        "relationships",
        "replace",
        "reverse",
        "right",
        "round",
        "rtrim",
        "sign",
        "sin",
        "single",
        "size",
        "split",
        "sqrt",
        "startnode",
        "stdev",
        "stdevp",
        "substring",
        "sum",
        "tail",
        "tan",
        "time",
        "timestamp",
        "toboolean",
        "tofloat",
        "tointeger",
        "tolower",
        "tostring",
        "toupper",
        "trim",
        "type",
        "valuetype",
    ]
)
_FORBIDDEN_WORDS = frozenset(
    [
        "alter",
        "call",
        "create",
        "delete",
        "deny",
        "detach",
        "drop",
        "foreach",
        "grant",
        "load",
        "merge",
        "remove",
        "revoke",
        "set",
        "show",
        "terminate",
        "use",
    ]
)
_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//|/\*)
  | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
  | (?P<quoted>`(?:[^`]|``)*`)
  | (?P<param>\$\w+|\$`(?:[^`]|``)*`)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<word>[^\W\d]\w*)
  | (?P<op><>|<=|>=|=~|->|<-|--|\.\.|[-+*/%^=<>.,:;|&!?(){}\[\]])
    """,
    re.VERBOSE | re.UNICODE,
)
_PIN_PARAM = "$user_id"


def _tokens(query: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(query):
        match = _TOKEN.match(query, pos)
        if match is None:
            raise CypherScopeError(
                f"unsupported character {query[pos]!r} at position {pos} in the Cypher query"
            )
        kind = match.lastgroup or ""
        if kind == "comment":
            raise CypherScopeError("comments are not allowed in a scoped Cypher query")
        if kind != "space":
            out.append((kind, match.group()))
        pos = match.end()
    return out


def _matching(tokens: list[tuple[str, str]], start: int) -> int:
    """Index of the bracket closing the one at ``start`` (raises when unbalanced)."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[tokens[start][1]]]
    for i in range(start + 1, len(tokens)):
        kind, text = tokens[i]
        if kind != "op":
            continue
        if text in pairs:
            stack.append(pairs[text])
        elif text in (")", "]", "}"):
            if not stack or stack.pop() != text:
                raise CypherScopeError("unbalanced brackets in the Cypher query")
            if not stack:
                return i
    raise CypherScopeError("unbalanced brackets in the Cypher query")


# What may follow ``(name`` in an expression and never in a node pattern.
_EXPRESSION_OPS = frozenset(
    {".", "+", "-", "*", "/", "%", "^", "=", "<>", "<", ">", "<=", ">=", "=~", ",", "[", "("}
)
_EXPRESSION_WORDS = frozenset({"and", "or", "xor", "in", "starts", "ends", "contains"})


def _is_pattern(tokens: list[tuple[str, str]], start: int, end: int) -> bool:
    """Whether the parenthesis at ``start`` (closing at ``end``) may be a node pattern.

    Fail-closed: it is an expression only when its first tokens cannot start a node
    pattern (a literal, a parameter, an operator, or a name followed by an operator such as
    ``.`` or ``=``); anything else, ``(IS Label)`` and ``(WHERE ...)`` included, is a pattern.
    """
    i = start + 1
    if i >= end:
        return True  # "()"
    kind, text = tokens[i]
    if kind in ("string", "number", "param"):
        return False
    if kind == "op":
        return text in (":", "{")  # a label or a property map; "((" groups are checked inside
    if kind == "word" and text.lower() in ("where", "is"):
        return True
    if i + 1 >= end:
        return True  # "(n)"
    nkind, ntext = tokens[i + 1]
    if nkind == "op" and ntext in _EXPRESSION_OPS:
        return False
    return not (nkind == "word" and ntext.lower() in _EXPRESSION_WORDS)


def _has_pin(tokens: list[tuple[str, str]], start: int, end: int) -> bool:
    """Whether the node pattern between ``start`` and ``end`` has ``{user_id: $user_id}``."""
    i = start + 1
    while i < end:
        if tokens[i] == ("op", "{"):
            close = _matching(tokens, i)
            keys = 0
            pinned = False
            depth = 0
            for j in range(i + 1, close):
                kind, text = tokens[j]
                if kind == "op" and text in ("(", "[", "{"):
                    depth += 1
                elif kind == "op" and text in (")", "]", "}"):
                    depth -= 1
                if depth or kind not in ("word", "quoted"):
                    continue
                name = text.strip("`")
                if name == "user_id" and j + 1 < close and tokens[j + 1] == ("op", ":"):
                    keys += 1
                    value = tokens[j + 2] if j + 2 < close else ("", "")
                    after = tokens[j + 3] if j + 3 <= close else ("", "")
                    pinned = value == ("param", _PIN_PARAM) and after in (
                        ("op", ","),
                        ("op", "}"),
                    )
            return keys == 1 and pinned
        if tokens[i] == ("op", "(") or (tokens[i][0] == "word" and tokens[i][1].lower() == "where"):
            return False  # the pin must be the property map, before any inline WHERE
        i += 1
    return False


def check_scoped_cypher(query: str) -> str:
    """Refuse a Cypher query that is not read-only and pinned to ``$user_id``.

    Returns the query unchanged when it passes. The rules are in the module docstring; the
    check is lexical and fail-closed, so some harmless queries are refused (a ``*`` used for
    multiplication, a function outside the common built-ins): rephrase them.

    Raises:
        CypherScopeError: The query was refused, with the reason.

    Example:
        >>> check_scoped_cypher("MATCH (e:Entity {user_id: $user_id}) RETURN e.name")
        'MATCH (e:Entity {user_id: $user_id}) RETURN e.name'
        >>> check_scoped_cypher("MATCH (e:Entity) RETURN e.name")
        Traceback (most recent call last):
        ...
        langgraph_prax_memory.graph.neo4j._scoped.CypherScopeError: ...
    """
    if not isinstance(query, str) or not query.strip():
        raise CypherScopeError("the Cypher query must be a non-empty string")
    tokens = _tokens(query)
    patterns = 0
    for i, (kind, text) in enumerate(tokens):
        previous = tokens[i - 1] if i else ("", "")
        if kind == "word":
            word = text.lower()
            if previous == ("op", "."):
                continue  # a property name
            if word in _FORBIDDEN_WORDS:
                raise CypherScopeError(f"{text.upper()} is not allowed in a read-only scoped query")
            nxt = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
            if nxt == ("op", ".") and i + 2 < len(tokens) and tokens[i + 2][0] == "word":
                after = tokens[i + 3] if i + 3 < len(tokens) else ("", "")
                if after == ("op", "(") or (i + 3 < len(tokens) and tokens[i + 3] == ("op", ".")):
                    raise CypherScopeError(
                        f"namespaced functions and procedures ({text}.…) are not allowed"
                    )
        elif kind == "op" and text in ("*", "+"):
            inside_count = (
                text == "*"
                and previous == ("op", "(")
                and i >= 2
                and tokens[i - 2][0] == "word"
                and tokens[i - 2][1].lower() == "count"
                and i + 1 < len(tokens)
                and tokens[i + 1] == ("op", ")")
            )
            if not inside_count:
                raise CypherScopeError(
                    f"{text!r} is not allowed (variable-length or quantified paths would "
                    "reach unpinned nodes)"
                )
        elif (
            kind == "op"
            and text == "{"
            and previous[0] == "op"
            and previous[1]
            in (
                ")",
                "]",
                "-",
                ">",
                "<",
                "--",
                "->",
                "<-",
            )
        ):
            raise CypherScopeError("path quantifiers ({m,n}) are not allowed")
        elif kind == "op" and text == "(":
            end = _matching(tokens, i)
            if previous[0] in ("word", "quoted") and i >= 2 and tokens[i - 2] == ("op", "."):
                raise CypherScopeError("namespaced functions and procedures are not allowed")
            if previous[0] == "quoted":
                raise CypherScopeError("quoted function names are not allowed")
            if previous[0] == "word" and previous[1].lower() in _FUNCTIONS:
                continue  # a built-in function call; its arguments are checked on their own
            if _is_pattern(tokens, i, end):
                if not _has_pin(tokens, i, end):
                    raise CypherScopeError(
                        "every node pattern must carry {user_id: $user_id}; this one does not: "
                        + " ".join(t for _, t in tokens[i : end + 1])
                    )
                patterns += 1
    if patterns == 0:
        raise CypherScopeError("the query matches no pinned node pattern")
    return query


def _owner_ok(value: Any, user_id: str) -> bool:
    if isinstance(value, neo4j.graph.Node):
        return bool(value.get("user_id") == user_id)
    if isinstance(value, neo4j.graph.Relationship):
        # PARTICIPATED_IN / CAUSED_BY carry no user_id; their pinned endpoints do
        return value.get("user_id") in (None, user_id)
    if isinstance(value, neo4j.graph.Path):
        return all(_owner_ok(n, user_id) for n in value.nodes) and all(
            _owner_ok(r, user_id) for r in value.relationships
        )
    if isinstance(value, Mapping):
        return all(_owner_ok(v, user_id) for v in value.values())
    if isinstance(value, list | tuple):
        return all(_owner_ok(v, user_id) for v in value)
    return True


def _plain(value: Any) -> Any:
    if isinstance(value, neo4j.graph.Node | neo4j.graph.Relationship):
        return dict(value.items())
    if isinstance(value, neo4j.graph.Path):
        return [_plain(n) for n in value.nodes]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


_NODE_PROPS: dict[str, list[tuple[str, str]]] = {
    "Entity": [
        ("name", "STRING"),
        ("display_name", "STRING"),
        ("type", "STRING"),
        ("importance", "FLOAT"),
        ("mention_count", "INTEGER"),
        ("first_seen", "DATE_TIME"),
        ("last_seen", "DATE_TIME"),
        ("user_id", "STRING"),
    ],
    "TemporalEvent": [
        ("description", "STRING"),
        ("occurred_at", "DATE_TIME"),
        ("importance", "FLOAT"),
        ("user_id", "STRING"),
    ],
    "CausalLink": [
        ("cause", "STRING"),
        ("effect", "STRING"),
        ("importance", "FLOAT"),
        ("user_id", "STRING"),
    ],
}
_REL_PROPS: dict[str, list[tuple[str, str]]] = {
    "RELATES_TO": [
        ("type", "STRING"),
        ("weight", "FLOAT"),
        ("evidence", "STRING"),
        ("valid_from", "DATE_TIME"),
        ("valid_until", "DATE_TIME"),
        ("user_id", "STRING"),
    ],
    "CAUSED_BY": [("direction", "STRING")],
}
_RELATIONSHIPS = [
    ("Entity", "RELATES_TO", "Entity"),
    ("Entity", "PARTICIPATED_IN", "TemporalEvent"),
    ("Entity", "CAUSED_BY", "CausalLink"),
    ("CausalLink", "CAUSED_BY", "Entity"),
]


def scoped_cypher_prompt() -> Any:
    """LangChain's Cypher-generation prompt with the scoping rules added.

    Pass it as ``GraphCypherQAChain.from_llm(..., cypher_prompt=scoped_cypher_prompt())`` so
    the model writes queries :class:`ScopedCypherGraph` accepts.

    Example:
        >>> "user_id: $user_id" in scoped_cypher_prompt().template
        True
    """
    from langchain_core.prompts import PromptTemplate

    template = (
        "Task: Generate a Cypher statement to query a graph database.\n"
        "Instructions:\nUse only the provided relationship types and properties in the "
        "schema.\nDo not use any other relationship types or properties that are not "
        f"provided.\n{SCOPED_CYPHER_INSTRUCTIONS.replace('{', '{{').replace('}', '}}')}\n"
        "Schema:\n{schema}\n"
        "Note: Do not include any explanations or apologies in your responses.\n"
        "Do not respond to any questions that might ask anything else than for you to "
        "construct a Cypher statement.\nDo not include any text except the generated Cypher "
        "statement.\n\nThe question is:\n{question}"
    )
    return PromptTemplate(input_variables=["schema", "question"], template=template)


class ScopedCypherGraph:
    """One user's memory graph as a read-only ``Neo4jGraph`` for Cypher chains.

    Build it with :meth:`Neo4jGraphStore.scoped_graph`. ``query`` accepts only queries that
    pass :func:`check_scoped_cypher`, binds ``$user_id`` itself and runs them in a read
    transaction; the answers are checked to belong to the user. The schema lists the memory
    graph's labels only.

    Args:
        store: The Neo4j graph backend (its driver and database are used).
        user_id: The one user every query is pinned to.
        timeout: Seconds a query may run (server-side transaction timeout).
        max_rows: Rows returned at most.

    Example:
        >>> # graph = Neo4jGraphStore(config).scoped_graph("alice")
        >>> # chain = GraphCypherQAChain.from_llm(llm, graph=graph,
        >>> #     cypher_prompt=scoped_cypher_prompt(), allow_dangerous_requests=True)
    """

    def __init__(
        self,
        store: ReadQueryRunner,
        user_id: str,
        *,
        timeout: float = 10.0,
        max_rows: int = 1000,
    ) -> None:
        self.store = store
        self.user_id = check_user_id(user_id)
        self.timeout = timeout
        self.max_rows = max_rows
        self.structured_schema: dict[str, Any] = self._structured()
        self.schema = self._text_schema()

    # -- the GraphStore surface of langchain-neo4j --------------------------------------------
    @property
    def get_schema(self) -> str:
        """The schema text (labels, properties, relationships, the scoping rule)."""
        return self.schema

    @property
    def get_structured_schema(self) -> dict[str, Any]:
        """The schema in ``Neo4jGraph.get_structured_schema``'s shape."""
        return self.structured_schema

    def refresh_schema(self) -> None:
        """The schema is fixed (the memory graph's labels); nothing to refresh."""

    def add_graph_documents(
        self, graph_documents: Iterable[Any], include_source: bool = False
    ) -> None:
        """Refused: the view is read-only (write through the memory's graph API)."""
        raise CypherScopeError("ScopedCypherGraph is read-only")

    def query(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a pinned, read-only query for the view's user; rows as plain dicts.

        Raises:
            CypherScopeError: The query was refused, or an answer did not belong to the user.
            BackendUnavailable: The server did not answer.
        """
        check_scoped_cypher(query)
        bound = dict(params or {})
        if "user_id" in bound and bound["user_id"] != self.user_id:
            raise CypherScopeError("$user_id is bound by the scoped graph, not by the caller")
        bound["user_id"] = self.user_id
        records = self.store.run_read_query(query, bound, timeout=self.timeout)
        rows: list[dict[str, Any]] = []
        for record in records[: self.max_rows]:
            values = dict(record.items())  # type: ignore[no-untyped-call]
            if not _owner_ok(values, self.user_id):
                raise CypherScopeError("the query reached data of another user; nothing returned")
            rows.append({k: _plain(v) for k, v in values.items()})
        return rows

    # -- schema ---------------------------------------------------------------------------
    def _structured(self) -> dict[str, Any]:
        return {
            "node_props": {
                label: [{"property": p, "type": t} for p, t in props]
                for label, props in _NODE_PROPS.items()
            },
            "rel_props": {
                label: [{"property": p, "type": t} for p, t in props]
                for label, props in _REL_PROPS.items()
            },
            "relationships": [{"start": s, "type": t, "end": e} for s, t, e in _RELATIONSHIPS],
            "metadata": {"constraint": [], "index": []},
        }

    def _text_schema(self) -> str:
        nodes = "\n".join(
            f"{label} {{{', '.join(f'{p}: {t}' for p, t in props)}}}"
            for label, props in _NODE_PROPS.items()
        )
        rels = "\n".join(
            f"{label} {{{', '.join(f'{p}: {t}' for p, t in props)}}}"
            for label, props in _REL_PROPS.items()
        )
        paths = "\n".join(f"(:{s})-[:{t}]->(:{e})" for s, t, e in _RELATIONSHIPS)
        return (
            f"Node properties:\n{nodes}\nRelationship properties:\n{rels}\n"
            f"The relationships:\n{paths}\nRule: {SCOPED_CYPHER_INSTRUCTIONS}"
        )
