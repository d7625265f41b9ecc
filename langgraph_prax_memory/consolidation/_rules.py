"""A rule-based extractor: consolidation without a language model.

It is the default when no chat model is configured, so consolidation works offline. It reads
each item as ``"<speaker>: <text>"`` (the shape of trace items) and finds:

* **entities** — speakers (people), URLs, known vocabulary (tools, languages, services),
  capitalised names and acronyms that are not sentence-initial filler;
* **relations** — ``mentioned_with`` between entities of one sentence, and first-person
  patterns of a speaker: "I prefer / like / love X" → ``prefers``, "I work on X" →
  ``works_on``, "I'm interested in X" → ``interested_in``; "I now prefer X over Y",
  "I switched from Y to X" and "I no longer like Y" supersede the old edge;
* **facts** — first-person sentences that state a preference, a decision or durable context,
  scored on the seed's scale (0.8–1.0 critical preferences and decisions, 0.4–0.7 useful
  context); hedged sentences ("maybe", "I think") get a confidence below the 0.6 gate and go
  to review;
* **temporal events** — sentences with a date or a relative time ("yesterday", "last week");
* **causal links** — "X because Y", "X due to Y", "X, so Y".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta

from langgraph_prax_memory.consolidation._batching import EXTRACTION_CHAR_BUDGET
from langgraph_prax_memory.consolidation._chat import normalize_chat
from langgraph_prax_memory.consolidation._models import (
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
)
from langgraph_prax_memory.consolidation._normalize import (
    STATE_STATEMENTS,
)
from langgraph_prax_memory.consolidation._rule_facts import (
    life_change,
    named_in_passing,
    sentence_facts,
    with_antecedent,
)
from langgraph_prax_memory.consolidation._rule_patterns import (
    _BECAUSE,
    _CAPS,
    _CHANGE_ANNOUNCE,
    _CHANGE_CUE,
    _DAYS,
    _FILLER,
    _HEDGE,
    _ISO_DATE,
    _MONTH_DATE,
    _MONTHS,
    _MY_ROLE,
    _NEW_VALUES,
    _NO_LONGER,
    _NON_HUMAN,
    _NOT_ANYMORE,
    _NOW_PREFER,
    _ONLY_NOT_ANYMORE,
    _ORG_WORDS,
    _PAST,
    _PERSON_CUE,
    _PLACE_CUE,
    _RELATIVE,
    _REPLACED,
    _SO,
    _SPEAKER,
    _STATEMENTS,
    _STOP_OBJECT,
    _SWITCHED,
    _THESE_DAYS_TAIL,
    _THEY_LIVE,
    _URL,
    KNOWN_VOCABULARY,
    SINGLE_VALUED,
    SUPERSEDES_CURRENT,
    _clauses,
    _clean_object,
    _has_word,
    _looks_like_place,
    _sentences,
)
from langgraph_prax_memory.consolidation._smalltalk import is_junk

__all__ = [
    "KNOWN_VOCABULARY",
    "SINGLE_VALUED",
    "SUPERSEDES_CURRENT",
    "RuleBasedExtractor",
    "is_junk",
]


class _Found:
    """Entities of one batch, merged by lower-cased name."""

    def __init__(self) -> None:
        self.by_key: dict[str, ExtractedEntity] = {}
        self.mentions: dict[str, int] = {}

    def add(self, name: str, etype: str, confidence: float, importance: float) -> str:
        name = name.strip(" .,'’\"-")
        key = name.lower()
        if not key:
            return key
        self.mentions[key] = self.mentions.get(key, 0) + 1
        old = self.by_key.get(key)
        if old is None:
            self.by_key[key] = ExtractedEntity(
                name=name, type=etype, importance=importance, confidence=confidence
            )
        else:
            better_type = old.type if old.type != "concept" else etype
            self.by_key[key] = old.model_copy(
                update={
                    "type": better_type,
                    "confidence": max(old.confidence, confidence),
                    "importance": max(old.importance, importance),
                }
            )
        return key

    def finish(self) -> list[ExtractedEntity]:
        out = []
        for key, ent in self.by_key.items():
            bump = min(0.4, 0.1 * (self.mentions[key] - 1))
            out.append(ent.model_copy(update={"importance": min(0.7, ent.importance + bump)}))
        return out


class RuleBasedExtractor:
    """Entities, relations, facts, events and causal links by rules; no model needed.

    Args:
        vocabulary: Extra ``{term: entity_type}`` entries, added to :data:`KNOWN_VOCABULARY`.
        max_chars: The extractor's character cap (batches are cut to it).

    Example:
        >>> ext = RuleBasedExtractor()
        >>> out = ext.extract(["user: I prefer Neovim over VS Code for Rust work."])
        >>> [f.content for f in out.facts]
        ['User prefers Neovim over VS Code for Rust work.']
        >>> sorted(e.name for e in out.entities)
        ['Neovim', 'Rust', 'User', 'VS Code']
    """

    def __init__(
        self,
        *,
        vocabulary: Mapping[str, str] | None = None,
        max_chars: int = EXTRACTION_CHAR_BUDGET,
    ) -> None:
        extra = {k.strip().lower(): v for k, v in (vocabulary or {}).items() if k.strip()}
        self.vocabulary = {**KNOWN_VOCABULARY, **extra}
        self.max_chars = max_chars
        terms = sorted(self.vocabulary, key=len, reverse=True)
        self._vocab_re = re.compile(
            r"(?<![\w])(?:" + "|".join(re.escape(t) for t in terms) + r")(?![\w])", re.I
        )

    # -- entry point ---------------------------------------------------------------------
    def extract(
        self, items: Sequence[str], *, times: Sequence[datetime | None] | None = None
    ) -> Extraction:
        """Extract from the items of one batch (each ``"<speaker>: <text>"`` or plain text)."""
        found = _Found()
        relations: list[ExtractedRelation] = []
        facts: list[ExtractedFact] = []
        events: list[ExtractedEvent] = []
        causal: list[ExtractedCausalLink] = []
        budget = self.max_chars
        parsed: list[tuple[int, str | None, str]] = []
        for index, item in enumerate(items):
            if budget <= 0:
                break
            item = item[:budget]
            budget -= len(item) + 1
            match = _SPEAKER.match(item)
            speaker, body = (match.group(1).strip(), match.group(2)) if match else (None, item)
            parsed.append((index, speaker, normalize_chat(body)))
        mid_caps = self._mid_sentence_caps(body for _, _, body in parsed)
        for index, speaker, body in parsed:
            when = times[index] if times and index < len(times) else None
            human = speaker is not None and speaker.lower() not in _NON_HUMAN
            who = None
            if human and speaker is not None:
                who = "User" if speaker.lower() in {"user", "human", "me"} else speaker
                found.add(who, "person", 0.9, 0.5)
            announced = False
            previous: str | None = None
            said_before: str | None = None
            for sentence in _sentences(body):
                names = self._entities(sentence, found, mid_caps)
                relations.extend(self._cooccurrence(names, found, sentence))
                if who is None:
                    continue
                relations.extend(self._people(who, sentence, found))
                clauses = _clauses(sentence)
                stated: list[ExtractedRelation] = []
                covered = 0  # clauses whose content is a state relation ("I live in X")
                for clause in clauses:
                    got = self._patterns(who, clause, found, announced=announced, previous=previous)
                    new = [r for r in got if r not in stated]
                    stated.extend(new)
                    covered += any(r.type in STATE_STATEMENTS for r in new)
                relations.extend(stated)
                announced = _CHANGE_ANNOUNCE.search(sentence) is not None
                said_before, previous = previous, sentence
                facts.extend(
                    sentence_facts(
                        who,
                        with_antecedent(sentence, said_before),
                        [found.by_key[k] for k in names],
                        index,
                        stated=stated,
                        whole=covered < len(clauses),
                    )
                )
                facts.extend(named_in_passing(who, sentence, index))
                event = self._event(sentence, names, found, who, when)
                if event is not None:
                    events.append(event)
                link = self._causal(sentence, found)
                if link is not None:
                    causal.append(link)
        return Extraction(
            entities=found.finish(),
            relations=relations,
            facts=facts,
            temporal_events=events,
            causal_links=causal,
        )

    # -- entities ------------------------------------------------------------------------
    @staticmethod
    def _mid_sentence_caps(bodies: Iterable[str]) -> set[str]:
        """Capitalised words seen somewhere other than the start of a sentence."""
        seen: set[str] = set()
        for body in bodies:
            for sentence in _sentences(body):
                for m in _CAPS.finditer(sentence):
                    if m.start() > 0:
                        seen.update(w.lower() for w in m.group(0).split())
        return seen

    def _entities(self, sentence: str, found: _Found, mid_caps: set[str]) -> list[str]:
        keys: list[str] = []
        taken: list[tuple[int, int]] = []
        for m in _URL.finditer(sentence):
            keys.append(found.add(m.group(0).rstrip(".,;:!?"), "url", 0.9, 0.4))
            taken.append(m.span())
        for m in _CAPS.finditer(sentence):
            if any(a <= m.start() < b for a, b in taken):
                continue
            words = m.group(0).split()
            while words and words[0].lower().strip("'’") in _FILLER:
                words.pop(0)
            while words and words[-1].lower().strip("'’") in _FILLER:
                words.pop()
            if not words:
                continue
            name = " ".join(words).rstrip(".’'-")
            name = re.sub(r"['’]s$", "", name)
            low = name.lower()
            if len(low) < 2 or low in self.vocabulary or low in _FILLER:
                continue
            initial = m.start() == 0 and sentence.find(words[0]) == 0
            if initial and len(words) == 1 and low not in mid_caps:
                continue  # a capitalised first word is usually just the sentence start
            before = sentence[: m.start()]
            if _ORG_WORDS.search(name) or re.search(
                r"\b(?:work|works|working) (?:at|for) $", before
            ):
                etype = "organization"
            elif re.search(r"\bproject\s+$", before, re.I):
                etype = "project"
            elif _PERSON_CUE.search(before) and len(words) <= 2:
                etype = "person"
            elif _PLACE_CUE.search(before) and _looks_like_place(name):
                etype = "place"
            else:
                etype = "concept"
            confidence = 0.65 if initial else 0.75
            keys.append(found.add(name, etype, confidence, 0.3))
        for hit in self._vocab_re.finditer(sentence):
            keys.append(found.add(hit.group(0), self.vocabulary[hit.group(0).lower()], 0.9, 0.4))
        out: list[str] = []
        for key in keys:
            if key and key not in out:
                out.append(key)
        return out

    # -- relations -----------------------------------------------------------------------
    @staticmethod
    def _cooccurrence(keys: list[str], found: _Found, sentence: str) -> list[ExtractedRelation]:
        names = sorted(k for k in keys if found.by_key[k].type != "url")[:6]
        rels = []
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                rels.append(
                    ExtractedRelation(
                        source=found.by_key[a].name,
                        type="mentioned_with",
                        target=found.by_key[b].name,
                        weight=0.5,
                        evidence=sentence[:200],
                        confidence=0.6,
                    )
                )
        return rels

    def _patterns(
        self,
        who: str,
        sentence: str,
        found: _Found,
        *,
        announced: bool = False,
        previous: str | None = None,
    ) -> list[ExtractedRelation]:
        """First-person relations of one sentence, with what they supersede.

        ``announced``: the previous sentence of the same turn announced a change ("I changed
        my mind."), so a preference stated here replaces the current one of its slot;
        ``previous``: that sentence (the object of a bare "Not anymore.").
        """
        rels: list[ExtractedRelation] = []
        evidence = sentence[:200]
        hedged = _HEDGE.search(sentence) is not None
        conf = 0.45 if hedged else 0.8
        change = announced or _CHANGE_CUE.search(sentence) is not None

        def obj(name: str | None, etype: str = "concept") -> str | None:
            if not name:
                return None
            known = self.vocabulary.get(name.lower())
            key = found.add(name, known or etype, conf, 0.5)
            return found.by_key[key].name if key else None

        def rel(rtype: str, target: str, supersedes: str | None = None) -> None:
            rels.append(
                ExtractedRelation(
                    source=who,
                    type=rtype,
                    target=target,
                    supersedes=supersedes,
                    evidence=evidence,
                    confidence=conf,
                )
            )

        def pref_type(name: str, verb: str = "") -> tuple[str, str]:
            """(relation type, entity type) of a new value: a place for 'moved to Japan'."""
            known = self.vocabulary.get(name.lower())
            moving = re.search(r"\b(?:moved|relocated|moving|relocating)\b", verb, re.I)
            if known is None and moving and _looks_like_place(name):
                return "lives_in", "place"
            return "prefers", known or "topic"

        # 0. a new state of the speaker's life: a job, a partner, a diet, a project's name
        state = life_change(sentence, obj, rel, change=change)
        if state is not None:
            return rels
        # 1. the old and the new value are both named
        for pattern in (_SWITCHED, _REPLACED, _NOW_PREFER):
            hit = pattern.search(sentence)
            if hit is None:
                continue
            new_raw, old = _clean_object(hit.group("new")), _clean_object(hit.group("old"))
            if new_raw and old:
                rtype, etype = pref_type(new_raw, hit.group(0))
                new = obj(new_raw, etype)
                if new:
                    obj(old, etype)
                    rel(rtype, new, old)
                    return rels
        # 2. the old value is closed ("no longer", "stopped", "gave up", "not anymore")
        closing = _NO_LONGER.search(sentence)
        if closing is None and len(sentence.split()) <= 6:
            closing = _NOT_ANYMORE.search(sentence)
        if closing is None and previous and _ONLY_NOT_ANYMORE.match(sentence):
            old = _clean_object(previous.rstrip("?.! "))
            if old and len(old.split()) <= 3:
                old = obj(old, self.vocabulary.get(old.lower(), "topic"))
                if old:
                    rel("prefers", old, old)
            return rels
        rest = sentence
        closed: str | None = None
        if closing is not None:
            closed = _clean_object(closing.group("old"))
            if closed:
                closed = obj(closed, self.vocabulary.get(closed.lower(), "topic"))
                if closed:
                    rel("prefers", closed, closed)
            rest = sentence[closing.end() :].strip()
            if rest and not re.match(r"(?:I|we)\b", rest):
                rest = "I " + rest  # "… and switched to X": the subject carries over
            change = True
            tail = _THESE_DAYS_TAIL.match(sentence[closing.end() :])
            if tail is not None and closed:  # "I gave up coffee, tea these days."
                new = obj(_clean_object(tail.group("new")), "topic")
                if new:
                    rels[-1] = rels[-1].model_copy(update={"target": new})
                    return rels
        # 3. a new value of an unnamed old one ("I switched to X", "these days I drink X")
        for rule in _NEW_VALUES:
            if rule.after_change and not change:
                continue
            hit = rule.pattern.search(rest)
            if hit is None:
                continue
            if rule.home:
                place = _clean_object(hit.group("obj"))
                if place and (place[0].isupper() or place.lower() in self.vocabulary):
                    target = obj(place, "place")
                    if target:
                        moved = hit.group(0).lower()
                        moving = change or any(w in moved for w in ("moved", "relocat"))
                        rel("lives_in", target, SUPERSEDES_CURRENT if moving else None)
                        return rels
            else:
                new_raw = _clean_object(hit.group("new"))
                if new_raw and new_raw.lower() not in _STOP_OBJECT:
                    verb = hit.group(0) if rule.verb_decides else ""
                    rtype, etype = pref_type(new_raw, verb)
                    new = obj(new_raw, etype)
                    if new:
                        if closed and rtype == "prefers":  # "stopped X and switched to Y"
                            rels[-1] = rels[-1].model_copy(update={"target": new})
                        else:
                            rel(rtype, new, SUPERSEDES_CURRENT)
                        return rels
            if rule.ends_search:
                break
        if closing is not None:
            return rels
        # 4. plain statements (nothing superseded but a workplace after a change cue)
        for pattern, types in _STATEMENTS:
            m = pattern.search(sentence)
            if m is None:
                continue
            rtype, etype = types[m.group("prep").lower() if "prep" in pattern.groupindex else ""]
            target = obj(_clean_object(m.group("obj")), etype)
            if target:
                rel(rtype, target, SUPERSEDES_CURRENT if change and rtype == "works_at" else None)
        return rels

    def _people(self, who: str, sentence: str, found: _Found) -> list[ExtractedRelation]:
        """User-centred relations: "my sister Sarah" → ``who -[related_to]-> Sarah``."""
        rels = []
        for m in _MY_ROLE.finditer(sentence):
            name = m.group("name").strip()
            if name.lower() in _FILLER or name.lower() in self.vocabulary:
                continue
            key = found.add(name, "person", 0.8, 0.5)
            if not key:
                continue
            rels.append(
                ExtractedRelation(
                    source=who,
                    type="related_to",
                    target=found.by_key[key].name,
                    evidence=f"{m.group('role').lower()}: {sentence[:180]}",
                    confidence=0.8,
                )
            )
        for m in _THEY_LIVE.finditer(sentence):
            person, place = m.group("who").strip(), _clean_object(m.group("place"))
            if not place or person.lower() in _FILLER or not _looks_like_place(place):
                continue
            pkey = found.add(person, "person", 0.75, 0.4)
            lkey = found.add(place, "place", 0.8, 0.4)
            if pkey and lkey:
                rels.append(
                    ExtractedRelation(
                        source=found.by_key[pkey].name,
                        type="lives_in",
                        target=found.by_key[lkey].name,
                        evidence=sentence[:200],
                        confidence=0.75,
                    )
                )
        return rels

    # -- facts, events, causes -------------------------------------------------------------
    @staticmethod
    def _event(
        sentence: str, keys: list[str], found: _Found, who: str, when: datetime | None
    ) -> ExtractedEvent | None:
        if sentence.endswith("?"):
            return None
        occurred: datetime | None = None
        iso = _ISO_DATE.search(sentence)
        named = _MONTH_DATE.search(sentence)
        rel = _RELATIVE.search(sentence)
        try:
            if iso:
                occurred = datetime(int(iso[1]), int(iso[2]), int(iso[3]), tzinfo=UTC)
            elif named:
                month = _MONTHS.index((named["m1"] or named["m2"]).lower()) + 1
                day = int(named["d1"] or named["d2"])
                year = int(named["y"]) if named["y"] else (when.year if when else None)
                if year is not None:
                    occurred = datetime(year, month, day, tzinfo=UTC)
            elif rel and when is not None:
                word = rel["rel"].lower()
                shift = {
                    "yesterday": 1,
                    "last night": 1,
                    "last week": 7,
                    "last weekend": 7,
                    "last month": 30,
                    "last year": 365,
                }.get(word, 0)
                if rel["day"]:
                    target = _DAYS.index(rel["day"].lower())
                    shift = (when.weekday() - target) % 7 or 7
                occurred = when - timedelta(days=shift)
        except ValueError:
            occurred = None
        if occurred is None and not (rel or iso or named):
            return None
        if not _PAST.search(sentence) and not (iso or named):
            return None
        participants = [who, *(found.by_key[k].name for k in keys)]
        return ExtractedEvent(
            description=f"{who}: {sentence}"[:500],
            occurred_at=occurred or when,
            importance=0.5,
            participants=list(dict.fromkeys(participants)),
            confidence=0.7,
        )

    def _causal(self, sentence: str, found: _Found) -> ExtractedCausalLink | None:
        m = _BECAUSE.match(sentence) or _SO.match(sentence)
        if m is None:
            return None
        cause, effect = m["cause"].strip(" .!"), m["effect"].strip(" .!")
        if len(cause.split()) < 3 or len(effect.split()) < 3:
            return None

        def ents(text: str) -> list[str]:
            return [e.name for k, e in found.by_key.items() if _has_word(text, k)]

        return ExtractedCausalLink(
            cause=cause[:500],
            effect=effect[:500],
            cause_entities=ents(cause),
            effect_entities=ents(effect),
            importance=0.5,
            confidence=0.65,
        )
