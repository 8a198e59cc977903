"""Where a shipped model's seed stands among its recipe's seeds: how each seed's global cosine binds attribute swaps,
and how each recognises held-out objects on ``val`` (what the choice of seed read), from each seed's eval reports.

``standing`` turns the reports into figures a training record keeps (``scripts/record_seeds.py``);
``sentence`` says in words where the kept seed stands, ``section`` is the card's paragraph and ``brief`` the page's.
"""

from __future__ import annotations

import json
from pathlib import Path

SWAP_SPLITS = ("id", "heldout")  # the attribute group score of the global cosine, in and out of distribution
CHOICE_SPLIT = "val-heldout"  # the choice of seed read world-single top-1 here (docs/sgi-world.md)


def standing(reports: dict[str, tuple[Path, Path]]) -> dict[str, dict]:
    """Each seed's global-cosine attribute group score per split and its ``val-heldout`` top-1, each with its 95%
    interval, from its swap report (``eval --benchmark world``) and its single-object report (``world-single``)."""
    out = {}
    for seed, (swaps_path, single_path) in reports.items():
        swaps = json.loads(Path(swaps_path).read_text())["results"]["global"]
        single = json.loads(Path(single_path).read_text())["results"]["global"][CHOICE_SPLIT]["single"]
        out[str(seed)] = {
            "attribute_group": {s: {"value": swaps[s]["attribute"]["group"], "ci": swaps[s]["attribute"]["ci"]["group"]}
                                for s in SWAP_SPLITS},
            "choice_top1": {"value": single["top1"], "ci": single["ci"]["top1"]},
            "reports": [str(swaps_path), str(single_path)]}
    return out


def _interval(ci: list[float]) -> str:
    return f"[{ci[0]:g}, {ci[1]:g}]"


def _group(seeds: dict[str, dict], seed: str, split: str = "heldout") -> str:
    """Seed ``seed``'s global-cosine attribute group score on ``split``, as the card and the page print it."""
    return f"{seeds[seed]['attribute_group'][split]['value']:g}"


def _rank(seeds: dict[str, dict], kept: str) -> str:
    values = sorted(seeds[s]["attribute_group"]["heldout"]["value"] for s in seeds)
    mine = seeds[kept]["attribute_group"]["heldout"]["value"]
    return "worst" if mine == values[0] else "best" if mine == values[-1] else "neither best nor worst"


def sentence(seeds: dict[str, dict], kept: int | str) -> str:
    """Where seed ``kept`` stands among ``seeds`` (``standing``'s figures), in one paragraph of markdown."""
    kept = str(kept)
    others = [s for s in sorted(seeds) if s != kept]

    def against(split: str) -> str:
        return " and ".join(f"{_group(seeds, s, split)} (seed {s})" for s in others)

    top1 = seeds[kept]["choice_top1"]
    return (f"Of the {len(seeds)} seeds, trained alike but for `--seed`, seed {kept}'s global cosine binds "
            f"attribute swaps {_rank(seeds, kept)}: group score {_group(seeds, kept)} "
            f"{_interval(seeds[kept]['attribute_group']['heldout']['ci'])} on held-out objects against "
            f"{against('heldout')}, {_group(seeds, kept, 'id')} in distribution against {against('id')}. It was kept "
            f"because the choice of seed, fixed before the others were measured, reads recognition, not binding: "
            f"single-object top-1 on `{CHOICE_SPLIT}`, {top1['value']:g} {_interval(top1['ci'])} against "
            + " and ".join(f"{seeds[s]['choice_top1']['value']:g} (seed {s})" for s in others) + ".")


def origin_seeds(record: dict) -> tuple[dict, dict] | None:
    """The lineage origin of a training record and its seeds' standing, or None where the record names none."""
    origin = record.get("lineage", [{}])[0]
    return (origin, origin["seeds"]) if "seeds" in origin else None


def section(record: dict) -> str:
    """The model card's paragraph on the seed its lineage started from, or "" for a record that names no seeds."""
    found = origin_seeds(record)
    if found is None:
        return ""
    origin, seeds = found
    kept = origin["config"]["seed"]
    return (f"## Among its recipe's seeds\nIts lineage starts from {origin['what']}, seed {kept} of a from-scratch "
            f"recipe trained with {len(seeds)} seeds. {sentence(seeds, kept)} The warm starts after it were run once, "
            f"from that seed, so the seed spread of the whole chain is not measured.\n\n")


def brief(record: dict) -> str:
    """One sentence for the page: the seed the embedded model descends from and why it was kept ("" if unrecorded)."""
    found = origin_seeds(record)
    if found is None:
        return ""
    origin, seeds = found
    kept = str(origin["config"]["seed"])
    others = " and ".join(_group(seeds, s) for s in sorted(seeds) if s != kept)
    return (f"The default model, `world-clip`, is trained by this project on a synthetic world of flat shapes. Of "
            f"{len(seeds)} seeds of its recipe it descends from the one whose global cosine binds attribute swaps "
            f"{_rank(seeds, kept)} (group score on held-out objects {_group(seeds, kept)} against {others}): seeds are "
            f"chosen on recognising held-out objects, not on binding. Its card says more.")
