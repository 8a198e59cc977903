"""Where the embedded model's seed stands among its recipe's seeds: the record's figures are its reports', and the card
and the page say it in words that follow the figures."""

import json
import runpy
from pathlib import Path

import pytest

from explorer.models import checkpoints, seed_standing

ROOT = Path(__file__).parents[2]


def _seed(heldout: float, top1: float) -> dict:
    return {"attribute_group": {"id": {"value": heldout + 5, "ci": [0, 100]},
                                "heldout": {"value": heldout, "ci": [0, 100]}},
            "choice_top1": {"value": top1, "ci": [0, 100]}, "reports": []}


def test_the_shipped_record_holds_its_reports_figures():
    origin, found = seed_standing.origin_seeds(checkpoints.EMBEDDED.record)
    again = seed_standing.standing({s: tuple(ROOT / p for p in entry["reports"]) for s, entry in found.items()})

    def figures(standing: dict) -> dict:
        return {s: {k: v for k, v in entry.items() if k != "reports"} for s, entry in standing.items()}

    assert figures(again) == figures(found)
    assert str(origin["config"]["seed"]) in found and len(found) == 3


def test_the_words_follow_the_figures():
    worst = {"0": _seed(38, 92.8), "1": _seed(3, 95.8), "2": _seed(29, 94.8)}
    said = seed_standing.sentence(worst, 1)
    assert "seed 1's global cosine binds attribute swaps worst: group score 3 [0, 100]" in said
    assert "38 (seed 0) and 29 (seed 2)" in said and "95.8 [0, 100] against 92.8 (seed 0) and 94.8 (seed 2)" in said
    assert "binds attribute swaps best" in seed_standing.sentence(worst, 0)
    assert "neither best nor worst" in seed_standing.sentence(worst, 2)


def test_the_card_and_the_page_say_where_the_shipped_seed_stands(embedded):
    from explorer.engine import Engine
    from explorer.ui.app import build_app

    record = checkpoints.EMBEDDED.record
    assert seed_standing.section(record) in checkpoints.EMBEDDED.card.read_text()
    assert "binds attribute swaps worst" in seed_standing.section(record)  # the shipped seed's standing, as recorded
    demo = build_app(Engine(embedded))
    shown = [block.value for block in demo.blocks.values() if type(block).__name__ == "Markdown"]
    assert any(seed_standing.brief(record) in (text or "") for text in shown)
    assert seed_standing.section({"config": {}}) == seed_standing.brief({"config": {}}) == ""  # a record naming none


def test_record_seeds_refuses_what_it_cannot_read(tmp_path):
    script = runpy.run_path(str(ROOT / "scripts" / "record_seeds.py"), run_name="record_seeds")
    record = tmp_path / "r.json"
    record.write_text(json.dumps({"config": {}, "lineage": [{"config": {"seed": 1}}]}))
    with pytest.raises(SystemExit, match="SEED=SWAPS_REPORT,SINGLE_REPORT"):
        script["main"]([str(record), "1=only-one.json"])
    with pytest.raises(SystemExit, match="starts from seed 1, which is not among"):
        script["main"]([str(record), "0=a.json,b.json"])
    assert json.loads(record.read_text()) == {"config": {}, "lineage": [{"config": {"seed": 1}}]}  # nothing lost
