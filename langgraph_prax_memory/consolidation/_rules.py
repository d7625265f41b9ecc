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
from langgraph_prax_memory.consolidation._models import (
    ExtractedCausalLink,
    ExtractedEntity,
    ExtractedEvent,
    ExtractedFact,
    ExtractedRelation,
    Extraction,
)

__all__ = ["KNOWN_VOCABULARY", "RuleBasedExtractor"]


def _terms(text: str) -> list[str]:
    return text.split()


#: Lower-cased terms that are entities wherever they appear, with their entity type.
KNOWN_VOCABULARY: dict[str, str] = {
    **{
        t: "tool"
        for t in _terms(
            "python rust javascript typescript java kotlin swift golang haskell scala ruby "
            "php perl elixir clojure julia matlab sql bash zsh docker kubernetes k8s helm "
            "terraform ansible postgres postgresql mysql sqlite mongodb redis kafka spark "
            "airflow neo4j qdrant elasticsearch langgraph langchain pytorch tensorflow numpy "
            "pandas polars scikit-learn xgboost react vue svelte angular django flask fastapi "
            "node.js nodejs linux ubuntu debian nixos windows macos ios android vim neovim "
            "emacs vscode helix git github gitlab jira notion obsidian slack discord figma "
            "excel aws gcp azure openai chatgpt claude ollama llama jupyter "
        )
    },
}
_SPEAKER = re.compile(
    r"^\s*(?:\[[^\]]{1,40}\]\s*|\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?\s+)?"
    r"([A-Za-z][\w .'@-]{0,40}?)\s*:\s+(.*)$",
    re.S,
)
_NON_HUMAN = {"assistant", "ai", "system", "tool", "bot", "function"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_CAPS = re.compile(r"\b[A-Z][\w'’&.-]*(?:\s+(?:of|de|la|van|von|du|da)?\s*[A-Z][\w'’&-]*)*")
_WORD = re.compile(r"[A-Za-z0-9][\w'’.+#-]*")
_MONTHS = _terms(
    "january february march april may june july august september october november december "
)
_DAYS = _terms("monday tuesday wednesday thursday friday saturday sunday")
_FILLER = {
    *_terms(
        "i i'm i've i'll i'd im ive hey hi hello thanks thank yes no yeah yep nope oh wow "
        "sure ok okay so but and or the a an this that these those it it's its my your we you "
        "he she they what when where why how who which if just also well great good nice cool "
        "awesome sounds let let's do did does is are was were have has had can could would "
        "should will not maybe please really totally definitely absolutely haha lol me our "
        "there here then now today tomorrow yesterday mr mrs ms dr by for in on at to with "
        "from as after before since once every all some any each being been glad sorry "
        "congrats congratulations hmm um uh right true agreed exactly anyway btw omg "
        "sometimes usually always never what's that's there's here's don't can't won't isn't "
        "didn't doesn't aren't wasn't his her their them us him thats whats "
    ),
    *_MONTHS,
    *_DAYS,
}
_PERSON_CUE = re.compile(
    r"\b(?:with|met|told|asked|called|named|friend|sister|brother|mom|mother|dad|father|"
    r"wife|husband|son|daughter|boss|colleague|coworker|partner|cousin|aunt|uncle)\s+$",
    re.I,
)
_ORG_WORDS = re.compile(
    r"\b(?:Inc|Corp|Corporation|Ltd|LLC|GmbH|University|College|Company|Bank|Foundation|"
    r"Institute|Group|Labs?|Agency|Hospital|School)\b"
)
_STOP_OBJECT = {"it", "that", "this", "them", "you", "him", "her", "us", "so", "to", "the"}
_CLAUSE_END = re.compile(
    r"\s*(?:[,.;:!?()]|\s(?:because|but|and|since|when|while|though|although|so|which|"
    r"as|if|for|with|on|at|in|over|instead|rather|than|more|now|anymore|too|very)\b).*$",
    re.I | re.S,
)
_ARTICLE = re.compile(r"^(?:the|a|an|my|our|some|using|to use)\s+", re.I)

_PREFER = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:really\s+|also\s+|still\s+|do\s+|just\s+)?"
    r"(?:prefer|like|love|enjoy|adore)s?\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
_NOW_PREFER = re.compile(
    r"\b(?:I|we)\s+(?:now|actually)\s+(?:prefer|like|use|want)s?\s+(?P<new>[^,.;!?]+?)\s+"
    r"(?:over|to|instead of|rather than|more than)\s+(?P<old>[^,.;!?]+)",
    re.I,
)
_SWITCHED = re.compile(
    r"\b(?:I|we)(?:'ve| have)?\s+(?:switched|moved|changed|migrated|gone)\s+from\s+"
    r"(?P<old>[^,.;!?]+?)\s+to\s+(?P<new>[^,.;!?]+)",
    re.I,
)
_NO_LONGER = re.compile(
    r"\b(?:I|we)\s+(?:no longer|don't|do not|stopped|never)\s+(?:really\s+)?"
    r"(?:like|prefer|love|enjoy|use|using|liking)s?\s+(?P<old>[^,.;!?]+?)"
    r"(?:\s+(?:anymore|any more))?\s*(?:[,.;!?]|$)",
    re.I,
)
_WORK_ON = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:currently\s+|still\s+)?(?:work|working)\s+"
    r"(?P<prep>on|at|for)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
_INTERESTED = re.compile(
    r"\b(?:I|we)(?:'m| am| are)?\s+(?:really\s+|very\s+|also\s+)?"
    r"(?:interested in|into|curious about|learning|want to learn)\s+(?P<obj>[^,.;!?]+)",
    re.I,
)
_CRITICAL = re.compile(
    r"\b(?:decided|decision|we will|we'll go with|going forward|from now on|always|never|"
    r"must|remember that|don't forget|my name is|call me|allergic|allergy|important to me|"
    r"deadline|no longer|switched|anymore)\b",
    re.I,
)
_PREFERENCE = re.compile(
    r"\b(?:prefer|favou?rite|i (?:really |also |still )?(?:like|love|hate|dislike|enjoy)|"
    r"can't stand|rather)\b",
    re.I,
)
_CONTEXT = re.compile(
    r"\b(?:i work|i'm working|i am working|i live|i moved|i'm a|i am a|i have|i've been|"
    r"i started|i'm planning|i plan|i'm going to|i am going to|i want to|i'm learning|"
    r"i'm interested|my (?:wife|husband|partner|sister|brother|kids?|children|son|daughter|"
    r"dog|cat|job|team|project|birthday|family|friend|mom|dad|mother|father|boss)|"
    r"our project|we're building|we use|i use|i'm using|i joined|i graduated|i got)\b",
    re.I,
)
_HEDGE = re.compile(
    r"\b(?:maybe|might|perhaps|probably|i think|i guess|not sure|kind of|sort of|"
    r"considering|thinking about|possibly|i suppose)\b",
    re.I,
)
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|my|me|we|our|we're)\b", re.I)
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DATE = re.compile(
    r"\b(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?\s+(?P<m1>" + "|".join(_MONTHS) + r")"
    r"|(?P<m2>" + "|".join(_MONTHS) + r")\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?)"
    r"(?:,?\s+(?P<y>\d{4}))?\b",
    re.I,
)
_RELATIVE = re.compile(
    r"\b(?P<rel>yesterday|today|tonight|this morning|this afternoon|this evening|last night|"
    r"last week|last weekend|last month|last year|(?:last|on) (?P<day>" + "|".join(_DAYS) + r"))\b",
    re.I,
)
_PAST = re.compile(
    r"\b(?:\w+ed|went|met|had|was|were|did|got|ran|saw|took|made|gave|bought|came|left|"
    r"won|lost|began|wrote|read|found|told|spent|visited|attended|finished)\b",
    re.I,
)
_BECAUSE = re.compile(r"^(?P<effect>.+?)\s*,?\s+(?:because|since|due to)\s+(?P<cause>.+)$", re.I)
_SO = re.compile(r"^(?P<cause>.+?)\s*,\s*(?:so|therefore|which is why)\s+(?P<effect>.+)$", re.I)


def _clean_object(text: str) -> str | None:
    obj = _CLAUSE_END.sub("", text.strip())
    obj = _ARTICLE.sub("", obj).strip(" '\"")
    words = obj.split()
    if not words or len(words) > 5 or words[0].lower() in _STOP_OBJECT:
        return None
    if words[0].lower() in {"to", "when", "how", "that", "being", "having", "doing"}:
        return None
    return " ".join(words)


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _has_word(sentence: str, term: str) -> bool:
    return re.search(r"(?<![\w])" + re.escape(term) + r"(?![\w])", sentence, re.I) is not None


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
        ['user: I prefer Neovim over VS Code for Rust work.']
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
            parsed.append((index, speaker, body))
        mid_caps = self._mid_sentence_caps(body for _, _, body in parsed)
        for index, speaker, body in parsed:
            when = times[index] if times and index < len(times) else None
            human = speaker is not None and speaker.lower() not in _NON_HUMAN
            who = None
            if human and speaker is not None:
                who = "User" if speaker.lower() in {"user", "human", "me"} else speaker
                found.add(who, "person", 0.9, 0.5)
            for sentence in _sentences(body):
                names = self._entities(sentence, found, mid_caps)
                relations.extend(self._cooccurrence(names, found, sentence))
                if who is None:
                    continue
                relations.extend(self._patterns(who, sentence, found))
                fact = self._fact(speaker or who, sentence, names, found, index)
                if fact is not None:
                    facts.append(fact)
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

    def _patterns(self, who: str, sentence: str, found: _Found) -> list[ExtractedRelation]:
        rels: list[ExtractedRelation] = []
        evidence = sentence[:200]
        hedged = _HEDGE.search(sentence) is not None
        conf = 0.45 if hedged else 0.8

        def obj(name: str | None, etype: str = "concept") -> str | None:
            if not name:
                return None
            known = self.vocabulary.get(name.lower())
            key = found.add(name, known or etype, conf, 0.5)
            return found.by_key[key].name if key else None

        m = _NOW_PREFER.search(sentence)
        s = _SWITCHED.search(sentence) if m is None else None
        if m is not None or s is not None:
            hit = m if m is not None else s
            assert hit is not None
            new, old = obj(_clean_object(hit.group("new"))), _clean_object(hit.group("old"))
            if new and old:
                rels.append(
                    ExtractedRelation(
                        source=who,
                        type="prefers",
                        target=new,
                        supersedes=old,
                        evidence=evidence,
                        confidence=conf,
                    )
                )
            return rels
        m = _NO_LONGER.search(sentence)
        if m is not None:
            old = _clean_object(m.group("old"))
            if old:
                rels.append(
                    ExtractedRelation(
                        source=who,
                        type="prefers",
                        target=old,
                        supersedes=old,
                        evidence=evidence,
                        confidence=conf,
                    )
                )
            return rels
        for pattern, rtype in ((_PREFER, "prefers"), (_INTERESTED, "interested_in")):
            m = pattern.search(sentence)
            if m is not None:
                target = obj(_clean_object(m.group("obj")), "topic")
                if target:
                    rels.append(
                        ExtractedRelation(
                            source=who,
                            type=rtype,
                            target=target,
                            evidence=evidence,
                            confidence=conf,
                        )
                    )
        m = _WORK_ON.search(sentence)
        if m is not None:
            etype = "project" if m.group("prep").lower() == "on" else "organization"
            target = obj(_clean_object(m.group("obj")), etype)
            if target:
                rtype = "works_on" if m.group("prep").lower() == "on" else "part_of"
                rels.append(
                    ExtractedRelation(
                        source=who, type=rtype, target=target, evidence=evidence, confidence=conf
                    )
                )
        return rels

    # -- facts, events, causes -------------------------------------------------------------
    @staticmethod
    def _fact(
        speaker: str, sentence: str, keys: list[str], found: _Found, index: int
    ) -> ExtractedFact | None:
        if sentence.endswith("?") or len(sentence.split()) < 3:
            return None
        if not _FIRST_PERSON.search(sentence):
            return None
        if _CRITICAL.search(sentence):
            importance = 0.9
        elif _PREFERENCE.search(sentence):
            importance = 0.8
        elif _CONTEXT.search(sentence):
            importance = 0.55
        else:
            return None
        confidence = 0.45 if _HEDGE.search(sentence) else 0.8
        return ExtractedFact(
            content=f"{speaker}: {sentence}",
            importance=importance,
            confidence=confidence,
            entities=[found.by_key[k].name for k in keys],
            source_index=index,
        )

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
