"""Region proposals (``explorer/methods/proposals.py``): SGI and PowerCLIP share one segmentation made beside the towers, new
captions bring their methods' texts in one batch, and the cores are given back."""

import threading

import numpy as np
import pytest

from explorer import world
from explorer.core import image_state
from explorer.language.prompts import prompts_of
from explorer.methods import get_method, proposals
from explorer.methods.powerclip.method import node_texts


@pytest.mark.parametrize("spare", [True, False], ids=["core to spare", "every core busy"])
def test_sgi_and_powerset_share_one_segmentation_made_on_the_worker(monkeypatch, spare):
    from explorer.models.encoders import DualEncoder

    monkeypatch.setattr(proposals, "core_to_spare", lambda device: spare)
    embedded = DualEncoder()
    calls = []
    segment = proposals.segment_regions

    def counted(image, **kw):
        calls.append(threading.current_thread().name)
        return segment(image, **kw)

    monkeypatch.setattr(proposals, "segment_regions", counted)
    sgi = get_method("sgi", embedded, proposals="crops+segments")
    powerset = get_method("powerclip", embedded)
    image = world.random_scene(np.random.default_rng(77 + spare), world.seen_combos(), 3).render(embedded.image_size)
    state = image_state.of(image)
    proposals.start_ahead([state], [*sgi.proposers(), *powerset.proposers()], embedded.device)
    started = state.started(proposals.segmentation()[0])  # with a core to spare, before the features
    assert started == spare
    sgi_segments = [r.box for r in sgi.regions(state) if r.source == "segment"]
    powerset_segments = [r.box for r in powerset.regions(image)]  # the same state, found by the image's content
    assert len(calls) == 1 and calls[0].startswith("proposals")
    assert sgi_segments and sorted(sgi_segments) == sorted(powerset_segments)


def test_new_captions_bring_their_methods_texts_in_one_batch(monkeypatch):
    from explorer.models.encoders import DualEncoder

    embedded = DualEncoder()  # its own text cache: the session's encoder may have seen some of these texts
    get_method("sgi", embedded), get_method("powerclip", embedded)
    from explorer.models import encoders

    batches = []
    forward = encoders.short_text_forward  # the text tower's forward (to the batch's longest caption)
    monkeypatch.setattr(encoders, "short_text_forward", lambda model, ids: batches.append(len(ids)) or forward(model, ids))
    caption = "a green star above a small grey square"
    companions = prompts_of([caption]) + node_texts([caption])  # SGI's segment prompts, PowerCLIP's tree nodes
    embedded.encode_texts([caption])
    assert batches == [len({caption, *companions})]
    embedded.encode_texts(companions, companions=False)
    assert len(batches) == 1  # they were all encoded with the caption


def test_an_analysis_segments_beside_its_first_stages_on_one_thread_then_gives_the_cores_back(monkeypatch):
    """No core to spare (torch's threads take them all): a page analysis starts the new image's segmentation at once,
    runs its own first stages on one torch thread meanwhile, and runs the SGI views' tower on every thread once the
    segmentation is done."""
    import time

    import torch

    from explorer.engine import Engine
    from explorer.models.encoders import DualEncoder

    monkeypatch.setattr(proposals, "core_to_spare", lambda device: False)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        seen: dict[str, object] = {}
        segment = proposals.segment_regions

        def slow_segmentation(image, **kw):
            seen["segmentation on"] = threading.current_thread().name
            time.sleep(0.3)  # still running while the analysis encodes its captions
            seen["segmentation done"] = time.perf_counter()
            return segment(image, **kw)

        monkeypatch.setattr(proposals, "segment_regions", slow_segmentation)
        image_state.forget()  # an earlier test's segmentation of the same scene
        engine = Engine(DualEncoder())
        encoder = engine.encoder
        texts, views = encoder.encode_texts, encoder.embed_pixels
        monkeypatch.setattr(encoder, "encode_texts", lambda *a, **kw: seen.setdefault(
            "text threads", torch.get_num_threads()) and texts(*a, **kw))
        monkeypatch.setattr(encoder, "embed_pixels", lambda *a, **kw: seen.setdefault(
            "views", (torch.get_num_threads(), time.perf_counter())) and views(*a, **kw))
        item = world.swap_items("heldout", "attribute", 1)[0]
        analysis = engine.analyze(item.images[0].render(encoder.image_size), *item.captions)
        assert set(analysis.scores) == {"global", "sgi", "tflocal", "powerclip"}
        assert str(seen["segmentation on"]).startswith("proposals")
        assert seen["text threads"] == 1  # beside the segmentation
        view_threads, views_at = seen["views"]
        assert view_threads == 2 and views_at > seen["segmentation done"]
        assert torch.get_num_threads() == 2  # given back
        encoder.encode_image(world.random_scene(np.random.default_rng(5), world.seen_combos(), 2).render(128))
        assert torch.get_num_threads() == 2  # outside an analysis a new image takes no core
    finally:
        torch.set_num_threads(threads)


def test_a_request_waiting_on_proposals_another_gave_up_gets_them_made_for_itself():
    """Two analyzes of one image: the first queues its segmentation and is given up before the worker reaches it;
    the second, already waiting on that work, has it queued afresh for itself instead of stopping as if given up."""
    import contextvars

    from explorer.core import cancel

    state = image_state.of(world.swap_items("id", "attribute", 1)[0].images[0].render(64))
    made = []
    proposer = ("test-segments", lambda image: made.append(image.size) or [])
    worker_busy, release = threading.Event(), threading.Event()
    proposals._POOL.submit(lambda: worker_busy.set() or release.wait(10))  # the worker on another image meanwhile
    worker_busy.wait(10)
    given_up = threading.Event()
    first = contextvars.copy_context()
    first.run(cancel.bind, given_up)
    first.run(proposals.begin, state, proposer)  # queued by the first request
    given_up.set()
    found = []
    second = threading.Thread(target=lambda: found.append(proposals.regions(state, proposer)))
    second.start()  # waits on the first request's queued work
    release.set()
    second.join(10)
    assert found == [[]] and made == [(64, 64)]  # made once, for the second request
