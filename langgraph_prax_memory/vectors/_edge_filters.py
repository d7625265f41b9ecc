"""Qdrant filters and conditions as qdrant-edge's types (pure; see ``_edge_convert``).

A condition or match with no translation raises ``NotImplementedError`` naming it.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from typing import Any

import numpy as np
import qdrant_edge as qe
from qdrant_client.http import models


def _newer(name: str) -> Any:
    """A qdrant-client model class older releases lack; ``()`` there (``isinstance`` is False).

    The package accepts qdrant-client 1.15, which predates ``RrfQuery``, IDF corpora and
    some match types.
    """
    return getattr(models, name, ())


def _id_in(point_id: Any) -> qe.PointId:
    if isinstance(point_id, bool) or not isinstance(point_id, int | str | uuid.UUID):
        raise TypeError(f"a point id is an unsigned int or a UUID, got {point_id!r}")
    return str(point_id) if isinstance(point_id, uuid.UUID) else point_id


# -- filters -----------------------------------------------------------------------------
def _and(a: qe.Filter | None, b: qe.Filter | None) -> qe.Filter | None:
    if a is None or b is None:
        return a or b
    return qe.Filter(must=[a, b])


def _conditions(value: Any) -> list[qe.ConditionType] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [_condition(c) for c in items]


def _filter(flt: models.Filter | None) -> qe.Filter | None:
    """The edge filter of a qdrant-client filter (``None`` stays ``None``)."""
    if flt is None:
        return None
    min_should = None
    if flt.min_should is not None:
        min_should = qe.MinShould(
            [_condition(c) for c in flt.min_should.conditions], flt.min_should.min_count
        )
    return qe.Filter(
        must=_conditions(flt.must),
        should=_conditions(flt.should),
        must_not=_conditions(flt.must_not),
        min_should=min_should,
    )


def _condition(cond: Any) -> qe.ConditionType:
    if isinstance(cond, models.FieldCondition):
        return _field_condition(cond)
    if isinstance(cond, models.HasIdCondition):
        return qe.HasIdCondition({_id_in(i) for i in cond.has_id})
    if isinstance(cond, models.IsEmptyCondition):
        return qe.IsEmptyCondition(cond.is_empty.key)
    if isinstance(cond, models.IsNullCondition):
        return qe.IsNullCondition(cond.is_null.key)
    if isinstance(cond, models.HasVectorCondition):
        return qe.HasVectorCondition(cond.has_vector)
    if isinstance(cond, models.NestedCondition):
        inner = _filter(cond.nested.filter)
        assert inner is not None
        return qe.NestedCondition(cond.nested.key, inner)
    if isinstance(cond, models.Filter):
        inner = _filter(cond)
        assert inner is not None
        return inner
    raise NotImplementedError(f"EdgeClient does not translate the condition {cond!r}")


def _field_condition(cond: models.FieldCondition) -> qe.FieldCondition:
    geo = [
        name
        for name in ("geo_bounding_box", "geo_radius", "geo_polygon")
        if getattr(cond, name) is not None
    ]
    if geo:
        raise NotImplementedError(f"EdgeClient does not translate geo conditions ({geo[0]})")
    values_count = None
    if cond.values_count is not None:
        vc = cond.values_count
        values_count = qe.ValuesCount(lt=vc.lt, gt=vc.gt, lte=vc.lte, gte=vc.gte)
    return qe.FieldCondition(
        cond.key,
        match=_match(cond.match) if cond.match is not None else None,
        range=_range(cond.range) if cond.range is not None else None,
        values_count=values_count,
        is_empty=cond.is_empty,
        is_null=cond.is_null,
    )


def _match(match: Any) -> qe.MatchType:
    if isinstance(match, models.MatchValue):
        if isinstance(match.value, bool):
            # qdrant-edge-py 0.9 reads a Python bool as the integer 0/1, which matches no
            # boolean payload; numpy's bool is read as a bool.
            return qe.MatchValue(np.bool_(match.value))  # type: ignore[arg-type]
        return qe.MatchValue(match.value)
    if isinstance(match, models.MatchAny):
        return qe.MatchAny(match.any)
    if isinstance(match, models.MatchExcept):
        return qe.MatchExcept(match.except_)
    if isinstance(match, models.MatchText):
        return qe.MatchText(match.text)
    if isinstance(match, _newer("MatchTextAny")):
        return qe.MatchTextAny(match.text_any)
    if isinstance(match, _newer("MatchPhrase")):
        return qe.MatchPhrase(match.phrase)
    if isinstance(match, _newer("MatchSubstring")):
        return qe.MatchSubstring(match.substring)
    raise NotImplementedError(f"EdgeClient does not translate the match {match!r}")


def _range(rng: Any) -> qe.RangeType:
    if isinstance(rng, models.DatetimeRange):
        return qe.RangeDateTime(
            gte=_iso(rng.gte), gt=_iso(rng.gt), lte=_iso(rng.lte), lt=_iso(rng.lt)
        )
    if isinstance(rng, models.Range):
        return qe.RangeFloat(gte=rng.gte, gt=rng.gt, lte=rng.lte, lt=rng.lt)
    raise NotImplementedError(f"EdgeClient does not translate the range {rng!r}")


def _iso(value: datetime | date | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()
