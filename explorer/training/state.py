"""Resumable training state: ``last.pt`` in a run folder, written atomically, read with ``weights_only=True``."""

from __future__ import annotations

import logging
from pathlib import Path

import torch

log = logging.getLogger(__name__)


def resume(run_dir: Path, config: dict, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> tuple[int, float, list]:
    """Load ``run_dir/last.pt`` into ``model`` and ``optimizer`` when there is one: (step, wall seconds, losses)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "last.pt"
    if not path.exists():
        return 0, 0.0, []
    state = torch.load(path, map_location="cpu", weights_only=True)
    if state["config"] != config:
        raise ValueError(f"{path} was made with another config; use another --run-dir or delete it")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    log.info("resuming from step %d (%s)", state["step"], path)
    return state["step"], state["wall_s"], state["losses"]


def save(run_dir: Path, config: dict, model: torch.nn.Module, optimizer: torch.optim.Optimizer, step: int,
         wall_s: float, losses: list) -> None:
    """Write ``run_dir/last.pt`` through a temporary file, so an interruption never leaves a torn one."""
    tmp = run_dir / "last.tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "wall_s": wall_s,
                "losses": losses, "config": config}, tmp)
    tmp.replace(run_dir / "last.pt")
