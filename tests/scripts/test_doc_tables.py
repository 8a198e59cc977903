"""The docs' tables (``scripts/doc_tables.py``, ``scripts/count_intervals.py``): a report becomes rows with their
intervals, and every table in ``docs/`` is the table its committed report gives."""

import json
from pathlib import Path

import numpy as np
import pytest

from explorer.core.intervals import percent_intervals
from scripts.count_intervals import count_interval, rewrite
from scripts.doc_tables import cell, kind_table, named_table, range_table, table

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_a_report_becomes_one_row_per_split_and_method_with_the_group_interval():
    cell = {"text": 20.0, "image": 11.0, "group": 7.0, "n": 100, "ci": {"group": [2.0, 12.0]}}
    report = {"results": {m: {s: {"attribute": cell, "all": cell} for s in ("id", "heldout")} for m in ("global", "sgi")}}
    lines = table(report).splitlines()
    assert lines[0] == "| split | method | attribute | all |"
    assert lines[2:] == [f"| {s} | {m} | 20 / 11 / 7 [2, 12] | 20 / 11 / 7 [2, 12] |"
                         for s in ("id", "heldout") for m in ("global", "sgi")]


def test_several_named_reports_share_one_table_and_a_choice_cell_shows_its_one_score():
    single = {"top1": 97.0, "n": 500, "ci": {"top1": [95.4, 98.4]}}
    reports = {f"seed{s}": {"results": {"global": {"val-heldout": {"single": single}}}} for s in (0, 1)}
    assert named_table(reports).splitlines()[2:] == [f"| seed{s} | val-heldout | global | 97 [95.4, 98.4] |"
                                                    for s in (0, 1)]
    other = {"results": {"global": {"val-heldout": {"attribute": single}}}}
    with pytest.raises(ValueError, match="different kinds"):
        named_table({"a": reports["seed0"], "b": other})


def test_a_cell_keeps_the_half_points_of_200_items():
    assert cell({"text": 12.5, "image": 8.0, "group": 6.5, "n": 200, "ci": {"group": [3.5, 10.0]}}) == \
        "12.5 / 8 / 6.5 [3.5, 10]"


@pytest.mark.parametrize("doc, report", [("sgi-world.md", "world-global-sgi.json"),
                                         ("sgi-world.md", "former/world-global-sgi.json"),
                                         ("tflocal-world.md", "align-world.json"),
                                         ("tflocal-world.md", "former/align-world.json")])
def test_the_docs_tables_are_their_reports_tables(doc, report):
    """A table pasted in docs/ is what doc_tables makes of the report its command wrote, to the digit: the shipped
    model's and, kept beside it, the former model's (``former/``, the model shipped at commit ee04569)."""
    assert table(json.loads((DOCS / "results" / report).read_text())) in (DOCS / doc).read_text()


def test_the_drawings_table_is_the_former_and_shipped_models_reports():
    """docs/drawings.md's test-split table of the shipped model is doc_tables' named table of its report and the
    former model's, to the digit."""
    reports = {name: json.loads((DOCS / "results/drawings" / f"{name}-single.json").read_text())
               for name in ("former", "shipped")}
    assert named_table(reports) in (DOCS / "drawings.md").read_text()


def test_the_seed_tables_are_their_reports_tables():
    """docs/sgi-world.md's seed tables are doc_tables' named tables of the seeds' reports (of the former recipe: seed
    1 is the model shipped at commit ee04569)."""
    seeds = DOCS / "results" / "seeds"
    text = (DOCS / "sgi-world.md").read_text()
    reports = {"single": {s: seeds / f"seed{s}-single.json" for s in (0, 1, 2)},
               "resize": {s: seeds / f"seed{s}-sgi-resize.json" for s in (0, 1, 2)},
               "global-sgi": {s: DOCS / "results/former/world-global-sgi.json" if s == 1 else seeds / f"seed{s}-global-sgi.json"
                              for s in (0, 1, 2)}}
    for files in reports.values():
        assert named_table({f"seed{s}": json.loads(p.read_text()) for s, p in files.items()}) in text


@pytest.mark.parametrize("clip, reading", [("seeds/seed1-single.json", "single"),
                                           ("powerclip/clip-s1-global.json", "global")])
def test_the_powerclip_twin_tables_are_their_reports_tables(clip, reading):
    """The CLIP twin and the PowerCLIP twins at both lambdas, in one table per reading."""
    reports = {"clip": json.loads((DOCS / "results" / clip).read_text())}
    for name, lam in (("twin-l1", "1.0"), ("twin-l0.1", "0.1")):
        reports[name] = json.loads((DOCS / "results" / f"powerclip/twin-l{lam}-{reading}.json").read_text())
    assert named_table(reports) in (DOCS / "powerclip-world.md").read_text()


@pytest.mark.parametrize("kind", ["attribute", "all"])
def test_the_twin_of_todays_model_is_its_reports_tables(kind):
    """docs/powerclip-world.md's twin of today's model: its val recognition beside the shipped model's, and each kind's
    swaps beside the shipped model's, from the reports the commands there wrote."""
    drawings = DOCS / "results/drawings"
    val = {"shipped": drawings / "warm-v0.5-s3000-c1000-p2500-m2000-val-single.json",
           "twin": drawings / "twin-powerclip-v0.5-s3000-c1000-p2500-pc2000-val-single.json"}
    swaps = {"shipped": drawings / "shipped-global.json", "twin": DOCS / "results/powerclip/twin-m2000-global.json"}
    text = (DOCS / "powerclip-world.md").read_text()
    assert named_table({n: json.loads(p.read_text()) for n, p in val.items()}) in text
    assert kind_table({n: json.loads(p.read_text()) for n, p in swaps.items()}, kind) in text


@pytest.mark.parametrize("reading, kind", [("single", "single"), ("global", "attribute"), ("global", "all")])
def test_the_powerclip_seed_tables_are_their_reports_tables(reading, kind):
    """Each CLIP seed beside its lambda-0.1 twin (seed 1's twin is the chosen run), one kind of one reading."""
    clip = {"single": "seeds/seed{s}-single.json", "global": "powerclip/clip-s{s}-global.json"}[reading]
    reports = {}
    for s in (0, 1, 2):
        twin = f"powerclip/twin-l0.1-{reading}.json" if s == 1 else f"powerclip/twin-l0.1-s{s}-{reading}.json"
        reports[f"clip-s{s}"] = json.loads((DOCS / "results" / clip.format(s=s)).read_text())
        reports[f"twin-s{s}"] = json.loads((DOCS / "results" / twin).read_text())
    assert kind_table(reports, kind) in (DOCS / "powerclip-world.md").read_text()


@pytest.mark.parametrize("kind", ["all", "attribute"])
def test_the_tflocal_seed_tables_are_their_reports_tables(kind):
    """docs/tflocal-world.md's seed tables are doc_tables --kind of the three encoders' align reports."""
    files = {"seed0": DOCS / "results/seeds/seed0-align.json", "seed1": DOCS / "results/former/align-world.json",
             "seed2": DOCS / "results/seeds/seed2-align.json"}
    reports = {name: json.loads(path.read_text()) for name, path in files.items()}
    assert kind_table(reports, kind) in (DOCS / "tflocal-world.md").read_text()


@pytest.mark.parametrize("kind", ["all", "attribute"])
def test_the_head_seed_tables_are_their_reports_tables(kind):
    """docs/tflocal-world.md's head-seed tables: the shipped heads (seed 0) beside heads trained with seeds of their
    own over the same shipped encoder (scripts/head_seeds.sh)."""
    files = {"head0": DOCS / "results/align-world.json"} | {
        f"head{s}": path for s in (1, 2) if (path := DOCS / f"results/heads/seed{s}.json").exists()}
    assert len(files) >= 2
    reports = {name: json.loads(path.read_text()) for name, path in files.items()}
    assert kind_table(reports, kind) in (DOCS / "tflocal-world.md").read_text()


def test_the_pointing_tables_are_the_pointing_reports():
    """docs/explanations.md's test table, swap probe and randomization curves are doc_tables' of the pointing report,
    read on every map source and both baselines."""
    from scripts.doc_tables import pointing_tables

    report = json.loads((DOCS / "results/pointing-embedded.json").read_text())
    assert {"rollout", "grad-eclip", "tflocal", "sgi", "powerset", "random", "center"} <= set(report["results"])
    assert report["splits"] == ["id", "heldout", "shift", "style"] and "sanity" in report
    assert pointing_tables(report) in (DOCS / "explanations.md").read_text()


def test_count_intervals_are_evals_bootstrap_of_k_hits_in_n_items_and_refuse_other_figures():
    assert list(count_interval(97.0, 500)) == percent_intervals(np.arange(500) < 485)[0]
    (low, high), (near_low, near_high) = count_interval(50.0, 500), count_interval(97.0, 500)
    assert low < 50.0 < high and high - low > near_high - near_low  # wider in the middle
    with pytest.raises(ValueError, match="not a count of 200"):
        count_interval(97.3, 200)


def test_count_intervals_rewrite_only_the_named_columns_of_the_table_below_the_comment():
    doc = ("<!-- intervals 500: a -->\n| name | a | b |\n|---|---|---|\n| x | **97.0** | 97.0 |\n| y | - | 3 |\n\n"
           "| a |\n|---|\n| 5.0 |\n")
    once = rewrite(doc)
    low, high = count_interval(97.0, 500)
    assert f"| x | **97.0** [{low:.1f}, {high:.1f}] | 97.0 |" in once and "| y | - | 3 |" in once
    assert once.endswith("| a |\n|---|\n| 5.0 |\n")  # a table without the comment is left alone
    assert rewrite(once) == once  # rerunning gives the same text
    with pytest.raises(ValueError, match="no column c"):
        rewrite("<!-- intervals 500: c -->\n| a |\n|---|\n| 5.0 |\n")


@pytest.mark.parametrize("name", ["recognition.md", "powerclip-world.md"])
def test_a_doc_carries_the_intervals_its_counts_give(name):
    doc = DOCS / name
    assert rewrite(doc.read_text()) == doc.read_text() and "<!-- intervals 500:" in doc.read_text()


def test_the_recognition_doc_shows_the_shipped_runs_interval():
    doc = DOCS / "recognition.md"
    low, high = count_interval(97.0, 500)
    assert f"| 4000 steps, bf16, seed 1 | **44.0 min** | 100.0 [100.0, 100.0] | **97.0** [{low:.1f}, {high:.1f}] |" \
        in doc.read_text()


def test_one_kind_of_several_reports_puts_the_reports_side_by_side_over_their_common_methods():
    def report(group: float, methods=("global", "tflocal")) -> dict:
        node = {"text": 50.0, "image": 40.0, "group": group, "n": 200, "ci": {"group": [group - 5, group + 5]}}
        return {"results": {m: {s: {"attribute": node, "all": node} for s in ("id", "shift")} for m in methods}}

    lines = kind_table({"seed0": report(30.0), "seed1": report(10.0, ("global", "tfglobal", "tflocal"))},
                       "all").splitlines()
    assert lines[0] == "| split | method | seed0 | seed1 |"
    assert lines[2] == "| id | global | 50 / 40 / 30 [25, 35] | 50 / 40 / 10 [5, 15] |"
    assert [line.split(" | ")[:2] for line in lines[2:]] == [["| id", "global"], ["| id", "tflocal"],
                                                            ["| shift", "global"], ["| shift", "tflocal"]]
    with pytest.raises(ValueError, match="no 'size' cell"):
        kind_table({"seed0": report(30.0)}, "size")


def _report(groups: dict[str, float], splits=("id", "heldout")) -> dict:
    """A report whose every method's group score is ``groups[method]`` on each split and kind."""
    node = lambda g: {"text": g, "image": g, "group": g, "n": 100, "ci": {"group": [g, g]}}  # noqa: E731
    return {"results": {m: {s: {"all": node(g), "attribute": node(g / 2)} for s in splits} for m, g in groups.items()}}


def test_the_range_table_gives_each_group_scores_lowest_and_highest_over_a_groups_reports():
    seeds = {"s0": _report({"global": 10.0, "sgi": 70.0}),
             "s1": _report({"global": 30.0, "sgi": 75.5, "extra": 1.0}),
             "s2": _report({"global": 20.0, "sgi": 72.0}, splits=("id",))}
    lines = range_table({"": seeds}).splitlines()
    assert lines[0] == ("| split | method | seeds | all: group, lowest to highest | attribute: group, lowest to "
                        "highest |")
    # only the methods and splits every report has; lowest and highest whatever the reports' order
    assert lines[2:] == ["| id | global | s0, s1, s2 | 10 to 30 | 5 to 15 |",
                         "| id | sgi | s0, s1, s2 | 70 to 75.5 | 35 to 37.8 |"]
    labelled = range_table({"heads": {"h0": _report({"tflocal": 50.0})}, "encoders": seeds}, ("all",)).splitlines()
    assert labelled[2] == "| id | heads: tflocal | h0 | 50 to 50 |"
    assert labelled[3].startswith("| id | encoders: global |")


def _load(**named: str) -> dict[str, dict]:
    return {name: json.loads((DOCS / "results" / path).read_text()) for name, path in named.items()}


RANGES = {  # each doc's seed-range table: its groups of reports, as the doc's command names them
    "sgi-world.md": lambda: {"": _load(seed0="seeds/seed0-global-sgi.json", seed1="former/world-global-sgi.json",
                                       seed2="seeds/seed2-global-sgi.json")},
    "tflocal-world.md": lambda: {
        "heads over today's encoder": _load(head0="align-world.json", head1="heads/seed1.json",
                                            head2="heads/seed2.json"),
        "encoders of the former recipe": _load(seed0="seeds/seed0-align.json", seed1="former/align-world.json",
                                               seed2="seeds/seed2-align.json")},
    "powerclip-world.md": lambda: {
        "CLIP": _load(**{f"s{s}": f"powerclip/clip-s{s}-global.json" for s in (0, 1, 2)}),
        "PowerCLIP twin": _load(s0="powerclip/twin-l0.1-s0-global.json", s1="powerclip/twin-l0.1-global.json",
                                s2="powerclip/twin-l0.1-s2-global.json")},
}


@pytest.mark.parametrize("doc", sorted(RANGES))
def test_the_trained_models_docs_lead_with_the_seed_range_of_their_records(doc):
    """Each doc of trained models opens with the seed range (its first section), the table doc_tables --range makes
    of the seeds' reports, to the digit."""
    text = (DOCS / doc).read_text()
    first = next(line for line in text.splitlines() if line.startswith("## "))
    assert first == "## The seed range first"
    section = text.split("## The seed range first", 1)[1].split("\n## ", 1)[0]
    assert range_table(RANGES[doc]()) in section
