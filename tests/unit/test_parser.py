"""The statement parser's part-of-speech table reads every token as the released ruler does."""

from __future__ import annotations

import pytest
import spacy

from langgraph_prax_memory.facts import _parser as parser
from langgraph_prax_memory.facts import training_statements

#: Edge cases of the ruler's exceptions: an existential "there", "but" as an adverb, a
#: pronoun tagged as a noun, clipped negations, spaces, auxiliaries as main verbs.
_EDGES = [
    "There is a cat in the garden.",
    "there're two of them",
    "I but asked her",
    "Something  odd happened  to it.",
    "I've nothin' y'know",
    "Is it?",
    "That is what that is.",
    "He did do it and I'd had it.",
    "She has a dog that has three legs.",
    "   ",
]


def test_the_table_sets_what_the_released_ruler_sets() -> None:
    """Fails when the table reads one token's part of speech, tag or dependency otherwise."""
    texts = [t for _, t in training_statements()] + _EDGES
    ours = parser.parsed(texts)
    assert ours is not None
    released = spacy.load(parser._data_dir(), exclude=["ner", "lemmatizer", "senter"])
    assert "attribute_ruler" in released.pipe_names
    assert "attribute_ruler" not in parser._parser().pipe_names  # the table runs instead
    differ = [
        (doc.text, a.text, a.pos_, b.pos_)
        for doc, mine in zip(released.pipe(texts), ours, strict=True)
        for a, b in zip(doc, mine, strict=True)
        if (a.pos_, a.tag_, a.dep_, a.head.i) != (b.pos_, b.tag_, b.dep_, b.head.i)
    ]
    assert differ == []
    assert sum(len(d) for d in ours) > 7000  # every statement read, not a handful


def test_a_pattern_the_table_cannot_read_is_refused() -> None:
    with pytest.raises(ValueError, match="MORPH"):
        parser.PosRules([{"patterns": [[{"MORPH": "Tense=Past"}]], "attrs": {"POS": "VERB"}}])
    with pytest.raises(ValueError, match="FUZZY"):
        parser.PosRules([{"patterns": [[{"LOWER": {"FUZZY": "cat"}}]], "attrs": {"POS": "NOUN"}}])
    with pytest.raises(ValueError, match="not read"):  # two operators on one attribute
        parser.PosRules(
            [{"patterns": [[{"TAG": {"IN": ["NN"], "NOT_IN": ["NNS"]}}]], "attrs": {"POS": "X"}}]
        )
