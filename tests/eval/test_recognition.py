"""Recognition readings (``explorer/eval/recognition.py``): consistent with each other, read through the evaluation's one
scoring loop, and written by the recognition command."""

import json

import numpy as np
import pytest

from explorer import world
from explorer.eval import recognition


def test_readings_are_consistent_with_each_other(embedded):
    found = recognition.readings(embedded, limit=40, probe_limit=120)
    assert found["n"] == 40 and found["probe_n"] == 120
    assert abs(found["errors"] - (100 - found["full"]) * 40 / 100) < 1e-6
    assert 0 <= found["errors_keep_colour"] <= found["errors"]
    assert found["among_heldout"] >= found["full"]  # taking the seen captions away can only help
    assert found["probe_colour"] >= 90  # the embedded model carries the colour of every object
    again = _recomputed(embedded, 40, 120)
    for key, value in again.items():
        assert found[key] == pytest.approx(value, abs=1e-6), key


def test_top1_readings_go_through_the_evaluations_loop(embedded):
    """``full`` is the world-single figure of the same items (one loop, one rule); a grey picture is the scene's."""
    from explorer.eval.accuracy import evaluate
    from explorer.methods import get_method

    found = recognition.readings(embedded, limit=40, probe_limit=60)
    single = evaluate([get_method("global", embedded)], "world-single", 40, ["heldout"])["global"]["heldout"]
    assert found["full"] == pytest.approx(single["single"]["top1"], abs=1e-6) and found["n"] == single["single"]["n"]
    scene = world.single_items("heldout", 1)[0].images[0]
    assert recognition.Grey(scene).render(64).tobytes() == scene.render(64).convert("L").convert("RGB").tobytes()


def _recomputed(encoder, limit, probe_limit):
    """The shape and probe readings from their definitions: shape captions' top-1 on each held-out picture and on
    its black-and-white copy; logistic probes fitted on seen objects' pictures, read on the held-out ones."""
    from sklearn.linear_model import LogisticRegression

    held, seen = world.single_items("heldout", limit), world.single_items("id", probe_limit)
    colour = [list(world.COLORS).index(it.images[0].objects[0].color) for it in held + seen]
    shape = [world.SHAPES.index(it.images[0].objects[0].shape) for it in held + seen]
    pictures = [it.images[0].render(encoder.image_size) for it in held]
    x = encoder.embed_images(pictures).numpy()
    grey = encoder.embed_images([p.convert("L").convert("RGB") for p in pictures]).numpy()
    train = encoder.embed_images([it.images[0].render(encoder.image_size) for it in seen]).numpy()
    t = encoder.embed_texts([f"{world.article(s)} {s}" for s in world.SHAPES]).numpy()
    out = {"shape_only": 100 * np.mean((x @ t.T).argmax(1) == shape[:limit]),
           "shape_only_grey": 100 * np.mean((grey @ t.T).argmax(1) == shape[:limit])}
    for name, labels in (("probe_shape", shape), ("probe_colour", colour)):
        clf = LogisticRegression(max_iter=3000, C=10.0).fit(train, labels[limit:])
        out[name] = 100 * np.mean(clf.predict(x) == labels[:limit])
    return out


def test_recognition_command_writes_its_readings(tmp_path, capsys):
    from explorer.cli import main

    path = tmp_path / "r.json"
    assert main(["recognition", "--limit", "16", "--probe-limit", "60", "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["model"].startswith("world-clip") and report["readings"]["n"] == 16
    assert json.loads(capsys.readouterr().out) == report
