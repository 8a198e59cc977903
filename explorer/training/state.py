"""Resumable training state: ``last.pt`` in a run folder, written atomically, read with ``weights_only=True``."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

import torch

log = logging.getLogger(__name__)


def read(run_dir: Path, config: dict) -> dict | None:
    """``run_dir/last.pt`` when there is one, checked against ``config``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "last.pt"
    if not path.exists():
        return None
    state = torch.load(path, map_location="cpu", weights_only=True)
    if state["config"] != config:
        raise ValueError(f"{path} was made with another config; use another --run-dir or delete it")
    log.info("resuming from step %d (%s)", state["step"], path)
    return state


def apply(state: dict | None, model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> tuple[int, float, list]:
    """Load a ``read`` state into ``model`` and ``optimizer``: (step, wall seconds, losses); (0, 0.0, []) for None."""
    if state is None:
        return 0, 0.0, []
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"], state["wall_s"], state["losses"]


def resume(run_dir: Path, config: dict, model: torch.nn.Module,
           optimizer: torch.optim.Optimizer) -> tuple[int, float, list]:
    """Load ``run_dir/last.pt`` into ``model`` and ``optimizer`` when there is one: (step, wall seconds, losses)."""
    return apply(read(run_dir, config), model, optimizer)


def save(run_dir: Path, config: dict, model: torch.nn.Module, optimizer: torch.optim.Optimizer, step: int,
         wall_s: float, losses: list) -> None:
    """Write ``run_dir/last.pt`` through a temporary file, so an interruption never leaves a torn one."""
    tmp = run_dir / "last.tmp"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step, "wall_s": wall_s,
                "losses": losses, "config": config}, tmp)
    tmp.replace(run_dir / "last.pt")


def digest(model: torch.nn.Module) -> str:
    """SHA-256 of the model's weights, in state-dict order: equal digests, equal weights."""
    h = hashlib.sha256()
    for value in model.state_dict().values():
        h.update(value.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()
