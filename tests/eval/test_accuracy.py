"""The evaluation (``explorer/eval/accuracy.py``): swap outcomes by the benchmark's rule, the summaries in percent, the eval
command's reports, and the embedded model's recognition of seen and held-out objects."""

import json

import numpy as np
import pytest

from explorer import world
from explorer.cli import main
from explorer.core.items import Item
from explorer.eval.accuracy import Outcome, evaluate, evaluate_items, outcome, percentages
from explorer.methods import get_method


@pytest.mark.parametrize(
    "s, text, image",
    [
        ([[0.9, 0.1], [0.2, 0.8]], True, True),
        ([[0.5, 0.6], [0.4, 0.7]], True, False),    # each image prefers its caption; caption 0 prefers image 1
        ([[0.5, 0.1], [0.6, 0.8]], False, True),    # image 0 prefers caption 1
        ([[0.5, 0.5], [0.5, 0.5]], False, False),   # ties are failures
    ],
)
def test_swap_outcome(s, text, image):
    o = outcome(Item("attribute", (None, None), ("a", "b")), np.array(s))
    assert (o.text, o.image, o.correct) == (text, image, text and image)


def test_summary_in_percent():
    records = [Outcome(t, i, 0.0, (0, 1)) for t, i in ((True, True), (True, False), (False, False), (False, True))] * 25
    out = percentages(records)
    ci = out.pop("ci")
    assert out == {"text": 50.0, "image": 50.0, "group": 25.0, "n": 100}
    assert ci["group"][0] < 25 < ci["group"][1] < ci["text"][1]  # each score inside its own interval
    assert 15 < ci["group"][1] - ci["group"][0] < 20  # about 2 x 1.96 x sqrt(.25 x .75 / 100) = 17 points


def test_eval_cli_writes_the_documented_json(tmp_path, capsys, embedded):
    path = tmp_path / "r.json"
    assert main(["eval", "--benchmark", "world", "--methods", "global", "--split", "id,shift", "--limit", "3",
                 "--json", str(path)]) == 0
    report = json.loads(path.read_text())
    assert report["benchmark"] == "world" and report["model"] == "world-clip (embedded)"
    res = report["results"]["global"]
    assert set(res) == {"id", "shift"}
    assert set(res["id"]) == set(world.KINDS) | {"all"}
    assert res["id"]["all"]["n"] == 12 and res["id"]["attribute"]["n"] == 3
    for split in ("id", "shift"):  # each figure is the share of its items, recomputed here from the cosines
        rows = []
        for kind in world.KINDS:
            found = []
            for item in world.swap_items(split, kind, 3):
                images = embedded.embed_images(item.pictures(embedded.image_size)).numpy()
                s = embedded.embed_texts(list(item.captions)).numpy() @ images.T  # captions x images
                text, image = s[0, 0] > s[1, 0] and s[1, 1] > s[0, 1], s[0, 0] > s[0, 1] and s[1, 1] > s[1, 0]
                found.append((text, image, text and image))
            rows += found
            for m, column in zip(("text", "image", "group"), np.array(found).T):
                assert res[split][kind][m] == pytest.approx(100 * column.mean(), abs=0.01), (split, kind, m)
        assert res[split]["all"]["group"] == pytest.approx(100 * np.array(rows)[:, 2].mean(), abs=0.01)


def test_world_single_cli(tmp_path, embedded):
    path = tmp_path / "s.json"
    assert main(["eval", "--benchmark", "world-single", "--split", "heldout", "--limit", "5", "--json", str(path)]) == 0
    single = json.loads(path.read_text())["results"]["global"]["heldout"]["single"]
    items = world.single_items("heldout", 5)  # recomputed: the right caption's share of top-1 among all 32
    images = embedded.embed_images([it.images[0].render(embedded.image_size) for it in items]).numpy()
    picked = (images @ embedded.embed_texts(world.single_captions()).numpy().T).argmax(1)
    assert single["n"] == 5 and single["top1"] == pytest.approx(100 * np.mean(picked == [it.right[0] for it in items]))


@pytest.fixture(scope="module")
def single_top1(embedded):
    """The shipped checkpoint: single-object retrieval among all 32 objects' captions, 500 items a split."""
    res = evaluate([get_method("global", embedded)], "world-single", 500, ["id", "heldout"])["global"]
    return {split: res[split]["single"]["top1"] for split in res}


def test_embedded_model_knows_the_objects_it_was_trained_on(single_top1):
    assert single_top1["id"] >= 95


def test_embedded_model_generalises_to_heldout_objects(single_top1):
    assert single_top1["heldout"] >= 95


@pytest.mark.slow
def test_eval_cli_on_a_public_benchmark_writes_json_csv_and_chart(tmp_path):
    from conftest import sugarcrepe

    root = sugarcrepe(tmp_path / "sc")
    out = tmp_path / "sc.json"
    assert main(["eval", "--benchmark", "sugarcrepe", "--data", str(root), "--methods", "global,sgi,powerset",
                 "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["results"]) == {"global", "sgi", "powerclip"}  # "powerset": PowerCLIP's former name, still read
    assert report["results"]["sgi"]["all"]["n"] == 3
    assert out.with_suffix(".csv").is_file() and out.with_suffix(".html").is_file()


def test_eval_cli_reports_a_malformed_benchmark_in_one_line(tmp_path, caplog):
    (tmp_path / "val2017").mkdir()
    (tmp_path / "swap_att.json").write_text("{oops")
    assert main(["eval", "--benchmark", "sugarcrepe", "--data", str(tmp_path)]) == 2
    assert "swap_att.json: invalid JSON" in caplog.text


def test_method_options_from_the_command_line():
    from explorer.commands.eval import method_options

    assert method_options(["sgi.crop_mode=resize", "sgi.scales=(1.0, 0.5)"]) == {
        "sgi": {"crop_mode": "resize", "scales": (1.0, 0.5)}}
    with pytest.raises(SystemExit):
        method_options(["crop_mode=resize"])


def test_one_outcome_for_every_shape_of_item():
    swap = Item("attribute", (None, None), ("a", "b"))
    assert swap.right == (0, 1)  # caption i is image i's unless said otherwise
    found = outcome(swap, np.array([[0.9, 0.1], [0.2, 0.8]]))
    assert found == Outcome(True, True, 0.6, (0, 1)) and found.correct
    wrong = outcome(swap, np.array([[0.5, 0.6], [0.4, 0.7]]))  # text right, image wrong: group wrong
    assert not wrong.correct and wrong.margin == -0.1  # caption 0 prefers image 1 by 0.1: the closest call
    choice = Item("single", (None,), ("a", "b", "c"), right=(1,))
    assert outcome(choice, np.array([[0.1], [0.5], [0.4]])) == Outcome(True, None, 0.1, (1,))
    tie = outcome(choice, np.array([[0.5], [0.5], [0.4]]))  # a tie with another caption fails; that one is picked
    assert not tie.correct and tie.picked == (0,) and tie.margin == 0.0
    assert outcome(choice, np.array([[0.1], [0.5], [0.6]])) == Outcome(False, None, -0.1, (2,))
    # 2 images x 3 captions: image 1's own caption is caption 2, caption 1 a foil of both
    two = Item("foil", (None, None), ("a", "b", "c"), right=(0, 2))
    s = np.array([[0.9, 0.2], [0.3, 0.7], [0.1, 0.8]])
    assert outcome(two, s) == Outcome(True, True, 0.1, (0, 2))  # the closest: caption 2 against caption 1 on image 1
    assert outcome(two, s[[0, 2, 1]]) == Outcome(False, True, -0.1, (0, 1))  # the foil now above on image 1
    with pytest.raises(ValueError, match="needs one of its 3 captions"):
        Item("foil", (None, None), ("a", "b", "c"), right=(0, 3))


def test_choice_summary_is_named_by_its_benchmark():
    out = percentages([Outcome(True, None, 0.1, (0,)), Outcome(False, None, -0.1, (1,))], "top1")
    assert (out["top1"], out["n"], list(out["ci"])) == (50.0, 2, ["top1"])


def test_a_shard_file_gives_back_the_outcomes_it_kept(tmp_path):
    """Outcomes go to a shard file as JSON and come back as the same outcomes: a rerun reads them, scores none."""
    from conftest import ColourMethod, sugarcrepe

    from explorer.core.shards import Shards
    from explorer.eval.benchmark_registry import load_items

    items, method = load_items("sugarcrepe", sugarcrepe(tmp_path / "sc")), ColourMethod()
    first = evaluate_items([method], items, "sugarcrepe", shards=Shards(folder=tmp_path / "shards"))
    scored = method.prepared
    again = evaluate_items([method], items, "sugarcrepe", shards=Shards(folder=tmp_path / "shards"))
    assert again == first and method.prepared == scored and first["colour"]["all"]["n"] == 3


def test_eval_scores_every_item_of_a_public_benchmark_unless_limited_and_says_how_many(tmp_path):
    """As the official scripts do: a category of 205 items is scored whole by default (no silent subset of 200); a
    --limit is honoured and written in the report, and the world keeps its default size."""
    from conftest import solid, write_json

    from explorer.commands.eval import eval_limit

    solid(tmp_path / "val2017" / "a.jpg", "red")
    write_json(tmp_path / "swap_att.json", {str(i): {"filename": "a.jpg", "caption": "a red thing",
                                                     "negative_caption": f"a blue thing {i}"} for i in range(205)})
    for extra, n, limit in (([], 205, None), (["--limit", "7"], 7, 7)):
        out = tmp_path / f"sc-{n}.json"
        assert main(["eval", "--benchmark", "sugarcrepe", "--data", str(tmp_path), "--json", str(out), *extra]) == 0
        report = json.loads(out.read_text())
        assert report["results"]["global"]["swap_att"]["n"] == n and report["limit"] == limit
    assert eval_limit("world", None) == 200 and eval_limit("world", 5) == 5 and eval_limit("aro", None) is None
    with pytest.raises(SystemExit, match="at least 1"):
        eval_limit("sugarcrepe", 0)
