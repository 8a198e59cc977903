"""spaCy's token vectors through torch (explorer.language.tok2vec): the same vectors and parses as spaCy's own layers."""

import numpy as np
import pytest
import spacy

from explorer import world
from explorer.language import text
from explorer.language.tok2vec import FastTok2Vec, accelerate

CAPTIONS = [c for item in world.swap_items("heldout", "attribute", 20) for c in item.captions] + [
    "Two men, one in a red shirt, are playing chess under a tree.",
    "A BLACK DOG and a WHITE CAT!!",
    "the man riding a brown horse to the left of a 3-storey building",
    "dog",
    "",
    "   ",
]


@pytest.fixture(scope="module")
def plain():
    """The same English pipeline, on spaCy's own layers."""
    return spacy.load(text.nlp().path, exclude=["ner", "lemmatizer"])


def test_the_explorers_pipeline_runs_the_torch_tok2vec():
    assert isinstance(text.nlp().get_pipe("tok2vec").predict, FastTok2Vec)


def test_token_vectors_equal_spacys_alone_and_in_a_batch(plain):
    pipe = plain.get_pipe("tok2vec")
    assert not isinstance(pipe.predict, FastTok2Vec)
    fast = FastTok2Vec(pipe.model)
    docs = [plain.make_doc(c) for c in CAPTIONS]
    for got, ref in zip(fast(docs), pipe.predict(docs)):
        assert got.shape == ref.shape and got.dtype == ref.dtype == np.float32
        np.testing.assert_allclose(got, ref, atol=1e-5)
    for doc in docs:
        np.testing.assert_allclose(fast([doc])[0], pipe.predict([doc])[0], atol=1e-5)
    assert [v.shape for v in fast([plain.make_doc(""), plain.make_doc("")])] == [(0, 96), (0, 96)]


def test_parses_equal_spacys(plain):
    for caption in CAPTIONS:
        ours, theirs = text.nlp()(caption), plain(caption)
        assert [(t.text, t.tag_, t.pos_, t.dep_, t.head.i) for t in ours] == \
               [(t.text, t.tag_, t.pos_, t.dep_, t.head.i) for t in theirs], caption


def blank_with_tok2vec(encode: dict, attrs=("NORM", "SHAPE")) -> spacy.language.Language:
    """A blank English pipeline whose only component is a freshly initialized tok2vec with this encoder."""
    nlp = spacy.blank("en")
    nlp.add_pipe("tok2vec", config={"model": {
        "@architectures": "spacy.Tok2Vec.v2",
        "embed": {"@architectures": "spacy.MultiHashEmbed.v2", "width": 32, "attrs": list(attrs),
                  "rows": [200] * len(attrs), "include_static_vectors": False},
        "encode": {"width": 32, "depth": 2, **encode},
    }})
    nlp.initialize()
    return nlp


@pytest.mark.parametrize("window", [1, 2])
def test_other_widths_windows_and_attributes_fit(window):
    nlp = blank_with_tok2vec({"@architectures": "spacy.MaxoutWindowEncoder.v2", "window_size": window,
                              "maxout_pieces": 2})
    pipe = nlp.get_pipe("tok2vec")
    own = pipe.predict
    assert accelerate(nlp) and pipe.predict is not own
    for caption in CAPTIONS[-6:]:
        doc = nlp.make_doc(caption)
        np.testing.assert_allclose(pipe.predict([doc])[0], own([doc])[0], atol=1e-5)


def test_an_encoder_it_does_not_read_keeps_spacys_layers():
    nlp = blank_with_tok2vec({"@architectures": "spacy.MishWindowEncoder.v2", "window_size": 1})
    own = nlp.get_pipe("tok2vec").predict
    assert not accelerate(nlp)
    assert nlp.get_pipe("tok2vec").predict == own
    with pytest.raises(ValueError, match="not a MultiHashEmbed"):
        FastTok2Vec(nlp.get_pipe("tok2vec").model)
    assert not accelerate(spacy.blank("en"))  # no tok2vec at all
