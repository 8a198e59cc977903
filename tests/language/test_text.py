"""Caption parsing (``explorer/language/text.py``): segments of objects and relations, the fallback to the whole caption, and the
swaps the page proposes."""

import pytest

from explorer.language.text import articles_agreeing, propose_swap, propose_swaps, segments

SEGMENT_CASES = [
    ("a black dog and a white cat", ["black dog", "white cat"], []),
    ("a large red square and a small blue circle", ["large red square", "small blue circle"], []),
    ("a red square to the left of a blue circle", ["red square", "blue circle"], ["square to left of circle"]),
    ("A dog on a sofa.", ["dog", "sofa"], ["dog on sofa"]),
    ("a red square above an orange circle", ["red square", "orange circle"], ["square above circle"]),
    ("the man riding a brown horse", ["man", "brown horse"], ["man riding horse"]),
    ("A BLACK DOG and a WHITE CAT!!", ["BLACK DOG", "WHITE CAT"], []),
    ("a dog", ["dog"], []),
]


@pytest.mark.parametrize("caption, objects, relations", SEGMENT_CASES)
def test_segments(caption, objects, relations):
    segs = segments(caption)
    assert [s.text for s in segs if s.kind == "object"] == objects
    assert [s.text for s in segs if s.kind == "relation"] == relations
    for s in segs:
        start, end = s.chars
        assert caption[start:end].split()[-1].strip("!.") in s.text.split()[-1]


@pytest.mark.parametrize("caption", ["red", "  !!  ", "quickly and slowly"])
def test_captions_without_a_noun_fall_back_to_the_whole_caption(caption):
    segs = segments(caption)
    assert len(segs) == 1 and segs[0].kind == "caption" and segs[0].text == caption


SWAP_CASES = [
    ("a black dog and a white cat", "attribute", "a white dog and a black cat"),
    ("A Black Dog and a White Cat!", "attribute", "A White Dog and a Black Cat!"),
    ("a red square above an orange circle", "attribute", "an orange square above a red circle"),
    ("a dog on a sofa", "relation", "a sofa on a dog"),
    ("a dog and a cat", "object", "a cat and a dog"),
]


@pytest.mark.parametrize("caption, kind, expected", SWAP_CASES)
def test_swap_for_me(caption, kind, expected):
    swap = propose_swap(caption)
    assert swap is not None and swap.kind == kind and swap.caption == expected


def test_all_swaps_of_a_relation_caption():
    swaps = {(s.kind, s.caption) for s in propose_swaps("a large red square to the left of a small blue circle")}
    assert ("attribute", "a large blue square to the left of a small red circle") in swaps
    assert ("attribute", "a small red square to the left of a large blue circle") in swaps
    assert ("object", "a large red circle to the left of a small blue square") in swaps
    assert ("relation", "a small blue circle to the left of a large red square") in swaps


CAPITALS_KEPT = [  # each word keeps the user's capitals; only the sentence's own capital stays at the opening
    ("a red BMW and a blue Audi", "object", "a red Audi and a blue BMW"),
    ("A RED square and a blue circle", "attribute", "A blue square and a RED circle"),
    ("Red square above a blue circle", "attribute", "Blue square above a red circle"),
    ("Dog on a sofa", "relation", "Sofa on a dog"),
    ("Mario on a horse", "relation", "Horse on a Mario"),
]


@pytest.mark.parametrize("caption, kind, expected", CAPITALS_KEPT)
def test_a_swap_keeps_the_users_capitals(caption, kind, expected):
    assert (kind, expected) in {(s.kind, s.caption) for s in propose_swaps(caption)}


@pytest.mark.parametrize("caption", ["a red square", "A red square", "A Red Square", "a blue circle"])
def test_one_object_with_its_attribute_has_no_swap(caption):
    """spaCy tags "red" a proper noun in "a red square": it modifies the square, and is no second object to swap
    with it ("a square red" was proposed)."""
    assert propose_swaps(caption) == []


@pytest.mark.parametrize("caption", ["a dog", "red", "two red dogs", ""])
def test_nothing_to_swap_gives_none(caption):
    assert propose_swap(caption) is None


def test_articles_agree_with_the_word_after_them():
    assert articles_agreeing(["An", "star", "by", "a", "orange", "cube"]) == ["A", "star", "by", "an", "orange", "cube"]
    assert articles_agreeing(["an", "apple", "and", "a"]) == ["an", "apple", "and", "a"]  # a last article stays
