"""The binding readings' controls as a record (``binding --controls``): every negative control, the ground truth
and the noisy positive control at each noise level (its power curve), each run through the code a model goes
through (``binding_null.figures``), at the grid and settings given."""

from __future__ import annotations

import time

from explorer.readings import controls
from explorer.readings.binding_null import figures


def _brief(entry: dict) -> dict:
    """An entry without its null's draws: value, interval, null mean and range, p, adjusted p, reading."""
    null = {k: v for k, v in entry["null"].items() if k != "values"}
    return {k: v for k, v in entry.items() if k != "null"} | {"null": null}


class Unmergeable(ValueError):
    """A run of some controls that cannot go into the record given: other settings, or no control to run."""


def encoders() -> list:
    """The controls in the record's order: the negatives, the ground truth, then the noisy one at each level."""
    return [c() for c in controls.NEGATIVE] + [controls.POSITIVE()] + [controls.NoisyBinding(n) for n in
                                                                        controls.NOISES]


def power(record: dict) -> dict[str, dict[str, int]]:
    """The noisy positive control's power curve: per binding reading, at each noise level recorded, 1 when it
    reads above chance (image and caption separately), else 0."""
    out: dict[str, dict[str, int]] = {}
    for label, found in record.items():
        if not label.startswith("control: bag + colour (x) shape, noise"):
            continue
        noise = label.rsplit(" ", 1)[-1]
        for name, entry in found["figures"].items():
            if name.rsplit(".", 1)[0] in controls.BINDING:
                out.setdefault(name, {})[noise] = int(entry["reading"] == "above chance")
    return out


def _ordered(record: dict) -> dict:
    """The record's controls in ``encoders()``'s order, whatever order they were run in."""
    order = [e.label for e in encoders()]
    return dict(sorted(record.items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))


def run(command: str, write, n_colors: int = 8, n_shapes: int = 3, draws: int = 500, renders: int = 8,
        widths: tuple[int, ...] = (16, 64, 256), only: str | None = None, previous: dict | None = None) -> dict:
    """Every control's figures (or only those whose label holds ``only``, each then with its own command, merged
    into ``previous``, a record at the same grid and settings), written (``write(report)``) after each control, so a
    long run keeps what it did."""
    settings = {"grid": [n_colors, n_shapes], "draws": draws, "renders": renders}
    if previous is not None and any(previous.get(k) != v for k, v in settings.items()):
        raise Unmergeable(f"the record to merge into was run at {[previous.get(k) for k in settings]}, "
                         f"not at {list(settings.values())} (grid, draws, renders)")
    record: dict[str, dict] = dict(previous["controls"]) if previous else {}
    report = {"command": previous["command"] if previous else command, **settings, "controls": record, "power": {}}
    chosen = [e for e in encoders() if only is None or only in e.label]
    if not chosen:
        raise Unmergeable(f"no control's label holds {only!r}: {[e.label for e in encoders()]}")
    for encoder in chosen:
        start = time.perf_counter()
        found, info = figures(encoder, n_colors, n_shapes, draws, renders, widths)
        record[encoder.label] = {"figures": {n: _brief(e) for n, e in found.items()}, "null": info,
                                 "seconds": round(time.perf_counter() - start, 1)} | (
            {"command": command} if only is not None else {})
        report["controls"] = record = _ordered(record)
        report["power"] = power(record)
        write(report)
    return report
