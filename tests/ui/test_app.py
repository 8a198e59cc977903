"""The page through gradio_client, in process: the main flow and every kind of bad input."""

import json
import re
import zipfile
from dataclasses import replace
from pathlib import Path

import gradio as gr
import numpy as np
import pytest
from conftest import page_labels
from gradio_client import Client, handle_file
from PIL import Image

from explorer import world
from explorer.engine import Engine
from tests.app_server import running_app

RIGHT, WRONG = "a red square and a blue circle", "a blue square and a red circle"


@pytest.fixture(scope="module")
def client(embedded):
    with running_app(embedded) as url:
        yield Client(url, verbose=False)


@pytest.fixture(scope="module")
def scene_path(tmp_path_factory):
    a = world.WorldObject("red", "square", "large", 0.27, 0.3)
    b = world.WorldObject("blue", "circle", "large", 0.72, 0.7)
    path = tmp_path_factory.mktemp("img") / "scene.png"
    world.Scene((a, b)).render(128).save(path)
    return path


def analyze(client, path, a=RIGHT, b=WRONG):
    return client.predict(handle_file(str(path)), a, b, api_name="/analyze")


def assert_full_result(out):
    status, shown, table, overlay_a, overlay_b, heatmap = out
    assert status.startswith("Done"), status
    rows = {r[0]: r for r in table["data"]}
    assert list(rows) == page_labels()
    for row in rows.values():
        assert table["headers"] == ["method", "prefers", "A", "B", "A - B"]
        assert row[4] == pytest.approx(row[2] - row[3], abs=2e-4)
        assert row[1] in ("A", "B", "tie")
    for path in (shown, overlay_a, overlay_b):
        assert Image.open(path).size[0] > 0
    assert heatmap is not None
    return rows


def test_main_flow_scores_both_captions(client, scene_path):
    rows = assert_full_result(analyze(client, scene_path))
    assert rows["SGI"][1] == "A"  # the scene has a red square and a blue circle
    overlay = np.asarray(Image.open(analyze(client, scene_path)[3]))
    assert overlay.shape[1] == 448  # the scene is shown enlarged with the boxes drawn on it, named below


def test_swap_for_me_and_preview(client, scene_path):
    b, status = client.predict("a black dog and a white cat", api_name="/swap")
    assert b == "a white dog and a black cat" and "attribute" in status
    _, status = client.predict("a dog", api_name="/swap")
    assert "No swap" in status
    b, status = client.predict("A red square", api_name="/swap")  # was "a square red", called an object swap
    assert b != "A square red" and "No swap" in status and "another colour" in status
    shown, status = client.predict(handle_file(str(scene_path)), api_name="/preview")
    assert status == "" and Image.open(shown).size == (128, 128)


def test_model_menu_reports_an_unreachable_model_and_keeps_the_current_one(client):
    status, device, model = client.predict("ViT-B-32 / openai", api_name="/load_model")
    assert "Cannot run" in status and "cannot be reached" in status
    assert "world-clip (embedded)" in device and "cpu" in device
    assert model == "world-clip (embedded)"


def test_not_an_image(client, tmp_path):
    path = tmp_path / "notes.png"
    path.write_text("hello")
    status, shown, table, overlay_a, overlay_b, heatmap = analyze(client, path)
    assert "notes.png is not an image" in status
    assert shown is None and overlay_a is None and overlay_b is None


@pytest.mark.parametrize("a, b, needle", [("", WRONG, "Caption A is empty"), (RIGHT, "   ", "Caption B is empty"),
                                         (RIGHT, RIGHT, "the same")])
def test_bad_captions_get_a_message(client, scene_path, a, b, needle):
    status, *_ = analyze(client, scene_path, a, b)
    assert needle in status


def odd_images():
    base = world.swap_items("id", "attribute", 1)[0].images[0].render(256)
    yield "grayscale", base.convert("L"), "png", {}
    rgba = base.convert("RGBA")
    rgba.putalpha(200)
    yield "rgba", rgba, "png", {}
    yield "16-bit", Image.fromarray((np.asarray(base.convert("L")).astype(np.uint16) * 257)), "png", {}
    yield "cmyk", base.convert("CMYK"), "jpg", {}
    exif = Image.Exif()
    exif[0x0112] = 8  # stored turned clockwise; shown after turning it back
    yield "exif-rotated", base.crop((0, 0, 256, 128)).rotate(-90, expand=True), "jpg", {"exif": exif}
    yield "huge", Image.new("RGB", (12000, 12000), (128, 128, 128)), "png", {}


def test_odd_images_are_read_and_scored(client, tmp_path):
    for name, image, ext, kw in odd_images():
        path = tmp_path / f"{name}.{ext}"
        image.save(path, **kw)
        out = analyze(client, path)
        assert_full_result(out)
        shown = Image.open(out[1])
        assert max(shown.size) <= 1024, name
        if name == "exif-rotated":
            assert shown.size == (256, 128)


def test_browse_world_filter_and_send_to_the_main_page(client):
    category, position, status = client.predict("world", "", 3, api_name="/browse_load")
    n = 3 * len(world.SPLITS) * len(world.KINDS)
    assert status == f"Loaded {n} items." and position["maximum"] == n - 1
    assert "heldout/attribute" in [c[0] for c in category["choices"]]
    image_0, image_1, reading_a, reading_b, details = client.predict(2, api_name="/browse_show")
    assert "id/attribute/2" in details and "global cosine with image 1" in details
    assert "scored by **world-clip (embedded)**" in details
    verdicts = dict(line.strip("| ").split(" | ") for line in details.splitlines()[-len(page_labels()):])
    assert list(verdicts) == page_labels()
    assert set(verdicts.values()) <= {"right", "**wrong**"}
    scenes = [scene.render(128).resize((320, 320), Image.Resampling.NEAREST)  # shown larger, each pixel a block
              for scene in world.swap_items("id", "attribute", 3)[2].images]
    for shown, scene in zip((image_0, image_1), scenes):
        got = np.asarray(Image.open(shown).convert("RGB"), dtype=float)  # as gradio sends it: WebP
        assert got.shape == (320, 320, 3) and np.abs(got - np.asarray(scene, dtype=float)).mean() < 2
    path, a, b, status = client.predict(2, api_name="/browse_send")
    expected = world.swap_items("id", "attribute", 3)[2]
    assert (a, b) == expected.captions and status == "Sent."
    assert np.array_equal(np.asarray(Image.open(path)), np.asarray(expected.images[0].render(128)))


def test_the_default_page_reads_no_server_path_and_says_nothing_of_one(client, tmp_path):
    (tmp_path / "secret.csv").write_text("image,password\nx.png,hunter2\n")
    for benchmark, typed in (("bivlc", str(tmp_path)), ("bivlc", str(tmp_path / "secret.csv")),
                             ("winoground", "/proc/self/environ"), ("pairs", str(tmp_path / "secret.csv")),
                             ("pairs", str(tmp_path / "absent.csv")), ("aro", "../..")):
        *_, status = client.predict(benchmark, typed, 3, api_name="/browse_load")
        assert status.startswith("**Cannot load:**") and "upload" in status, typed
        assert not any(word in status for word in (str(tmp_path), "secret", "password", "environ", "absent")), status


def test_browse_loads_uploaded_pairs_and_names_the_rows_it_left_out(client, scene_path, tmp_path):
    outside = tmp_path / "outside.png"
    Image.new("RGB", (32, 32)).save(outside)
    pairs = tmp_path / "mine.csv"
    pairs.write_text(f"image,caption_a,caption_b,category\n{outside.name},a red square,a blue square,colour\n"
                     f"{outside},a red square,a blue square,colour\n")
    category, position, status = client.predict("pairs", "", 50, handle_file(str(pairs)), api_name="/browse_load")
    assert status.startswith("**Cannot load:**") and "no usable row" in status  # its images were not uploaded
    archive = tmp_path / "mine.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(scene_path, f"mine/{scene_path.name}")
        zf.writestr("mine/pairs.csv", f"image,caption_a,caption_b,category\n{scene_path.name},a red square,a blue "
                                      f"square,colour\ngone.png,a red square,a blue square,colour\n"
                                      f"{outside},a red square,a blue square,colour\n")
    category, position, status = client.predict("pairs", "", 50, handle_file(str(archive)), api_name="/browse_load")
    assert status.startswith("Loaded 1 items. Left out 2 rows:") and "line 3, field 'image'" in status
    assert "line 4, field 'image': the path leads outside" in status and str(tmp_path) not in status
    assert [c[0] for c in category["choices"]] == ["all", "colour"]
    *_, details = client.predict(0, api_name="/browse_show")
    assert "line 2" in details and "caption 0 scored above every other caption" in details


def test_with_a_data_root_the_page_reads_inside_it_and_refuses_each_path_out_by_line(embedded, scene_path, tmp_path):
    from explorer.core import settings
    from explorer.core.data_roots import DataAccess
    from explorer.ui.serving import Serving

    root = tmp_path / "root"
    root.mkdir()
    (root / scene_path.name).write_bytes(scene_path.read_bytes())
    (root / "link.png").symlink_to(scene_path)  # a link out of the root
    (root / "mine.csv").write_text("image,caption_a,caption_b\n" + "".join(
        f"{name},a red square,a blue square\n" for name in (scene_path.name, str(scene_path), "../x.png", "link.png")))
    serving = replace(Serving.of(settings.current()), data=DataAccess.page([root]))
    with running_app(embedded, serving) as url:
        page = Client(url, verbose=False)
        _, _, status = page.predict("pairs", "mine.csv", 50, api_name="/browse_load")
        assert status.startswith("Loaded 1 items. Left out 3 rows:")
        assert [line.split(":")[0] for line in status.split("  \n")[1:]] == [
            f"line {n}, field 'image'" for n in (3, 4, 5)] and str(scene_path.parent) not in status
        *_, status = page.predict("pairs", str(scene_path.parent / "other.csv"), 50, api_name="/browse_load")
        assert "not inside this page's data folders" in status and "other.csv" not in status


def test_no_table_shows_placeholder_columns_before_a_run(embedded):
    """A table with no columns of its own ("1 | 2 | 3" until a run fills it) is hidden until then."""
    from explorer.ui.app import build_app

    tables = [b for b in build_app(Engine(embedded)).blocks.values() if isinstance(b, gr.Dataframe)]
    assert "binding-table" in {t.elem_id for t in tables}
    for table in tables:
        assert not table.visible or list(table.headers) != ["1", "2", "3"], table.elem_id


def test_binding_tab_analyses_and_edits(client):
    record = json.loads((Path(__file__).resolve().parents[2] / "docs/results/binding-embedded.json").read_text())
    shown, mds, note = client.predict(api_name="/binding")
    table = shown["value"]  # the table, shown once it has the run's rows: the shipped model's record, every reading
    assert shown["visible"] is True and "world-clip (embedded)" in note and "binding-embedded.json" in note
    kinds = [row[0].split(":")[0] for row in table["data"]]
    assert kinds == ["image"] * (len(record["figures"]) // 2) + ["text"] * (len(record["figures"]) // 2)
    assert table["headers"] == ["reading", "value", "chance", "verdict"] and "276" in note
    for reading, value, chance, verdict in table["data"]:  # each beside its null: a mean in its range, p and adjusted p
        mean, low, high = (float(v) for v in re.fullmatch(r"(\S+) \((\S+) to (\S+)\)", chance).groups())
        found = re.fullmatch(r"(Shows binding|Real but negligible|Says nothing about binding): .*?(\S+) "
                             r"(?:for an encoder that cannot bind|here).* \(p (\S+), adjusted (\S+) over \d+ "
                             r"readings\)\.", verdict) or re.fullmatch(r"(Cannot tell|Unstable): .*", verdict)
        assert found and low <= mean <= high, (reading, verdict)
        if found[1] in ("Shows binding", "Real but negligible"):
            assert float(found[4]) <= 0.05 and value > mean, reading  # binding shown is above the null's mean
        elif found[1] == "Says nothing about binding":
            assert float(found[2]) == mean and 0 <= float(found[3]) <= float(found[4]) <= 1, reading
    before, edited, after, verdict = client.predict(0, "red circle", "orange", api_name="/binding_edit")
    assert "the red circle made orange" in verdict and "Retrieved" in verdict
    assert Image.open(after).size == (256, 256)
    changed = np.any(np.asarray(Image.open(before)) != np.asarray(Image.open(edited)), axis=-1)
    assert 0.01 < changed.mean() < 0.5  # the edited scene is the scene with one object recoloured


def test_every_tour_step_names_a_shipped_example_and_a_tab_of_the_page(embedded):
    from explorer.methods import tour_steps
    from explorer.ui.app import build_app
    from explorer.world.examples import examples

    demo = build_app(Engine(embedded))
    tab_ids = {block.id for block in demo.blocks.values() if isinstance(block, gr.Tab)}
    assert {s.example for s in tour_steps()} <= {e.name for e in examples()}
    assert {s.tab for s in tour_steps()} <= tab_ids and len(tour_steps()) == 6


def test_captions_named_like_a_methods_work_or_a_method_are_scored_on_the_page(client, scene_path):
    for a, b in (("keys", "regions"), ("masks", "groups"), ("global", "sgi"), ("tflocal", "powerclip"),
                 ("finetune", "\U0001F436 and \U0001F431")):
        rows = assert_full_result(analyze(client, scene_path, a, b))
        assert all(isinstance(row[2], float) and isinstance(row[3], float) for row in rows.values()), (a, b)
