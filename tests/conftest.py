"""What several test modules share: the embedded and random encoders, a tiny model config, benchmark files in
each benchmark's layout and fake scoring methods (imported as ``from conftest import ...``)."""

import json
import os

# Tests never reach the model hub: a pretrained tag must fail at once with the clear message.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("EXPLORER_DEVICE", "cpu")
# Two workers share the cores, so torch's OpenMP threads sleep when idle instead of spinning (set before torch is
# imported; the tests' subprocesses inherit it). Beside a busy process, the binding null test took 38 s instead of 65
# and the other process did 38% more work; alone it is slower (35 s against 20), but the suite is never alone.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# Each test process serves its pages from a gradio cache of its own, as a served page does (``explorer.page``): a
# closed page's uploads are removed from it, which a cache shared by two workers' servers could not allow.
os.environ.pop("GRADIO_TEMP_DIR", None)
from explorer.ui import sessions  # noqa: E402

sessions.private_cache()

import numpy as np  # noqa: E402
import open_clip  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

from explorer.methods import REGISTRY, Score, ScoringMethod, page_methods  # noqa: E402

torch.set_num_threads(2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first, each module's in its order: the two workers then end on short tests, not one
    waiting while the other finishes a minute-long one (the ``ui/`` modules, the slowest, came last)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def page_labels() -> list[str]:
    """The labels of the methods the page runs, in its order, as the registry describes them."""
    return [REGISTRY[name].label for name in page_methods()]


@pytest.fixture(scope="session")
def embedded():
    from explorer.models.encoders import DualEncoder

    return DualEncoder()


@pytest.fixture(scope="session")
def random_vit():
    """A registry model with random weights (pretrained=None): never downloads."""
    from explorer.models.encoders import DualEncoder

    return DualEncoder("ViT-B-32", pretrained=None)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def quick_probes(monkeypatch, steps: int = 60) -> None:
    """The binding probes fitted in fewer steps (``explorer.readings.binding``'s ``fit_copies``): the same code, a test's
    budget, where what a test checks does not hang on how well they fit."""
    from functools import partial

    from explorer.models.modeling.probes import fit_copies
    from explorer.readings import binding

    monkeypatch.setattr(binding, "fit_copies", partial(fit_copies, steps=steps))


TINY = {  # an open_clip config small enough to train a few steps in a test
    "embed_dim": 16,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16, "patch_size": 8},
    "text_cfg": {"context_length": 32, "vocab_size": 49408, "width": 16, "heads": 2, "layers": 1},
}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """The name of the ``TINY`` config, registered with open_clip."""
    folder = tmp_path_factory.mktemp("configs")
    (folder / "world-clip-tiny-test.json").write_text(json.dumps(TINY))
    open_clip.add_model_config(folder)
    return "world-clip-tiny-test"


# ---------------------------------------------------------------- benchmark files in their layouts, fake methods

COLOURS = {"red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255), "yellow": (255, 255, 0)}


class ColourMethod(ScoringMethod):
    """1 when the caption names the image's mean colour, minus 0.01 a word (shorter captions win ties)."""

    name = "colour"
    label = "fake colour match"

    def __init__(self) -> None:
        super().__init__(encoder=None)
        self.prepared = 0

    def prepare(self, states) -> None:
        self.prepared += len(states)

    def score_new(self, state, captions):
        mean = np.asarray(state.image, dtype=float).reshape(-1, 3).mean(0)
        colour = min(COLOURS, key=lambda c: np.linalg.norm(mean - COLOURS[c]))
        return [Score(self.name, c, float(colour in c.split()) - 0.01 * len(c.split())) for c in captions]


class LengthMethod(ScoringMethod):
    """The caption's length in characters, blind to the image."""

    name = "length"
    label = "fake length"

    def __init__(self) -> None:
        super().__init__(encoder=None)

    def prepare(self, states) -> None:
        pass

    def score_new(self, state, captions):
        return [Score(self.name, c, float(len(c))) for c in captions]


def solid(path, colour, size=(16, 12)):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, COLOURS[colour]).save(path)
    return path


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def sugarcrepe(root):
    for name, colour in (("000000000001.jpg", "red"), ("000000000002.jpg", "blue"), ("000000000003.jpg", "green")):
        solid(root / "val2017" / name, colour)
    write_json(root / "add_obj.json", {
        "0": {"filename": "000000000001.jpg", "caption": "a red square", "negative_caption": "a blue square"},
        "1": {"filename": "000000000002.jpg", "caption": "a red thing", "negative_caption": "a green thing"},
    })
    write_json(root / "swap_att.json", {
        "12": {"filename": "000000000003.jpg", "caption": "green", "negative_caption": "red"},
    })
    return root
