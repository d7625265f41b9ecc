"""Open Knowledge Format (OKF v0.1) interchange for a knowledge namespace.

An OKF bundle is a directory of markdown files with YAML frontmatter, one file per concept.
The only required frontmatter field is ``type``; ``title``, ``description``, ``resource``,
``tags`` and ``timestamp`` are optional. Relations are ordinary markdown links between concept
files. ``index.md`` and ``log.md`` are optional. OKF is an interchange format only: the graph
(+ vectors) stays canonical.

Mapping: ``type`` ↔ kind, ``title`` ↔ display name, ``description`` ↔ description,
``resource`` ↔ source, ``tags`` ↔ tags, ``timestamp`` ↔ updated_at. This library also writes
``name``, ``importance``, ``source_type``, ``properties``, ``created_at``, ``extracted_from``
(the content hashes of the concept's documents: its ``EXTRACTED_FROM`` provenance) and
``entities`` (the memory entities it references: ``REFERENCES_ENTITY``); the documents
themselves go to ``documents.yaml`` next to ``index.md``. Any other frontmatter field is
preserved (kept in ``properties["okf_extra"]`` and written back). Relations are written under
a ``## Relations`` heading as ``- relation_type: [Title](file.md)`` followed by an HTML comment
``<!-- prax {"weight": …, "evidence": …, "created_at": …} -->``; a link anywhere else in a
concept's body is read as ``related_to``.

What a round trip into an empty namespace does not reproduce (docs/knowledge.md): a relation's
``updated_at`` (it becomes its ``created_at``), the creation time of an entity link (the import
time) and links to entities the importing user does not have (listed in ``skipped``).

Safety: exported file names are slugs (``[a-z0-9-]``, never a path), each written path is
checked to stay inside the destination, and files are written through a temporary file and
``os.replace`` (which replaces a symlink rather than following it). On import, links and
files that resolve outside the bundle (``../``, absolute paths, symlinks) are ignored.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import yaml
from pydantic import BaseModel, ConfigDict, Field

from langgraph_prax_memory._validation import check_user_id, to_utc, utcnow
from langgraph_prax_memory.errors import MemoryValidationError, PraxMemoryError
from langgraph_prax_memory.graph import entity_id
from langgraph_prax_memory.knowledge._store import KnowledgeStore
from langgraph_prax_memory.knowledge.models import (
    ConceptInput,
    DocumentInput,
    KnowledgeConcept,
    KnowledgeNotFound,
    RelationInput,
    check_namespace,
)

__all__ = [
    "OkfExportResult",
    "OkfImportResult",
    "export_namespace_okf",
    "import_okf",
]

OKF_VERSION = "0.1"
_KNOWN = {
    "type",
    "title",
    "description",
    "resource",
    "tags",
    "timestamp",
    "name",
    "importance",
    "source_type",
    "properties",
    "okf_version",
    "created_at",
    "extracted_from",
    "entities",
}
#: The documents of a bundle (a Prax extension next to ``index.md``; not a concept file).
DOCUMENTS_FILE = "documents.yaml"
_PRAX_COMMENT = re.compile(r"<!--\s*prax\s+(\{.*?\})\s*-->")
_FRONTMATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REL_ITEM = re.compile(r"^\s*[-*]\s+`?([A-Za-z][\w -]{0,63})`?\s*:\s*(.*)$")
_MAX_FILES = 100_000
_MAX_FILE_BYTES = 5 * 1024 * 1024


class OkfExportResult(BaseModel):
    """What an export wrote."""

    model_config = ConfigDict(frozen=True)

    path: str
    concepts: int
    relations: int
    files: list[str] = Field(default_factory=list)


class OkfImportResult(BaseModel):
    """What an import read."""

    model_config = ConfigDict(frozen=True)

    namespace: str
    concepts: int
    relations: int
    concept_ids: list[str] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)
    """Files or links ignored, with the reason."""
    indexed: int = 0
    index_error: str | None = None


def _slug(text: str, taken: set[str]) -> str:
    """A safe, unique file stem: ascii ``[a-z0-9-]``, ≤ 80 chars, never ``index``/``log``."""
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    slug = re.sub(r"[^a-z0-9]+", "-", norm).strip("-")[:80].strip("-") or "concept"
    if slug in ("index", "log") or slug in taken:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug[:70]}-{digest}"
        n = 2
        base = slug
        while slug in taken:
            slug = f"{base}-{n}"
            n += 1
    taken.add(slug)
    return slug


def _safe_target(dest: Path, filename: str) -> Path:
    if "/" in filename or "\\" in filename or filename in ("", ".", "..") or "\x00" in filename:
        raise MemoryValidationError(f"unsafe OKF file name {filename!r}")
    target = dest / filename
    if target.parent.resolve() != dest:
        raise MemoryValidationError(f"{filename!r} would be written outside {dest}")
    return target


def _write(dest: Path, filename: str, text: str) -> None:
    target = _safe_target(dest, filename)
    fd, tmp = tempfile.mkstemp(dir=dest, prefix=".okf-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, target)  # replaces a symlink itself; never writes through it
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _md_text(text: str) -> str:
    """Escape ``[``/``]`` so titles cannot forge links."""
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]").replace("\n", " ")


def _iter_concepts(
    store: KnowledgeStore, user_id: str, namespace: str
) -> Iterator[KnowledgeConcept]:
    after: str | None = None
    while True:
        page = store.list_concepts(user_id, namespace, limit=1000, after_id=after)
        if not page:
            return
        yield from page
        after = page[-1].id


def export_namespace_okf(
    store: KnowledgeStore, user_id: str, namespace: str, dest: str | Path
) -> OkfExportResult:
    """Write one namespace of a user as an OKF bundle in ``dest`` (created if missing).

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
        >>> store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> _ = store.add_relation("u1", "papers", "BERT", "Transformer", "based_on")
        >>> out = export_namespace_okf(store, "u1", "papers", tempfile.mkdtemp())
        >>> (out.concepts, out.relations, sorted(out.files))
        (2, 1, ['bert.md', 'index.md', 'log.md', 'transformer.md'])
    """
    check_user_id(user_id)
    check_namespace(namespace)
    base = Path(dest).expanduser()
    base.mkdir(parents=True, exist_ok=True)
    base = base.resolve()
    concepts = list(_iter_concepts(store, user_id, namespace))
    taken: set[str] = set()
    files = {c.id: _slug(c.name, taken) + ".md" for c in concepts}
    relations = store.get_relations(user_id, namespace, limit=100_000)
    outgoing: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for r in relations:
        meta: dict[str, Any] = {"weight": r.weight, "created_at": r.created_at.isoformat()}
        if r.evidence:
            meta["evidence"] = r.evidence
        outgoing.setdefault(r.source_id, []).append((r.type, r.target_id, meta))
    by_id = {c.id: c for c in concepts}
    documents = store.list_documents(user_id, namespace, limit=100_000)
    written: list[str] = []
    for c in concepts:
        extra = dict(c.properties.get("okf_extra") or {})
        props = {k: v for k, v in c.properties.items() if k != "okf_extra"}
        front: dict[str, Any] = {
            "type": c.kind,
            "title": c.display_name,
            "name": c.name,
        }
        if c.description:
            front["description"] = c.description
        if c.source:
            front["resource"] = c.source
        if c.tags:
            front["tags"] = list(c.tags)
        front["timestamp"] = c.updated_at.isoformat()
        front["created_at"] = c.created_at.isoformat()
        front["importance"] = c.importance
        front["source_type"] = c.source_type
        if props:
            front["properties"] = props
        if documents:
            hashes = sorted(d.content_hash for d in store.concept_documents(user_id, c.id))
            if hashes:
                front["extracted_from"] = hashes
        entities = store.referenced_entities(user_id, namespace, c.name)
        if entities:
            front["entities"] = sorted(e.display_name for e in entities)
        for key, value in extra.items():
            if key not in front:
                front[key] = value
        body = [f"# {_md_text(c.display_name)}", ""]
        if c.description:
            body += [c.description, ""]
        rels = sorted(outgoing.get(c.id, []), key=lambda t: (t[0], files.get(t[1], "")))
        if rels:
            body += ["## Relations", ""]
            for rtype, target, meta in rels:
                if target not in by_id:
                    continue
                # JSON in an HTML comment: "-->" or a newline in the evidence cannot end it
                note = json.dumps(meta, ensure_ascii=False).replace(">", "\\u003e")
                note = note.replace("<", "\\u003c")
                body.append(
                    f"- {rtype}: [{_md_text(by_id[target].display_name)}]({files[target]})"
                    f" <!-- prax {note} -->"
                )
            body.append("")
        text = (
            "---\n"
            + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100)
            + "---\n\n"
            + "\n".join(body)
        )
        _write(base, files[c.id], text)
        written.append(files[c.id])
    index = [f"# {namespace}", "", f"OKF {OKF_VERSION} bundle: {len(concepts)} concepts.", ""]
    index += [
        f"- [{_md_text(c.display_name)}]({files[c.id]})"
        for c in sorted(concepts, key=lambda c: c.name)
    ]
    _write(base, "index.md", "\n".join(index) + "\n")
    log = (
        f"# Log\n\n- {utcnow().isoformat()} exported namespace `{namespace}`: "
        f"{len(concepts)} concepts, {len(relations)} relations\n"
    )
    _write(base, "log.md", log)
    written += ["index.md", "log.md"]
    if documents:
        docs = [
            {
                "title": d.title,
                "content_hash": d.content_hash,
                "source": d.source,
                "source_type": d.source_type,
                "chunks": d.chunks,
                "properties": d.properties,
                "created_at": d.created_at.isoformat(),
            }
            for d in sorted(documents, key=lambda d: (d.created_at, d.content_hash))
        ]
        text = yaml.safe_dump(
            {"okf_version": OKF_VERSION, "documents": docs}, sort_keys=False, allow_unicode=True
        )
        _write(base, DOCUMENTS_FILE, text)
        written.append(DOCUMENTS_FILE)
    return OkfExportResult(
        path=str(base), concepts=len(concepts), relations=len(relations), files=written
    )


def _parse_file(text: str) -> tuple[dict[str, Any], str]:
    m = _FRONTMATTER.match(text)
    if not m:
        raise MemoryValidationError("no YAML frontmatter")
    try:
        front = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        raise MemoryValidationError(f"invalid YAML frontmatter: {exc}") from exc
    if not isinstance(front, dict):
        raise MemoryValidationError("frontmatter is not a mapping")
    if not front.get("type"):
        raise MemoryValidationError("frontmatter has no 'type'")
    return front, text[m.end() :]


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def import_okf(
    store: KnowledgeStore,
    user_id: str,
    src: str | Path,
    namespace: str,
    *,
    now: datetime | None = None,
) -> OkfImportResult:
    r"""Read an OKF bundle into ``namespace`` (concepts merge with existing ones by name).

    Files without frontmatter or ``type`` are skipped and listed; links that leave the
    bundle are ignored.

    Example:
        >>> import tempfile
        >>> from langgraph_prax_memory.graph import SQLiteGraphStore
        >>> from langgraph_prax_memory.knowledge import SQLiteKnowledgeStore
        >>> store = SQLiteKnowledgeStore(SQLiteGraphStore(":memory:"))
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = (folder / "rrf.md").write_text("---\ntype: method\ntitle: RRF\n---\n"
        ...                                   "Fuses [BM25](bm25.md).\n")
        >>> _ = (folder / "bm25.md").write_text("---\ntype: method\ntitle: BM25\n---\n")
        >>> r = import_okf(store, "u1", folder, "papers")
        >>> (r.concepts, r.relations)
        (2, 1)
    """
    check_user_id(user_id)
    check_namespace(namespace)
    base = Path(src).expanduser().resolve()
    if not base.is_dir():
        raise MemoryValidationError(f"not a directory: {src}")
    skipped: list[str] = []
    parsed: dict[Path, tuple[dict[str, Any], str]] = {}
    count = 0
    for path in sorted(base.rglob("*.md")):
        count += 1
        if count > _MAX_FILES:
            skipped.append(f"more than {_MAX_FILES} files: the rest were not read")
            break
        rel = path.relative_to(base).as_posix()
        if path.name in ("index.md", "log.md") and path.parent == base:
            continue
        real = path.resolve()
        if not real.is_relative_to(base) or not real.is_file():
            skipped.append(f"{rel}: outside the bundle")
            continue
        if real.stat().st_size > _MAX_FILE_BYTES:
            skipped.append(f"{rel}: larger than {_MAX_FILE_BYTES} bytes")
            continue
        try:
            parsed[real] = _parse_file(real.read_text(encoding="utf-8", errors="replace"))
        except MemoryValidationError as exc:
            skipped.append(f"{rel}: {exc}")
    names: dict[Path, str] = {}
    concepts: list[ConceptInput] = []
    times: dict[str, tuple[datetime | None, datetime | None]] = {}  # name → (created, updated)
    provenance: dict[str, list[str]] = {}  # content hash → concept names
    links: dict[str, list[str]] = {}  # concept name → entity names
    for path, (front, body) in parsed.items():
        title = str(front.get("title") or path.stem)
        name = str(front.get("name") or title)
        extra = {k: _jsonable(v) for k, v in front.items() if k not in _KNOWN}
        props = front.get("properties") if isinstance(front.get("properties"), dict) else {}
        props = _jsonable(dict(props or {}))
        if extra:
            props["okf_extra"] = extra
        tags = front.get("tags") or []
        if isinstance(tags, str):
            tags = [t.strip() for t in tags.split(",")]
        description = front.get("description")
        if not description:
            lines = [ln for ln in body.splitlines() if ln.strip() and not ln.startswith("#")]
            description = lines[0].strip() if lines and not _REL_ITEM.match(lines[0]) else ""
        try:
            importance = front.get("importance")
            concepts.append(
                ConceptInput(
                    name=name,
                    display_name=title,
                    description=str(description),
                    kind=str(front["type"]),
                    importance=None if importance is None else float(importance),
                    source=str(front.get("resource") or ""),
                    source_type=str(front.get("source_type") or "")
                    if "source_type" in front
                    else "okf",
                    tags=[str(t) for t in tags if str(t).strip()],
                    properties=props,
                )
            )
        except (PraxMemoryError, ValueError, TypeError) as exc:
            skipped.append(f"{path.relative_to(base).as_posix()}: {exc}")
            continue
        names[path] = name
        times[name] = (_time(front.get("created_at")), _time(front.get("timestamp")))
        for digest in _strings(front.get("extracted_from")):
            provenance.setdefault(digest, []).append(name)
        links[name] = _strings(front.get("entities"))
    relations: list[RelationInput] = []
    rel_times: list[datetime | None] = []
    for path, (_, body) in parsed.items():
        if path not in names:
            continue
        section = ""
        for line in body.splitlines():
            if line.startswith("#"):
                section = line.lstrip("#").strip().lower()
                continue
            item = _REL_ITEM.match(line) if section == "relations" else None
            rtype = item.group(1).strip().replace(" ", "_").lower() if item else "related_to"
            weight_m = re.search(r"<!--\s*weight=([0-9.eE+-]+)\s*-->", line)
            meta = _relation_meta(line)
            weight = float(weight_m.group(1)) if weight_m else 1.0
            if isinstance(meta.get("weight"), int | float) and meta["weight"] > 0:
                weight = float(meta["weight"])
            for m in _LINK.finditer(line):
                href = unquote(m.group(2).split("#")[0])
                if not href or re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I):
                    continue  # external URL or anchor
                target = (path.parent / href).resolve()
                if not target.is_relative_to(base):
                    skipped.append(
                        f"{path.relative_to(base).as_posix()}: link {href!r} leaves the bundle"
                    )
                    continue
                if target not in names:
                    continue
                relations.append(
                    RelationInput(
                        source=names[path],
                        target=names[target],
                        type=rtype,
                        weight=weight,
                        evidence=str(meta.get("evidence") or ""),
                    )
                )
                rel_times.append(_time(meta.get("created_at")))
    documents = _read_documents(base, skipped)
    return _write_bundle(
        store,
        user_id,
        namespace,
        concepts,
        relations,
        rel_times,
        times,
        documents,
        provenance,
        links,
        skipped,
        now or utcnow(),
    )


def _time(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    try:
        return to_utc(value)
    except (PraxMemoryError, ValueError, TypeError):
        return None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [str(v) for v in value if str(v).strip()]


def _relation_meta(line: str) -> dict[str, Any]:
    m = _PRAX_COMMENT.search(line)
    if m is None:
        return {}
    try:
        meta = json.loads(m.group(1))
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _read_documents(base: Path, skipped: list[str]) -> list[dict[str, Any]]:
    path = base / DOCUMENTS_FILE
    if not path.is_file():
        return []
    real = path.resolve()
    if not real.is_relative_to(base) or real.stat().st_size > _MAX_FILE_BYTES:
        skipped.append(f"{DOCUMENTS_FILE}: outside the bundle or too large")
        return []
    try:
        data = yaml.safe_load(real.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        skipped.append(f"{DOCUMENTS_FILE}: invalid YAML: {exc}")
        return []
    docs = data.get("documents") if isinstance(data, dict) else None
    if not isinstance(docs, list):
        return []
    return [d for d in docs if isinstance(d, dict) and d.get("content_hash")]


def _write_bundle(
    store: KnowledgeStore,
    user_id: str,
    namespace: str,
    concepts: list[ConceptInput],
    relations: list[RelationInput],
    rel_times: list[datetime | None],
    times: dict[str, tuple[datetime | None, datetime | None]],
    documents: list[dict[str, Any]],
    provenance: dict[str, list[str]],
    links: dict[str, list[str]],
    skipped: list[str],
    now: datetime,
) -> OkfImportResult:
    """Write what was read, in passes dated by the bundle's own timestamps.

    The stores date a write with the batch's ``now``: concepts are first written at their
    ``created_at``, documents (with their ``EXTRACTED_FROM`` edges) at theirs, relations at
    theirs, and the concepts once more at their ``updated_at`` (a merge of identical data only
    advances ``updated_at``). Undated items take ``now``.
    """
    by_name = {c.name: c for c in concepts}
    ids: dict[str, str] = {}
    rel_ids: set[str] = set()

    def grouped(items: list[Any], when: list[datetime | None]) -> dict[datetime, list[Any]]:
        out: dict[datetime, list[Any]] = {}
        for item, moment in zip(items, when, strict=True):
            out.setdefault(moment or now, []).append(item)
        return dict(sorted(out.items()))

    created = [times.get(c.name, (None, None))[0] for c in concepts]
    for moment, group in grouped(concepts, created).items():
        for c in store.write_batch(user_id, namespace, group, now=moment).concepts:
            ids[c.name] = c.id
    for doc in documents:
        members = [by_name[n] for n in provenance.get(str(doc["content_hash"]), []) if n in by_name]
        props = doc.get("properties") if isinstance(doc.get("properties"), dict) else {}
        try:
            document = DocumentInput(
                title=str(doc.get("title") or doc["content_hash"]),
                content_hash=str(doc["content_hash"]),
                source=str(doc.get("source") or ""),
                source_type=str(doc.get("source_type") or ""),
                chunks=int(doc.get("chunks") or 0),
                properties=_jsonable(dict(props or {})),
            )
        except (PraxMemoryError, ValueError, TypeError) as exc:
            skipped.append(f"{DOCUMENTS_FILE}: document {doc.get('title')!r}: {exc}")
            continue
        moment = _time(doc.get("created_at")) or now
        store.write_batch(user_id, namespace, members, document=document, now=moment)
    for moment, group in grouped(relations, rel_times).items():
        rel_ids.update(
            r.id for r in store.write_batch(user_id, namespace, [], group, now=moment).relations
        )
    updated = [times.get(c.name, (None, None))[1] for c in concepts]
    for moment, group in grouped(concepts, updated).items():
        if moment != now or any(times.get(c.name, (None, None))[1] for c in group):
            store.write_batch(user_id, namespace, group, now=moment)
    for name, entity_names in links.items():
        for entity in entity_names:
            try:
                store.connect_entity(user_id, namespace, name, entity_id(user_id, entity), now=now)
            except KnowledgeNotFound:
                skipped.append(f"{name}: entity {entity!r} does not exist for {user_id!r}")
    return OkfImportResult(
        namespace=namespace,
        concepts=len(ids),
        relations=len(rel_ids),
        concept_ids=list(ids.values()),
        skipped=skipped,
    )
