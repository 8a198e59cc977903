"""eval --interactions: the interactions' binding reading (explorer/explain/interaction_binding.py), method-independent,
in eval's report on the world, on eval's splits and every kind; refused where it cannot be read."""

import json

import pytest

from explorer import world
from explorer.cli import main
from explorer.core import settings
from explorer.explain import interaction_binding
from explorer.images.fit import VIEWS


def test_eval_adds_the_reading_on_its_splits_and_every_kind(tmp_path, monkeypatch, embedded):
    asked = []

    def reading(encoder, splits, kinds, limit, command=""):
        asked.append((encoder.label, list(splits), list(kinds), limit, command))
        return {"results": {"model": {}, "null": {}}, "limit": limit}

    monkeypatch.setattr(interaction_binding, "binding_report", reading)
    out = tmp_path / "r.json"
    assert main(["eval", "--methods", "global", "--split", "id,style", "--limit", "1", "--interactions", "2",
                 "--json", str(out)]) == 0
    assert asked == [("world-clip (embedded)", ["id", "style"], list(world.KINDS), 2,
                      asked[0][4])] and "--interactions 2" in asked[0][4]
    report = json.loads(out.read_text())
    assert report["interactions"]["limit"] == 2 and set(report["results"]["global"]) == {"id", "style"}


@pytest.mark.parametrize("extra", [["--benchmark", "world-single"], ["--interactions", "0"]])
def test_the_reading_is_refused_off_the_worlds_swaps_or_on_no_items(extra):
    args = ["eval", "--limit", "1", *extra] + ([] if "--interactions" in extra else ["--interactions", "1"])
    with pytest.raises(SystemExit, match="--interactions N reads"):
        main(args)
    assert settings.current().view in VIEWS  # a refused run leaves this process a view to read pictures in
