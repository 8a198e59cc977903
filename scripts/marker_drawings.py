"""Marker drawings no model here was made on: two of the world's shapes a picture, each drawn as a person draws
with a felt marker (a round brush along a wobbly outline, the inside scribbled in zigzags that leave gaps), on five
looks: a 300 px pad, 512 and 1024 px squares, a 1600 x 900 slide with the shapes near its sides and a 1200 x 800
page with small shapes.

Two sets with different seeds: ``tune`` (to choose constants on) and ``test`` (to report, never tuned on). Each
picture comes with its truth: every object's colour, shape, centre and box in the picture's own pixels.

    python scripts/marker_drawings.py --set test --per-look 24 --out /tmp/markers   # writes PNGs and truth.json
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from explorer.world.palette import COLORS, SHAPES  # noqa: E402

SEEDS = {"tune": 6701, "test": 6702}  # the two sets never share a picture
PAPERS = ((255, 255, 255), (248, 247, 240), (236, 238, 242))  # white, cream and pale-grey paper
INKS = tuple(c for c in COLORS if c != "white")  # no one draws in white marker


@dataclass(frozen=True)
class Look:
    """A kind of picture: its size (width, height), the shapes' side as a share of its shorter side, and where
    their centres may lie (shares of the width from the left, for the first shape; the second is mirrored)."""

    name: str
    size: tuple[int, int]
    side: tuple[float, float]
    across: tuple[float, float]


LOOKS = (Look("pad", (300, 300), (0.26, 0.38), (0.22, 0.36)),
         Look("square-512", (512, 512), (0.24, 0.36), (0.2, 0.36)),
         Look("square-1024", (1024, 1024), (0.22, 0.34), (0.2, 0.36)),
         Look("slide", (1600, 900), (0.18, 0.26), (0.07, 0.16)),
         Look("page", (1200, 800), (0.07, 0.11), (0.15, 0.42)))


@dataclass(frozen=True)
class Drawn:
    """One object of a marker drawing: its colour and shape, its centre (x, y) and its ink's box, in pixels."""

    color: str
    shape: str
    centre: tuple[float, float]
    box: tuple[int, int, int, int]

    @property
    def phrase(self) -> str:
        return f"{'an' if self.color[0] in 'aeiou' else 'a'} {self.color} {self.shape}"


def outline(shape: str, cx: float, cy: float, r: float, rng: np.random.Generator) -> list[tuple[float, float]]:
    """A shape's outline as a person draws it: corners where the shape has them, turned a little, every point off
    by up to 3% of its size."""
    turn = rng.uniform(-0.2, 0.2)
    if shape == "circle":
        angles, radii = np.linspace(0, 2 * np.pi, 40, endpoint=False), np.full(40, 0.9 * r)
    elif shape == "square":
        angles, radii = np.pi / 4 + np.arange(4) * np.pi / 2, np.full(4, 0.8 * r * np.sqrt(2))
    elif shape == "triangle":
        angles, radii = -np.pi / 2 + np.arange(3) * 2 * np.pi / 3, np.full(3, r)
    elif shape == "star":
        angles = -np.pi / 2 + np.arange(10) * np.pi / 5
        radii = np.where(np.arange(10) % 2 == 0, r, 0.45 * r)
    else:
        raise ValueError(f"no marker drawing of a {shape}")
    wobble = rng.normal(0, 0.03 * r, (len(angles), 2))
    return [(cx + q * np.cos(a + turn) + dx, cy + q * np.sin(a + turn) + dy)
            for a, q, (dx, dy) in zip(angles, radii, wobble)]


def stroke(draw: ImageDraw.ImageDraw, points: list[tuple[float, float]], width: int, closed: bool = False) -> None:
    """A round brush along ``points``: a line with a disc at every point, so its ends and corners are round."""
    path = points + points[:1] if closed else points
    draw.line(path, fill=255, width=width, joint="curve")
    for x, y in path:
        draw.ellipse((x - width / 2, y - width / 2, x + width / 2, y + width / 2), fill=255)


def scribble(shape_mask: Image.Image, box: tuple[float, float, float, float], width: int,
             rng: np.random.Generator) -> Image.Image:
    """Zigzag strokes across the shape, a brush and a bit apart (gaps show the paper), kept inside it."""
    x0, y0, x1, y1 = box
    ink = Image.new("L", shape_mask.size, 0)
    draw = ImageDraw.Draw(ink)
    gap = width * rng.uniform(0.6, 1.0)  # the zigzag's parallel strokes lie twice this apart
    if rng.random() < 0.5:  # strokes that go left and right, stepping down; else up and down, stepping across
        rows = np.arange(y0, y1, gap)
        points = [(x0 if k % 2 == 0 else x1, y + rng.normal(0, gap / 4)) for k, y in enumerate(rows)]
    else:
        cols = np.arange(x0, x1, gap)
        points = [(x + rng.normal(0, gap / 4), y0 if k % 2 == 0 else y1) for k, x in enumerate(cols)]
    stroke(draw, points, width)
    return Image.fromarray(np.asarray(ink) & np.asarray(shape_mask))


def draw_object(canvas: Image.Image, color: str, shape: str, centre: tuple[float, float], side: float, width: int,
                rng: np.random.Generator) -> Drawn:
    """One object drawn on ``canvas`` in marker: its outline stroked with the round brush, its inside scribbled."""
    r = side / 2
    points = outline(shape, *centre, r, rng)
    inside = Image.new("L", canvas.size, 0)
    ImageDraw.Draw(inside).polygon(points, fill=255)
    ink = scribble(inside, (centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r), width, rng)
    stroke(ImageDraw.Draw(ink), points, width, closed=True)
    rgb = np.clip(np.add(COLORS[color], rng.integers(-12, 13, 3)), 0, 255)
    canvas.paste(tuple(int(v) for v in rgb), mask=ink)
    ys, xs = np.nonzero(np.asarray(ink))
    return Drawn(color, shape, (float(centre[0]), float(centre[1])),
                 (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1))


def picture(look: Look, rng: np.random.Generator) -> tuple[Image.Image, list[Drawn]]:
    """One marker drawing of ``look``: two objects of other colours and shapes, the first on the left, on paper."""
    w, h = look.size
    canvas = Image.new("RGB", look.size, PAPERS[rng.integers(len(PAPERS))])
    colors = rng.choice(INKS, 2, replace=False)
    shapes = rng.choice(SHAPES, 2, replace=False)
    width = max(3, int(round(rng.uniform(0.014, 0.024) * min(w, h))))
    drawn = []
    for k in range(2):
        side = rng.uniform(*look.side) * min(w, h)
        across = rng.uniform(*look.across) * w
        x = across if k == 0 else w - across
        y = rng.uniform(side / 2 + width + 0.05 * h, h - side / 2 - width - 0.05 * h)
        drawn.append(draw_object(canvas, str(colors[k]), str(shapes[k]), (x, y), side, width, rng))
    return canvas, drawn


def pictures(which: str, per_look: int, looks: tuple[Look, ...] = LOOKS):
    """``per_look`` pictures of every look of the ``which`` set (``SEEDS``): (look's name, index, image, truth)."""
    for look in looks:
        rng = np.random.default_rng([SEEDS[which], LOOKS.index(look)])  # a look's pictures whatever others are asked
        for i in range(per_look):
            image, truth = picture(look, rng)
            yield look.name, i, image, truth


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=sorted(SEEDS), default="tune", help="which set (default tune)")
    parser.add_argument("--per-look", type=int, default=24, help="pictures per look (default 24)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the PNGs and truth.json")
    args = parser.parse_args(argv)
    write(pictures(args.set, args.per_look), args.out)
    return 0


def write(made, out: Path) -> None:
    """Each picture of ``made`` ((look, index, image, truth)) as a PNG in ``out``, and their truth in truth.json."""
    out.mkdir(parents=True, exist_ok=True)
    truth = {}
    for look, i, image, drawn in made:
        name = f"{look}-{i:02d}.png"
        image.save(out / name)
        truth[name] = [asdict(d) for d in drawn]
    (out / "truth.json").write_text(json.dumps(truth, indent=1))
    print(f"{len(truth)} pictures in {out}")


if __name__ == "__main__":
    raise SystemExit(main())
