"""scripts/attention_figures.py: the TFLocal figures of docs/tflocal-world.md and each token's share per object."""

import runpy
from pathlib import Path

import numpy as np
from PIL import Image

SCRIPT = Path(__file__).parents[2] / "scripts" / "attention_figures.py"


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


def test_the_json_record_holds_the_printed_shares(tmp_path, capsys):
    import json

    script = runpy.run_path(str(SCRIPT), run_name="attention_figures")
    written = script["main"](["--out", str(tmp_path), "--json", str(tmp_path / "s.json")])
    record = json.loads(written[-1].read_text())
    assert record["command"].endswith(f"--json {tmp_path / 's.json'}") and set(record["weights_sha256"]) == \
        {"world-clip", "world-clip-tflocal"}
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "token" not in line]
    recorded = [f"| {t['token']} | " + " | ".join(f"{v:.2f}" for v in (*t["shares"].values(),
                                                                      *t["mean_shares"].values())) + " |"
                for figure in record["figures"].values() for caption, tokens in figure.items()
                if caption != "objects" for t in tokens]
    assert recorded == rows


def test_the_docs_share_table_is_the_committed_record():
    """docs/tflocal-world.md's table of attention shares, row by row, from its record
    (docs/results/tflocal-attention-shares.json)."""
    import json

    root = Path(__file__).parents[2]
    record = json.loads((root / "docs" / "results" / "tflocal-attention-shares.json").read_text())
    doc = (root / "docs" / "tflocal-world.md").read_text()
    sides = []
    for figure in ("tflocal-attribute", "tflocal-heldout"):
        captions = [c for c in record["figures"][figure] if c != "objects"]
        sides.append([f"{t['token']} ({label}) | " + " | ".join(f"{v:.2f}" for v in t["shares"].values())
                      for label, caption in zip("AB", captions) for t in record["figures"][figure][caption]])
    for left, right in zip(*sides):
        assert f"| {left} | | {right} |" in doc, (left, right)
    for figure, quoted in (("tflocal-attribute", "0.17 to 0.24 per object"),):
        means = [v for c, ts in record["figures"][figure].items() if c != "objects" for t in ts
                 for v in t["mean_shares"].values()]
        assert f"{min(means):.2f} to {max(means):.2f} per object" == quoted and quoted in doc
