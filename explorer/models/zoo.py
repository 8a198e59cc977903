"""The compositional model zoo: the models researchers compare, by the names their authors publish, each with how it
loads (an open_clip pretrained tag, an open_clip model on the hub, a weights file on the hub or on this machine, or
not at all: LoRA on a fork), where it can load from here, and its reported SugarCrepe and Winoground figures with
their source (docs/zoo.md)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from explorer.core import settings
from explorer.models.loader import EncoderSpec
from explorer.models.model_errors import ModelUnavailable

log = logging.getLogger(__name__)
HF_HUB = "hf-hub:"  # open_clip's prefix of a model whose config and weights live in a hub repository
CACHED, LOCAL, HUB, CANNOT = "cached here", "a local file", "needs the model hub", "cannot load here"
VL_COMPO = "ytaek-oh/vl_compo results.csv"  # Oh et al. 2024: 274 CLIP checkpoints on 12 compositional benchmarks
FSC_RESULTS = "ytaek-oh/fsc-clip assets/extended_results.csv"
ZOO_FOLDER = "the zoo folder (the setting zoo_dir, EXPLORER_ZOO_DIR)"  # said in its place: no server path on a page


def zoo_dir() -> Path:
    """Where the zoo's weights files that no hub serves are looked for: the setting ``zoo_dir``
    (``EXPLORER_ZOO_DIR``), else ``~/.cache/explorer/zoo``."""
    return Path(settings.current().zoo_dir or "~/.cache/explorer/zoo").expanduser()


@dataclass(frozen=True)
class ZooEntry:
    """One model: ``how`` it loads (``open_clip``: ``model`` with the pretrained tag ``weights``; ``hf-hub``: the
    open_clip model ``weights`` on the hub; ``hub-file``: ``model`` with the file ``weights`` = REPO/FILE on the hub;
    ``hub-dir``: ``model`` with the weights file open_clip picks in the hub repository ``weights``, as it does from
    a downloaded folder; ``file``: ``model`` with the file ``weights`` in ``zoo_dir()``; ``fork``: none), where to
    get it, and its reported figures (None where the source has none)."""

    name: str
    model: str
    weights: str
    how: str
    get: str  # how to get its weights, in words
    sugarcrepe: float | None = None
    winoground: float | None = None
    source: str = ""  # where the figures come from


ENTRIES = (
    ZooEntry("OpenAI ViT-B-32", "ViT-B-32", "openai", "open_clip", "open_clip downloads it", 73.0, 8.75, VL_COMPO),
    ZooEntry("OpenAI ViT-L-14", "ViT-L-14", "openai", "open_clip", "open_clip downloads it", 73.0, 8.5, VL_COMPO),
    ZooEntry("SigLIP 2 ViT-B-16", "ViT-B-16-SigLIP2", "webli", "open_clip", "open_clip downloads it"),
    ZooEntry("NegCLIP", "ViT-B-32", "negclip.pth", "file",
             "download negclip.pth from the link in mertyg/vision-language-models-are-bows' README and put it in the "
             "zoo folder", 83.7, 8.0, VL_COMPO),
    ZooEntry("CE-CLIP", "ViT-B-32", "ce-clip.pt", "file",
             "download the ViT-B-32 checkpoint its authors link (Zhang et al., 2023, CE-CLIP) and put it in the zoo "
             "folder as ce-clip.pt", 85.7, 5.25, VL_COMPO),
    ZooEntry("FSC-CLIP", "ViT-B-32", "ytaek-oh/fsc-clip/coco_fsc-clip-ViT-B-32.pt", "hub-file",
             "the hub's ytaek-oh/fsc-clip, file coco_fsc-clip-ViT-B-32.pt", 85.1, 9.5, FSC_RESULTS),
    ZooEntry("CLIC", "ViT-B-32", "hf-hub:nmndeep/CLIC-ViT-B-32-224-CogVLM", "hf-hub",
             "the hub's nmndeep/CLIC-ViT-B-32-224-CogVLM"),
    ZooEntry("SPEC-CLIP", "ViT-B-32", "wjpoom/SPEC-CLIP-ViT-B-32", "hub-dir",
             "the hub's wjpoom/SPEC-CLIP-ViT-B-32 (its folder, read as its README has open_clip read it)"),
    ZooEntry("DAC-LLM", "ViT-B-32", "", "fork",
             "DAC's weights are LoRA on a fork of CLIP's code (SivanDoveh/DAC): evaluate it there", 85.3, 4.75, VL_COMPO),
    ZooEntry("DAC-SAM", "ViT-B-32", "", "fork",
             "DAC's weights are LoRA on a fork of CLIP's code (SivanDoveh/DAC): evaluate it there", 83.8, 8.5, VL_COMPO),
    ZooEntry("TSVLC", "ViT-B-32", "", "fork",
             "TSVLC's weights are LoRA on a fork of CLIP's code (SivanDoveh/TSVLC): evaluate it there (RB negatives)",
             76.9, 6.75, VL_COMPO),
)
ZOO: dict[str, ZooEntry] = {e.name: e for e in ENTRIES}


def _in_hub_cache(repo: str, *files: str) -> str | None:
    """The cached path of the first of ``files`` of hub ``repo`` in this machine's huggingface cache, else None."""
    from huggingface_hub import try_to_load_from_cache

    for file in files:
        found = try_to_load_from_cache(repo, file)
        if isinstance(found, str):
            return found
    return None


def _open_clip_cached(model: str, tag: str) -> bool:
    import open_clip

    cfg = open_clip.get_pretrained_cfg(model, tag) or {}
    repo, file = os.path.split(cfg.get("hf_hub", ""))  # "org/repo/" or "org/repo/file.bin"
    if repo and _in_hub_cache(repo, *([file] if file else ["open_clip_model.safetensors",
                                                              "open_clip_pytorch_model.bin"])):
        return True
    url = cfg.get("url", "")
    return bool(url) and (Path("~/.cache/clip").expanduser() / os.path.basename(url)).is_file()


def availability(name: str) -> tuple[str, str]:
    """(mark, why): whether the entry loads here (``CACHED``, ``LOCAL``), needs the hub (``HUB``) or cannot load
    (``CANNOT``), and in words where its weights are or how to get them."""
    e = ZOO[name]
    if e.how == "fork":
        return CANNOT, e.get
    if e.how == "file":
        path = zoo_dir() / e.weights
        return (LOCAL, f"{e.weights} in {ZOO_FOLDER}") if path.is_file() else \
            (CANNOT, f"no {e.weights} in {ZOO_FOLDER}: {e.get}")
    if e.how == "hf-hub":
        found = _in_hub_cache(e.weights[len(HF_HUB):], "open_clip_config.json")
        return (CACHED, found) if found else (HUB, e.get)
    if e.how == "hub-file":
        repo, file = e.weights.rsplit("/", 1)
        found = _in_hub_cache(repo, file)
        return (CACHED, found) if found else (HUB, e.get)
    if e.how == "hub-dir":
        found = _hub_folder_weights(e.weights)
        return (CACHED, found) if found else (HUB, e.get)
    return (CACHED, "open_clip's cache") if _open_clip_cached(e.model, e.weights) else (HUB, e.get)


def menu_label(name: str) -> str:
    """The entry as the model menu shows it: its name and its mark."""
    return f"{name} \u00b7 {availability(name)[0]}"


def spec(name: str, device: str | None = None, **options) -> EncoderSpec:
    """The ``EncoderSpec`` that loads the entry; ``ModelUnavailable`` saying why and how to get it where it cannot
    load."""
    e = ZOO[name]
    mark, why = availability(name)
    if mark == CANNOT:
        raise ModelUnavailable(f"{name} cannot load here: {why}.")
    from explorer.models.load_problems import hub_resolves

    if mark == HUB and e.how != "open_clip" and not hub_resolves():  # at once, not after the hub's time-outs
        raise ModelUnavailable(f"{name} needs the model hub, which cannot be reached from here ({e.get}): fetch its "
                               f"weights where it can be reached and pass the file with --checkpoint.")
    if e.how == "open_clip":
        return EncoderSpec(e.model, e.weights, device=device, **options)
    if e.how == "hf-hub":
        return EncoderSpec(e.weights, device=device, **options)
    if e.how == "file":
        return EncoderSpec(e.model, checkpoint=plain_weights(zoo_dir() / e.weights), device=device, **options)
    if mark != CACHED:  # a hub file or folder not yet here: fetched once, where the hub can be reached
        from huggingface_hub import hf_hub_download, snapshot_download

        try:
            if e.how == "hub-dir":
                why = _weights_in(Path(snapshot_download(e.weights))) or ""
            else:
                why = hf_hub_download(*e.weights.rsplit("/", 1))
        except Exception as exc:  # offline, or the hub refuses: one sentence
            raise ModelUnavailable(f"{name} needs the model hub ({e.get}): {type(exc).__name__}.") from exc
        if not why:
            raise ModelUnavailable(f"{name}: the hub's {e.weights} holds no weights file open_clip reads")
    return EncoderSpec(e.model, checkpoint=plain_weights(Path(why)), device=device, **options)


def _weights_in(folder: Path) -> str | None:
    """The weights file open_clip picks in a model's folder (its order of names, safetensors first), else None."""
    from open_clip.factory import _find_checkpoint_in_dir

    return _find_checkpoint_in_dir(folder)


def _hub_folder_weights(repo: str) -> str | None:
    """The weights file open_clip would pick in hub ``repo``'s folder in this machine's hub cache, else None."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return _weights_in(Path(snapshot_download(repo, local_files_only=True)))
    except (LocalEntryNotFoundError, OSError):
        return None


def _numpy_scalars() -> list:
    """What a training checkpoint's numpy scalars unpickle with (numpy 1's names and numpy 2's): building a number
    from its dtype and bytes, which runs no code."""
    import numpy as np

    scalar = np._core.multiarray.scalar if hasattr(np, "_core") else np.core.multiarray.scalar
    return [scalar, (scalar, "numpy.core.multiarray.scalar"), (scalar, "numpy._core.multiarray.scalar"), np.dtype,
            *(type(np.dtype(t)) for t in "?bBhHiIlLqQefdgFDG")]


def plain_weights(path: Path) -> Path:
    """``path`` where open_clip reads it as it is (safetensors, or a pickle of tensors alone), else its weights
    written once as safetensors in the zoo folder's ``converted/``: an open_clip training checkpoint (NegCLIP's,
    CE-CLIP's: ``{"epoch", "name", "state_dict": {"module." + key}, "optimizer", "scaler"}``) whose optimizer holds
    the numpy scalars open_clip's learning rate schedule writes, which torch's safe loading refuses; anything else
    that could run code stays refused (``ModelUnavailable``)."""
    import pickle

    import torch

    from explorer.models.load_problems import checkpoint_problem

    if path.suffix == ".safetensors" or not path.is_file():
        return path  # a missing file is said by the loader, naming it
    converted = zoo_dir() / "converted" / f"{path.name}.safetensors"
    if converted.is_file() and converted.stat().st_mtime_ns >= path.stat().st_mtime_ns:
        return converted
    try:
        torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        return path
    except (pickle.UnpicklingError, RuntimeError) as exc:
        if "numpy" not in str(exc):
            return path  # not a matter of numpy scalars: the loader says what it is
    try:
        with torch.serialization.safe_globals(_numpy_scalars()):
            saved = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # something besides numpy scalars: refused, in a sentence
        raise ModelUnavailable(f"Could not read the weights file {path.name}: {checkpoint_problem(exc)}.") from exc
    state = saved.get("state_dict", saved) if isinstance(saved, dict) else saved
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ModelUnavailable(f"{path.name} holds no state dict of tensors (its 'state_dict', or the file itself)")
    from safetensors.torch import save_file

    converted.parent.mkdir(parents=True, exist_ok=True)
    partial = converted.with_name(converted.name + ".partial")
    save_file({k.removeprefix("module."): v.contiguous() for k, v in state.items()}, str(partial))
    partial.replace(converted)
    log.info("%s: its weights written as %s (its optimizer's numpy scalars left out)", path.name, converted)
    return converted
