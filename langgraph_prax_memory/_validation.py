"""Input checks shared by every layer: user ids, texts, importance, tags, timestamps."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic_core import to_jsonable_python  # what the payload writer serialises with

from langgraph_prax_memory.errors import MemoryValidationError

MAX_USER_ID_CHARS = 256
MAX_TAGS = 64
MAX_TAG_CHARS = 128
_SAFE_DIR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_unicode(text: str, *, what: str) -> str:
    r"""Return ``text`` if it can be stored as UTF-8, else raise.

    A lone surrogate (``"\ud800"``, what a broken decoder or a bad JSON escape leaves
    behind) is not a character: no file, database or HTTP body can hold it, so it is refused
    here, before any backend sees it.

    Raises:
        MemoryValidationError: ``text`` contains a lone surrogate.

    Example:
        >>> check_unicode("café", what="content")
        'café'
    """
    bad = _SURROGATE.search(text)
    if bad is not None:
        raise MemoryValidationError(
            f"{what} contains a lone surrogate (U+{ord(bad.group()):04X}) at position "
            f"{bad.start()}, which is not valid Unicode text; fix how the text was decoded "
            "(e.g. data.decode('utf-8', errors='replace'))"
        )
    return text


#: The deepest nesting of containers (dicts, lists) a stored value or a filter may have. Qdrant
#: stops reading a payload nested 128 levels deep, and the store's payload wraps the value in
#: one more level, so a deeper value would be written and then make every read of its user
#: fail.
MAX_VALUE_DEPTH = 100

_CONTAINERS = (dict, list, tuple, set, frozenset)


def _at(path: str, step: object) -> str:
    return f"{path}[{step!r}]"


def _walk(value: object, *, what: str, max_depth: int, finite: bool) -> None:
    """Depth (a loop nests forever), strings, keys and floats of a value, with their path."""
    stack: list[tuple[object, int, str]] = [(value, 1, what)]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            check_unicode(item, what=path)
        elif isinstance(item, float):
            if finite and not math.isfinite(item):
                raise MemoryValidationError(
                    f"{path} is not a finite number ({item!r}); JSON holds no NaN or infinity"
                )
        elif isinstance(item, _CONTAINERS):
            if depth > max_depth:
                raise MemoryValidationError(
                    f"{what} is nested more than {max_depth} levels deep (at {path}), or it "
                    "contains itself; flatten it (Qdrant cannot read back a payload nested 128 "
                    "levels deep)"
                )
            if isinstance(item, dict):
                for key, inner in item.items():
                    if isinstance(key, str):
                        check_unicode(key, what=f"a key of {path}")
                    stack.append((inner, depth + 1, _at(path, key)))
            else:
                stack.extend((inner, depth + 1, _at(path, i)) for i, inner in enumerate(item))


def check_json_value(
    value: object, *, what: str, max_depth: int = MAX_VALUE_DEPTH, finite: bool = True
) -> Any:
    r"""Return ``value`` as JSON data if it can be stored as it is, else raise.

    The checks of a value written to (or a filter sent to) the vector store, made before any
    backend sees it: at most ``max_depth`` levels of containers (:data:`MAX_VALUE_DEPTH`),
    nothing JSON cannot hold (an arbitrary object, bytes that are not UTF-8), no NaN or
    infinity (unless ``finite=False``: a filter may compare with them, as in LangGraph's
    ``InMemoryStore``), and no lone surrogate in a string or a key (see :func:`check_unicode`).

    Raises:
        MemoryValidationError: The value breaks one of these; the message names where.

    Example:
        >>> check_json_value({"tags": ["a", "b"], "n": 1.5}, what="value")
        {'tags': ['a', 'b'], 'n': 1.5}
    """
    _walk(value, what=what, max_depth=max_depth, finite=finite)
    try:
        data = to_jsonable_python(value)
    except (ValueError, TypeError, RecursionError) as exc:  # PydanticSerializationError too
        raise MemoryValidationError(f"{what} cannot be stored as JSON: {exc}") from exc
    # again on what objects turned into (a dataclass's or a model's fields)
    _walk(data, what=what, max_depth=max_depth, finite=finite)
    return data


def check_user_id(user_id: object) -> str:
    """Return ``user_id`` if it is a usable tenant id, else raise.

    A user id is a non-empty string of at most 256 characters without NUL, other control
    characters or lone surrogates. It is never optional: every read and write of every store
    is scoped by it.
    """
    if user_id is None:
        raise MemoryValidationError("user_id is required: every memory operation is per user")
    if not isinstance(user_id, str):
        raise MemoryValidationError(f"user_id must be a string, got {type(user_id).__name__}")
    if not user_id.strip():
        raise MemoryValidationError("user_id must not be empty or whitespace")
    if len(user_id) > MAX_USER_ID_CHARS:
        raise MemoryValidationError(f"user_id is longer than {MAX_USER_ID_CHARS} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in user_id):
        raise MemoryValidationError("user_id must not contain control characters")
    return check_unicode(user_id, what="user_id")


def user_dir_name(user_id: str) -> str:
    """A file-system-safe folder name for a user, stable and collision-free.

    Plain ids (letters, digits, ``_.@-``, not starting with a dot) are used as they are; any
    other id becomes ``u-<sha256 prefix>`` so that ``../x`` or ``a/b`` can never leave the
    users folder. Ids that themselves start with ``u-`` (or ``U-``) are always hashed:
    otherwise a plain id could spell another user's hashed folder name and share (or delete)
    that workspace.
    The mapping is therefore injective: a plain name never starts with ``u-`` and a hashed
    one always does.

    Example:
        >>> user_dir_name("alice")
        'alice'
        >>> hashed = user_dir_name("Bob Smith")
        >>> hashed.startswith("u-") and user_dir_name(hashed) != hashed
        True
    """
    check_user_id(user_id)
    # "U-..." too: on a case-insensitive file system it is the same folder as "u-..."
    if _SAFE_DIR.match(user_id) and ".." not in user_id and user_id[:2].lower() != "u-":
        return user_id
    return "u-" + hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]


def check_text(text: object, *, max_chars: int, what: str = "content") -> str:
    """Return ``text`` if it is a non-blank string of at most ``max_chars`` characters.

    NUL characters and lone surrogates are refused (see :func:`check_unicode`).
    """
    if not isinstance(text, str):
        raise MemoryValidationError(f"{what} must be a string, got {type(text).__name__}")
    if not text.strip():
        raise MemoryValidationError(f"{what} must not be empty or whitespace")
    if len(text) > max_chars:
        raise MemoryValidationError(
            f"{what} is {len(text)} characters, over the limit of {max_chars} "
            "(MEMORY_MAX_CONTENT_CHARS); split it or raise the limit"
        )
    if "\x00" in text:
        raise MemoryValidationError(f"{what} must not contain NUL characters")
    return check_unicode(text, what=what)


def check_importance(value: object) -> float:
    """Return ``value`` as a float in [0, 1], else raise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MemoryValidationError(f"importance must be a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise MemoryValidationError(f"importance must be between 0 and 1, got {value!r}")
    return number


def check_tags(tags: object) -> list[str]:
    """Normalise tags: a list of non-empty strings (a comma-separated string is accepted)."""
    if tags is None:
        return []
    if isinstance(tags, str):
        items: Iterable[Any] = [t for t in tags.split(",")]
    elif isinstance(tags, list | tuple | set | frozenset):
        items = tags
    else:
        raise MemoryValidationError(f"tags must be a list of strings, got {type(tags).__name__}")
    # linear, and refused as soon as the limit is passed: 100k tags cost no more than 65
    seen: dict[str, None] = {}
    for tag in items:
        if not isinstance(tag, str):
            raise MemoryValidationError(f"every tag must be a string, got {type(tag).__name__}")
        tag = tag.strip()
        if not tag:
            continue
        if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in tag):
            raise MemoryValidationError("a tag must not contain newlines or control characters")
        if len(tag) > MAX_TAG_CHARS:
            raise MemoryValidationError(f"a tag is longer than {MAX_TAG_CHARS} characters")
        check_unicode(tag, what="a tag")
        seen[tag] = None
        if len(seen) > MAX_TAGS:
            raise MemoryValidationError(f"at most {MAX_TAGS} tags per memory")
    return list(seen)


def to_utc(value: object, *, what: str = "timestamp") -> datetime:
    """Parse a datetime, an ISO-8601 string or epoch seconds into an aware UTC datetime.

    Naive datetimes are taken to be UTC.
    """
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise MemoryValidationError(f"{what} is not an ISO-8601 datetime: {value!r}") from exc
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise MemoryValidationError(f"{what} must be finite")
        dt = datetime.fromtimestamp(float(value), tz=UTC)
    else:
        raise MemoryValidationError(
            f"{what} must be a datetime, ISO string or epoch seconds, got {type(value).__name__}"
        )
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


def check_limit(value: object, *, maximum: int = 1000) -> int:
    """Return a result limit in ``1..maximum`` (graph and knowledge queries).

    Raises:
        MemoryValidationError: Not an integer in range (booleans are not integers here).
    """
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise MemoryValidationError(f"limit must be an integer from 1 to {maximum}, got {value!r}")
    return value


_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_NON_WORD = re.compile(r"[^a-z0-9]+")


def check_relation_type(value: object) -> str:
    """Normalise a relation type to ``snake_case`` (``"Depends On"`` → ``depends_on``).

    Relation types are data (the ``type`` property of ``KNOWLEDGE_RELATES``), never Cypher.

    Example:
        >>> check_relation_type("Depends On")
        'depends_on'
    """
    if not isinstance(value, str):
        raise MemoryValidationError("a relation type must be a string")
    norm = _NON_WORD.sub("_", value.strip().lower()).strip("_")
    if not _TYPE_RE.match(norm):
        raise MemoryValidationError(
            f"relation type {value!r} must normalise to {_TYPE_RE.pattern}, got {norm!r}"
        )
    return norm
