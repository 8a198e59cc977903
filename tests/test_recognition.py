import json

import numpy as np
import pytest

from explorer import recognition, world


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


def _recomputed(encoder, limit, probe_limit):
    """The shape and probe readings from their definitions: shape captions' top-1 on each held-out picture and on
    its black-and-white copy; logistic probes fitted on seen objects' pictures, read on the held-out ones."""
    from sklearn.linear_model import LogisticRegression

    held, seen = world.single_items("heldout", limit), world.single_items("id", probe_limit)
    colour = [list(world.COLORS).index(it.image.objects[0].color) for it in held + seen]
    shape = [world.SHAPES.index(it.image.objects[0].shape) for it in held + seen]
    pictures = [it.image.render(encoder.image_size) for it in held]
    x = encoder.embed_images(pictures).numpy()
    grey = encoder.embed_images([p.convert("L").convert("RGB") for p in pictures]).numpy()
    train = encoder.embed_images([it.image.render(encoder.image_size) for it in seen]).numpy()
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
