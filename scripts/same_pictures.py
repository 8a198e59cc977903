"""The page's pictures of two example scenes, as bytes, to show a restructure leaves them byte-identical.

    python scripts/same_pictures.py OUT_DIR            # writes each picture's bytes and OUT_DIR/manifest.json
    python scripts/same_pictures.py --compare A B      # each picture's sha256 in both manifests, and whether all agree

Drawn through the public API (``explorer.api``) on the embedded world-clip, fp32 on the CPU: every method's
pictures (``Result.figures()``), the downloaded report's HTML, the main tab's overlays and heat map, and for each
method with a map per segment, each segment's map as "Where the model looks" reads it and its plotly figures.
A PIL image is written as PNG, a plotly figure as its JSON, a map as its array's bytes; the report's HTML is compared
with plotly's random div ids set aside, and a picture named by a method's former name (``RENAMED``) is compared with
the one named by its name now.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCENES = ("world: attribute swap (id)", "world: relation swap (id)")
RENAMED = {" powerset ": " powerclip "}  # a method's former name in a picture's name -> its name now
UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _bytes(picture) -> tuple[str, bytes]:
    """A picture's file suffix and bytes: PNG for a PIL image, JSON for a plotly figure, raw for an array."""
    if isinstance(picture, np.ndarray):
        return "npy", np.ascontiguousarray(picture).tobytes() + str((picture.dtype, picture.shape)).encode()
    if hasattr(picture, "to_json"):
        return "json", picture.to_json().encode()
    if isinstance(picture, str):
        return "html", picture.encode()
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return "png", out.getvalue()


def pictures(scene: str) -> dict[str, object]:
    """Every picture of ``scene`` by name."""
    from explorer.api import Explorer
    from explorer.engine import report
    try:  # the module's name after the restructure, and before it
        from explorer.explain import looks as maps_view
    except ImportError:
        from explorer.explain import view as maps_view
    look = getattr(maps_view, "looks", None) or getattr(maps_view, "view")
    from explorer.figures import viz_maps
    from explorer.world.examples import examples

    example = next(e for e in examples() if e.name == scene)
    explorer = Explorer(device="cpu", precision="fp32")
    result = explorer.analyze(example.path, example.caption_a, example.caption_b)
    out: dict[str, object] = {f"figure {name}": p for name, p in result.figures().items()}
    out["report"] = report.page(result.image, result.analysis)
    out["table"] = result.table().to_csv()
    state = getattr(result.analysis, "state", None)  # the view's state the analysis holds; before it held one, looked up
    if state is None:
        from explorer.images.fit import view_state
        state = view_state(result.image, result.analysis.view)
    seen = result.image if getattr(result.analysis, "state", None) is None else state  # what ``looks`` is given
    out |= main_pictures(state, result.analysis)
    encoder, scores = explorer.engine.model().encoder, result.analysis.scores
    explainer = maps_view.explainer_menu(encoder.model)[0][1]
    for _, source in maps_view.source_menu()[1:]:
        for _, segment in maps_view.segment_menu(result.analysis.captions)[1:]:
            shown = look(encoder, seen, result.analysis.captions, scores, explainer, segment, source)
            for k, panel in zip("AB", shown.panels):
                if panel.map is not None:
                    out[f"map {source} {segment} {k}"] = panel.map
            for k, figure in zip("AB", viz_maps.maps_figures(result.image, shown)):
                out[f"maps figure {source} {segment} {k}"] = figure
    return out


def main_pictures(state, analysis) -> dict[str, object]:
    """The main tab's overlays and heat map, as it draws them."""
    try:
        from explorer.methods import main_pictures as declared
    except ImportError:
        from explorer.figures import viz
        sgi = analysis.scores["sgi"]
        return {"main overlay A": viz.sgi_overlay(state, sgi[0].evidence),
                "main overlay B": viz.sgi_overlay(state, sgi[1].evidence),
                "main heatmap": viz.sgi_heatmap({f"{k}: {s.caption}": s.evidence for k, s in zip("AB", sgi)}, 1.0)}
    drawn = declared(state, analysis)
    return {"main overlay A": drawn["overlay A"], "main overlay B": drawn["overlay B"], "main heatmap": drawn["joint"]}


def record(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for s, scene in enumerate(SCENES):
        for name, picture in pictures(scene).items():
            suffix, data = _bytes(picture)
            path = folder / f"scene{s}-{hashlib.sha1(name.encode()).hexdigest()[:10]}.{suffix}"
            path.write_bytes(data)
            manifest[f"{scene} | {name}"] = {"file": path.name, "sha256": hashlib.sha256(data).hexdigest(),
                                             "bytes": len(data)}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    print(f"{len(manifest)} pictures written to {folder}")


def _digest(path: Path) -> str:
    """A recorded picture's sha256; in an HTML report, plotly's random div ids (a new uuid4 each drawing) made one."""
    data = path.read_bytes()
    if path.suffix == ".html":
        data = UUID.sub(b"uuid", data)
    return hashlib.sha256(data).hexdigest()


def _renamed(name: str) -> str:
    for old, new in RENAMED.items():
        name = name.replace(old, new)
    return name


def compare(before: Path, after: Path) -> bool:
    a, b = ({_renamed(k): _digest(f / v["file"]) for k, v in json.loads((f / "manifest.json").read_text()).items()}
            for f in (before, after))
    same = [k for k in a if k in b and a[k] == b[k]]
    differ = [k for k in a if k in b and a[k] != b[k]]
    print(f"{len(a)} before, {len(b)} after; {len(same)} byte-identical, {len(differ)} differ, "
          f"{len(a.keys() - b.keys())} only before, {len(b.keys() - a.keys())} only after")
    for k in differ + sorted(a.keys() ^ b.keys()):
        print("  not the same:", k)
    return len(same) == len(a) == len(b)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, nargs="+")
    parser.add_argument("--compare", action="store_true")
    args = parser.parse_args()
    if args.compare:
        sys.exit(0 if compare(*args.folder) else 1)
    record(args.folder[0])
