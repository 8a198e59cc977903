"""The model menu marks where each entry's weights come from: shipped and cached entries first, the hub's after."""

import os
from dataclasses import replace

import open_clip

from explorer.core import settings
from explorer.engine.model_pool import EMBEDDED_CHOICE, model_choices
from explorer.models import zoo
from explorer.ui import model_menu


def test_the_menu_marks_shipped_cached_and_hub_entries_and_lists_what_loads_here_first(monkeypatch, tmp_path):
    monkeypatch.setattr(model_menu, "OPENAI_CACHE", tmp_path)
    monkeypatch.setattr(model_menu, "try_to_load_from_cache", lambda repo, name: None)  # an empty huggingface cache
    url = open_clip.get_pretrained_cfg("ViT-B-32", "openai")["url"]
    (tmp_path / os.path.basename(url)).write_bytes(b"weights")  # fetched once by URL
    menu = model_menu.labelled(model_choices())
    assert [entry for _, entry in menu][0] == EMBEDDED_CHOICE and len(menu) == len(model_choices())
    marks = {entry: label.rpartition(" \u00b7 ")[2] for label, entry in menu}
    assert marks[EMBEDDED_CHOICE] == model_menu.SHIPPED
    assert marks["world-clip-finetune (project checkpoint)"] == model_menu.SHIPPED
    assert marks["ViT-B-32 / openai"] == model_menu.CACHED and marks["ViT-B-16 / openai"] == model_menu.HUB
    # the zoo's entries as the zoo marks them: a LoRA on a fork, or a file not in the zoo's folder, cannot load here
    assert marks["DAC-LLM"] == zoo.CANNOT and marks["NegCLIP"] == zoo.CANNOT and marks["CLIC"] == model_menu.HUB
    assert marks["ViT-B-32 / openai"] == model_menu.CACHED and marks["ViT-B-16 / openai"] == model_menu.HUB
    order = [marks[entry] for _, entry in menu]
    ranks = {model_menu.SHIPPED: 0, model_menu.CACHED: 1, zoo.LOCAL: 1, model_menu.HUB: 2, zoo.CANNOT: 3}
    assert order == sorted(order, key=ranks.__getitem__) and order[-1] == zoo.CANNOT


def test_a_zoo_file_in_the_zoos_folder_is_marked_a_local_file(monkeypatch, tmp_path):
    monkeypatch.setattr(settings, "_current", replace(settings.current(), zoo_dir=str(tmp_path)))
    (tmp_path / zoo.ZOO["NegCLIP"].weights).write_bytes(b"weights")
    assert model_menu.where("NegCLIP") == zoo.LOCAL and model_menu.where("CE-CLIP") == zoo.CANNOT


def test_weights_in_the_huggingface_cache_count_as_cached(monkeypatch, tmp_path):
    monkeypatch.setattr(model_menu, "OPENAI_CACHE", tmp_path)
    monkeypatch.setattr(model_menu, "try_to_load_from_cache",
                        lambda repo, name: "/cache/x" if repo.startswith("timm/vit_base_patch16_clip_224") else None)
    assert model_menu.where("ViT-B-16 / openai") == model_menu.CACHED
    assert model_menu.where("ViT-L-14 / openai") == model_menu.HUB
