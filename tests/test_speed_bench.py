"""The performance harness's own checks: both SGI paths agree; the NLAs match what they compute."""

import pytest

from explorer import speed_bench as bench


def test_sgi_paths_agree_and_repeated_views_are_encoded_once(embedded, monkeypatch):
    from explorer.methods.sgi import StructureGuided

    item = bench.bench_items(1)[0]
    image, captions = item.images[0].render(128), list(item.captions)
    figures = bench._sgi_speed(embedded, image, captions, "sgi", repeat=1)
    assert figures["sgi.max_abs_score_gap_naive_vs_batched"] < 1e-5
    # the published multi-scale grid's 88 crops, and one window fitting each of the scene's objects on its plain
    # background
    assert figures["sgi.crops"] == 88 + len(item.images[0].objects)
    assert figures["sgi.distinct_views"] < figures["sgi.crops"]
    batches = []  # counted, not timed: the speed-ups are the bench's figures, measured side by side there
    embed = embedded.embed_pixels
    monkeypatch.setattr(embedded, "embed_pixels", lambda views, *a, **k: batches.append(len(views)) or embed(views, *a, **k))
    sgi = StructureGuided(embedded)
    sgi.score(image, captions)
    sgi.score(image, [captions[0], "a caption edited on the page"])
    assert batches == [figures["sgi.distinct_views"]]  # one batch of the distinct views; re-scoring encodes none


def test_powerset_figures_match_enumeration(embedded):
    figures = bench.powerset_figures(embedded, n=4, m=6, big_m=16)
    assert figures["powerset.nla_max_abs_error_m6"] < 1e-5  # NLA-max and NLA-soft are exact identities
    assert figures["powerset.nla_r2t_max_bracket_m6"] >= 0 and figures["powerset.surrogate_gap_m6"] >= 0
    assert figures["powerset.nla_ms_m16"] > 0 and figures["powerset.nla_speedup_m6"] > 0


def test_tflocal_time_per_pair_is_the_rescore_path_on_cached_features(embedded, monkeypatch):
    """The figure stands for the page's re-score after a caption edit: it must time the alignment model alone, with
    both towers' features taken from the encoder's cache, over every pair."""
    from explorer.methods.tflocal import TFLocal

    forwards, pairs = [], []
    embedded.encode_images([it.images[0].render(embedded.image_size) for it in bench.bench_items(2)])
    for tower in ("_encode_image_batch", "_encode_text_batch"):
        own = getattr(embedded, tower)
        monkeypatch.setattr(embedded, tower, lambda batch, own=own, tower=tower: forwards.extend(
            (tower, x) for x in batch) or own(batch))
    score_new = TFLocal.score_new
    monkeypatch.setattr(TFLocal, "score_new", lambda self, state, caps: pairs.append(len(caps)) or score_new(self, state, caps))
    figures = bench.tflocal_figures(embedded, n=2)
    captions = [c for it in bench.bench_items(2) for c in it.captions]
    assert not [x for tower, x in forwards if tower == "_encode_image_batch"]  # the images came from the cache
    encoded = [x for _, x in forwards if x in captions]  # none where an earlier test encoded them: the cache holds them
    assert len(encoded) == len(set(encoded))  # at most once each, before timing: never inside the timed runs
    assert sum(pairs) == 2 * 2 * 3 and figures["tflocal.ms_per_pair"] > 0  # 2 items x 2 captions, best of 3 runs


def test_parse_figures_time_spacys_layers_beside_the_pages(monkeypatch):
    from explorer.language import text
    from explorer.language.tok2vec import FastTok2Vec

    pipe = text.nlp().get_pipe("tok2vec")
    assert isinstance(pipe.predict, FastTok2Vec)  # the page's side is the torch forward, spaCy's side its own
    calls = []
    own = type(pipe).predict
    monkeypatch.setattr(type(pipe), "predict", lambda self, docs: calls.append(len(docs)) or own(self, docs))
    figures = bench.parse_figures(n=3, repeat=1)
    assert calls == [1, 1, 1]  # spaCy's side: each of the 3 captions once
    assert figures["parse.tok2vec_ms.spacy"] > 0 and figures["parse.tok2vec_ms.page"] > 0 and figures["parse.ms"] > 0


def test_timed_analyses_meet_captions_not_seen_before():
    items = bench.fresh_items(25)
    texts = [t for item in items for t in (*item.captions, item.captions[1] + bench.EDIT)]
    assert len(items) == 25 and len(texts) == len(set(texts))


def test_each_timed_run_segments_its_images_anew(embedded, monkeypatch):
    from explorer.methods import proposals

    calls = []
    segment = proposals.segment_regions
    monkeypatch.setattr(proposals, "segment_regions", lambda image, **kw: calls.append(1) or segment(image, **kw))
    bench.analysis_figures(embedded, "first", runs=1)
    first = len(calls)
    bench.analysis_figures(embedded, "again", runs=1)  # the same images: as the fp32 run after the page's
    assert first == 1 + bench.WARM_UP_ANALYSES and len(calls) == 2 * first


def test_explain_figures_time_every_explainer_of_the_tower_against_its_forward(embedded):
    from explorer.explain import explainers_for

    figures = bench.explain_figures(embedded, "embedded", n=1, repeat=1)
    names = explainers_for(embedded.model)
    assert sorted(names) == ["grad-eclip", "legrad", "rollout"]  # the embedded tower is a ViT: no Grad-CAM
    forward = figures["explain.forward_ms.embedded"]
    for name in names:
        ms, ratio = figures[f"explain.{name}_ms.embedded"], figures[f"explain.{name}_over_forward.embedded"]
        assert ratio == pytest.approx(ms / forward, rel=0.02, abs=0.01)
        assert ratio > 1  # a backward pass over the caption and its segments costs more than one forward
