"""The heads' benchmark reading (shares beside their null, the ablation's group scores) and its command, on the
embedded model."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer import world
from explorer.cli import main
from explorer.eval import head_bench
from explorer.eval.accuracy import outcome


def test_the_reading_and_its_ablation_agree_with_the_models_scores(embedded):
    items = world.swap_items("val-id", "attribute", 3)
    read = head_bench.read_items(embedded, items)
    hits = []
    for it in items:
        sims = embedded.embed_texts(list(it.captions)) @ embedded.embed_images(it.pictures(embedded.image_size)).T
        hits.append(outcome(it, sims.numpy()).correct)
        mine = next(r for r in read if r.item is it)
        assert torch.allclose(mine.texts @ torch.nn.functional.normalize(mine.embeddings, dim=-1).T, sims, atol=1e-5)
    assert head_bench.group_score(read)[0] == pytest.approx(100 * np.mean(hits))
    rows = head_bench.head_table(read, draws=9)
    assert len(rows) == read[0].totals.shape[1] * read[0].totals.shape[2]
    assert all(0 < r["null"]["p"] <= 1 and r["ci"][0] <= r["share"] + 1e-4 for r in rows)
    ranked = head_bench.ranking(read)
    assert head_bench.ablation(read, ranked, draws=3)["top"]["2"]["heads"] == [list(h) for h in ranked[:2]]


def test_the_command_writes_its_report(tmp_path):
    out = tmp_path / "heads.json"
    assert main(["heads", "--split", "id", "--kinds", "object", "--limit", "2", "--draws", "3", "--json",
                 str(out)]) == 0
    cell = json.loads(out.read_text())["results"]["id"]["object"]
    assert cell["items"] == 2 and set(cell["ablation"]) == {"none", "top", "random"}
    assert set(cell["ablation"]["top"]) == {"1", "2", "4", "8"}


def test_the_docs_show_each_records_tables():
    from explorer.eval.head_record import tables

    text = (Path(__file__).resolve().parents[2] / "docs" / "heads.md").read_text()
    for name in ("embedded", "finetune"):
        assert tables(name).strip() in text, name


def test_the_null_reads_each_items_heads_against_another_items_captions(embedded):
    read = head_bench.read_items(embedded, world.swap_items("val-heldout", "object", 3))
    rows = head_bench.head_table(read, draws=1)
    rng = np.random.default_rng(head_bench.SEED)
    order = rng.permutation(3)
    while (order == np.arange(3)).any():
        order = rng.permutation(3)
    # the one derangement drawn, read the long way: item order[i]'s heads against item i's captions
    found = np.mean([read[order[i]].shares(read[i].texts) for i in range(3)], axis=0)
    null = {(r["layer"], r["head"]): r["null"]["mean"] for r in rows}
    assert all(null[lh] == pytest.approx(round(float(found[lh]), 4), abs=1e-4) for lh in null)
