"""Memory classes: standing facts, episodes and small talk (docs/context.md, "Memory classes").

Every memory is classified when it is written, from its own text (:class:`FactClassifier`),
unless the caller's tags or importance say what it is (:func:`resolve_class`). The class
decides two things: a standing fact joins the user's profile tier and is never deleted by
time decay (it leaves by supersession, ``forget`` or the user); an episode follows the
seed's forgetting curve; small talk never enters the profile tier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langgraph_prax_memory.facts._attributes import ATTRIBUTES as ATTRIBUTES
from langgraph_prax_memory.facts._attributes import Attribute, AttributeModel, Reading, Statement
from langgraph_prax_memory.facts._bars import cross_validated_bars
from langgraph_prax_memory.facts._classifier import EPISODE as EPISODE
from langgraph_prax_memory.facts._classifier import EPISODE_KINDS as EPISODE_KINDS
from langgraph_prax_memory.facts._classifier import KINDS as KINDS
from langgraph_prax_memory.facts._classifier import SMALL_TALK as SMALL_TALK
from langgraph_prax_memory.facts._classifier import (
    SMALL_TALK_CONFIDENCE as SMALL_TALK_CONFIDENCE,
)
from langgraph_prax_memory.facts._classifier import STANDING as STANDING
from langgraph_prax_memory.facts._classifier import STANDING_CONFIDENCE as STANDING_CONFIDENCE
from langgraph_prax_memory.facts._classifier import STANDING_KINDS as STANDING_KINDS
from langgraph_prax_memory.facts._classifier import (
    FactClass,
    FactClassifier,
    class_of_kind,
    cue_features,
    goal_statements,
    training_statements,
)
from langgraph_prax_memory.facts._cues import states_a_goal
from langgraph_prax_memory.facts._grammar import holds_now
from langgraph_prax_memory.facts._names import (
    query_names,
    question_names,
    subject_of,
    without_speaker,
)
from langgraph_prax_memory.facts._questions import (
    QuestionReader,
    question_examples,
    speaks_of_self,
)
from langgraph_prax_memory.facts._said import (
    StatementGrammar,
    passing_impressions,
    read_statements,
    reported_views,
    stands_alone,
)

# the class names (STANDING, EPISODE, SMALL_TALK), KINDS and CLASS_FIELDS are importable
# constants, not part of __all__ (a public __all__ exports no constants)
__all__ = [
    "Attribute",
    "AttributeModel",
    "FactClass",
    "FactClassifier",
    "QuestionReader",
    "Reading",
    "Statement",
    "StatementGrammar",
    "class_of_kind",
    "cross_validated_bars",
    "cue_features",
    "goal_statements",
    "holds_now",
    "passing_impressions",
    "query_names",
    "question_examples",
    "question_names",
    "read_statements",
    "reported_views",
    "resolve_class",
    "speaks_of_self",
    "stands_alone",
    "states_a_goal",
    "subject_of",
    "training_statements",
    "without_speaker",
]

#: The payload fields a classified memory carries.
CLASS_FIELDS = ("fact_class", "fact_kind", "fact_by", "fact_confidence")

#: Tags that name a class outright, and the kind they give. Topical tags ("work", "travel",
#: "health") do not: agents tag episodes with their topic too.
_TAG_KINDS: dict[str, str] = {
    "standing": "identity",
    "episode": "event",
    "episodic": "event",
    "event": "event",
    "plan": "plan",
    "small_talk": SMALL_TALK,
    "smalltalk": SMALL_TALK,
}
#: The kind of each default profile tag (another profile tag gives ``identity``).
_PROFILE_KINDS: dict[str, str] = {
    "preference": "preference",
    "constraint": "health",
    "relationship": "relationship",
}


def resolve_class(
    text_class: FactClass | None,
    value: Mapping[str, Any],
    *,
    profile_tags: Sequence[str],
    min_importance: float,
) -> FactClass | None:
    """The class a memory is stored with: the caller's tags, then importance, then its text.

    * a tag that names a class (``standing``, ``episode``, ``event``, ``plan``,
      ``small_talk``) or one of ``profile_tags`` (``preference``, ``profile``,
      ``constraint``...: standing) decides; topical tags ("work", "travel") do not;
    * an importance of at least ``min_importance`` makes it a standing fact;
    * otherwise the text's class (``None`` when it could not be classified).

    Example:
        >>> resolve_class(None, {"tags": ["constraint"]}, profile_tags=["constraint"],
        ...               min_importance=0.8).fact_class
        'standing'
        >>> resolve_class(FactClass("standing", "preference"), {"tags": ["episode"]},
        ...               profile_tags=[], min_importance=0.8).kind
        'event'
    """
    tags = [t.lower() for t in value.get("tags") or [] if isinstance(t, str)]
    wanted = {t.lower() for t in profile_tags}
    for tag in tags:
        kind = _TAG_KINDS.get(tag)
        if kind is None and tag in wanted:
            kind = _PROFILE_KINDS.get(tag, "identity")
        if kind is not None:
            return FactClass(class_of_kind(kind), kind, 1.0, "tags")
    importance = value.get("importance")
    if isinstance(importance, (int, float)) and importance >= min_importance:
        kind = text_class.kind if text_class and text_class.fact_class == STANDING else "identity"
        return FactClass(STANDING, kind, 1.0, "importance")
    return text_class
