"""Who a statement or a question is about: names, as a person writes them (pure functions).

A name is a capitalised word that is not a function word (those the keyword tokenizer drops:
"The", "What") and not one of the words a memory about its own person opens with ("User",
"I"). A memory's *subject* is the name it opens with; a question's names are those that do not
open a sentence (an imperative or a question word does).
"""

from __future__ import annotations

import re

from langgraph_prax_memory.embeddings import tokenize

__all__ = ["query_names", "question_names", "subject_of", "without_speaker"]

#: A conversation turn's speaker label ("Caroline: ...", "user: ...").
_SPEAKER = re.compile(r"^\s*[^\W\d_][\w .'\u2019-]{0,39}:\s+")


def without_speaker(text: str) -> str:
    """``text`` without the speaker label a conversation turn opens with.

    Example:
        >>> without_speaker("Melanie: How was it?")
        'How was it?'
    """
    return _SPEAKER.sub("", text, count=1)


# words that start a sentence without naming anyone: the function words (stop words), the
# deictic time words, the generic subjects of memories, and the first person
_NOT_NAMES = frozenset(
    {
        "user",
        "users",
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "yesterday",
        "today",
        "tomorrow",
        "tonight",
        "last",
        "next",
        "every",
        "recently",
        "earlier",
        "later",
        "now",
        "please",
    }
)
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "i'm"})
_TOKEN = re.compile(r"[^\W\d_][\w'\u2019-]*|[.!?;:,]", re.UNICODE)


def _is_name(word: str) -> bool:
    bare = word.replace("\u2019", "'").removesuffix("'s").removesuffix("'")
    return (
        bool(bare)
        and bare[0].isupper()
        and bare.casefold() not in _NOT_NAMES
        and bool(tokenize(bare))  # a stop word ("The", "What") names no one
    )


def _bare(word: str) -> str:
    return word.replace("\u2019", "'").removesuffix("'s").removesuffix("'").casefold()


def subject_of(content: str) -> str | None:
    """The name a memory is about when it starts with one ("Noah is..." → ``"noah"``).

    ``None`` for a memory about the user ("User ...", "I ..."), one that starts with a
    function word ("The", "Yesterday", "My"), or a conversation turn ("Caroline: I went
    ..."): a speaker's label is who said it, not what it is about.

    Example:
        >>> subject_of("Noah is allergic to pollen."), subject_of("Alice's dog is called Rex.")
        ('noah', 'alice')
        >>> subject_of("User is allergic to peanuts."), subject_of("Yesterday Bo left.")
        (None, None)
        >>> subject_of("Caroline: I went to the support group.") is None
        True
    """
    if _SPEAKER.match(content):
        return None
    words = _TOKEN.findall(content.strip())
    if not words or not _is_name(words[0]):
        return None
    return _bare(words[0])


def question_names(text: str) -> tuple[set[str], bool]:
    """Names the question mentions (case-folded), and whether it speaks in the first person.

    Example:
        >>> question_names("Where does my sister Ana live?")
        ({'ana'}, True)
    """
    first_person = any(_bare(w) in _FIRST_PERSON for w in _TOKEN.findall(text))
    return {n.casefold() for n in query_names(text)}, first_person


def query_names(text: str) -> list[str]:
    """The names a question mentions, as written (capitalised words not opening a sentence).

    A sentence's first word is an imperative or a question word more often than a name.

    Example:
        >>> query_names("What is Alice allergic to? Ask Bob.")
        ['Alice', 'Bob']
    """
    out: list[str] = []
    opening = True
    for word in _TOKEN.findall(text):
        if word in ".!?":
            opening = True
            continue
        if word in ";:,":
            continue
        if not opening and _is_name(word):
            out.append(word.replace("\u2019", "'").removesuffix("'s").removesuffix("'"))
        opening = False
    return out
