"""scripts/attention_figures.py: the TFLocal figures of docs/tflocal-world.md and each token's share per object."""

import runpy
from pathlib import Path

import numpy as np
from PIL import Image

SCRIPT = Path(__file__).parents[1] / "scripts" / "attention_figures.py"


def test_figures_have_a_tile_per_content_token_and_shares_are_read_on_each_object(tmp_path, capsys):
    script = runpy.run_path(str(SCRIPT), run_name="attention_figures")
    written = script["main"](["--layer", "1", "--head", "4", "--out", str(tmp_path)])
    assert [p.name for p in written] == ["tflocal-attribute.png", "tflocal-heldout.png"]
    tile = script["TILE"]
    strip = np.asarray(Image.open(written[0]), dtype=float)
    assert strip.shape == (tile, 8 * tile, 3)  # red square blue circle, then blue square red circle
    tiles = [strip[:, i * tile:(i + 1) * tile] for i in range(8)]
    assert np.abs(tiles[0] - tiles[2]).mean() > 0.5  # each token's own attention, not one shared map
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "token" not in line]
    cells = [r.strip("| ").split(" | ") for r in rows]
    assert len(rows) == 16 and [c[0] for c in cells[:4]] == ["red", "square", "blue", "circle"]
    shares = np.array([[float(v) for v in c[1:]] for c in cells])
    assert ((shares >= 0) & (shares <= 1)).all() and (shares[:, :2].sum(1) <= 1.0001).all()
