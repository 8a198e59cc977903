"""Every setting of the explorer in one place: its flag, its environment variable, its default and what it sets.

An entry point (``explorer/page.py``, ``explorer/cli.py``) builds one ``Settings`` at start from the environment
(``Settings.from_env``), its flags (``add_setting_flags``) override it (``with_flags``), and it installs the result
(``use``) and passes its fields down. Library code takes values as arguments; a process-wide one (cache sizes, image
limits, the default device, the request workers, the model pool's defaults) it reads from ``current()`` when it first
needs it, never at import. Without an entry point (a notebook, a script, the tests) ``current()`` is the
environment's, read once. The README's configuration tables are ``markdown(section)`` (``scripts/readme_settings.py``
writes them).

Not settings, and read where their own tools are used: huggingface_hub's ``HF_HUB_OFFLINE`` (``load_problems.py``),
torchrun's ``WORLD_SIZE`` and ``LOCAL_RANK`` (``distributed.py``) and gradio's ``GRADIO_TEMP_DIR`` (``ui/sessions.py``
sets it for the page's server where the operator has not).
"""

from __future__ import annotations

import argparse
import os
import threading
from dataclasses import Field, dataclass, field, fields, replace
from typing import Any, Mapping, Sequence

from PIL import Image

PRECISIONS = ("auto", "native", "fp32", "bf16", "fp16")
PRECISION_HELP = ("auto: bf16 autocast on a GPU (fp16 where it has no bf16), fp32 on the CPU; native: as auto, and "
                  "bf16 for the image tower on a CPU that multiplies bf16 natively (AMX or AVX512-BF16); "
                  "fp32, bf16, fp16: that one")
SECTIONS = ("configuration", "serving")  # README's tables: the page and its models; many users on one server


def setting(default: Any, help: str, env: str | None, flag: bool = True, shown: str | None = None,
            sections: Sequence[str] = ("configuration",), choices: Sequence[str] | None = None,
            former_env: str | None = None) -> Any:
    """A field of ``Settings``: ``env`` its variable (None: a flag only), ``flag`` whether it is ``--name``,
    ``shown`` its default in words where the value alone does not say it, ``former_env`` a variable's former name,
    still read where ``env`` is not set."""
    return field(default=default, metadata={"help": help, "env": env, "flag": flag, "shown": shown,
                                            "sections": tuple(sections), "choices": choices,
                                            "former_env": former_env})


@dataclass(frozen=True)
class Settings:
    """The explorer's settings; a field's flag is ``--`` and its name with dashes."""

    host: str = setting("127.0.0.1", "address the page binds (127.0.0.1: this machine only)", "EXPLORER_HOST")
    port: int = setting(7860, "port the page listens on", "EXPLORER_PORT")
    share: bool = setting(False, "also open a public gradio.live link", None, shown="off: no public link unless asked")
    max_file_size: str = setting("25mb", "largest upload accepted", "EXPLORER_MAX_FILE_SIZE")
    data_root: tuple[str, ...] = setting((), "a server folder whose files Browse may read by typed path, each image "
                                             "a file names kept inside it (repeat the flag for several; the "
                                             "variable separates them with the system's path separator)",
                                         "EXPLORER_DATA_ROOTS", shown="none: the page reads no typed path, only "
                                                                      "uploads", sections=("serving",))
    uploads_mb: float = setting(2048.0, "disk Browse's unpacked .zip uploads may take, all users together (MiB): the "
                                        "least recently used is removed to make room, and all of them when the "
                                        "server stops", "EXPLORER_UPLOADS_MB", flag=False, sections=("serving",))
    table_rows: int = setting(100_000, "rows (items) one benchmark's files may hold, uploaded or on the server: a "
                                       "file holding more is refused from its metadata, or as it is read, before "
                                       "the rest is read", "EXPLORER_TABLE_ROWS", sections=("serving",))
    table_mb: float = setting(2048.0, "memory one benchmark's files may take once read, images held in a table "
                                      "included (MiB): estimated from a file's metadata or size before it is read, "
                                      "and counted as it is read", "EXPLORER_TABLE_MB", sections=("serving",))
    model: str | None = setting(None, "open_clip model name", "EXPLORER_MODEL", shown="the embedded `world-clip`")
    pretrained: str | None = setting(None, "open_clip pretrained tag, e.g. openai (needs the model hub or its cache)",
                                     "EXPLORER_PRETRAINED")
    checkpoint: str | None = setting(None, "local weights file (.safetensors or a state dict), or a shipped "
                                           "checkpoint's name (explorer/models/checkpoints.py), e.g. world-clip-finetune",
                                     "EXPLORER_CHECKPOINT")
    device: str | None = setting(None, "cpu or cuda", "EXPLORER_DEVICE", shown="`cuda` when present, else `cpu`")
    precision: str | None = setting(None, PRECISION_HELP, "EXPLORER_PRECISION", choices=PRECISIONS,
                                    shown="`native` on the page and in `bench`, `auto` in the other commands")
    compile: bool = setting(False, "compile the image tower per batch bucket (CUDA graphs on a GPU), warmed in the "
                                   "background", "EXPLORER_COMPILE")
    zoo_dir: str | None = setting(None, "folder of the model zoo's weights files that no hub serves (docs/zoo.md)",
                                  "EXPLORER_ZOO_DIR", flag=False, shown="`~/.cache/explorer/zoo`")
    sam_checkpoint: str | None = setting(None, "segment-anything checkpoint: adds SAM regions to the crops of the "
                                               "methods that read it (their MethodInfo.settings)",
                                         "EXPLORER_SAM_CHECKPOINT", shown="none: multi-scale crops alone")
    view: str = setting("whole", "what of a picture every method reads: whole (a picture that is not square padded "
                                 "to a square with its own background, a small drawing enlarged, the rest as they "
                                 "are) or raw (the picture as it is: the model's preprocess centre-crops it)",
                        "EXPLORER_VIEW", choices=("whole", "raw"))
    log_level: str = setting("INFO", "how much the log says: DEBUG, INFO, WARNING or ERROR", "EXPLORER_LOG_LEVEL")
    max_side: int = setting(1024, "longest side an image keeps after loading, in pixels (larger ones are "
                                  "downscaled)", "EXPLORER_MAX_SIDE", flag=False)
    max_pixels: int = setting(2 * Image.MAX_IMAGE_PIXELS, "pixels an image may have before it is refused unread",
                              "EXPLORER_MAX_PIXELS", flag=False,
                              shown=f"`{2 * Image.MAX_IMAGE_PIXELS}` (twice Pillow's own guard)")
    concurrency: int = setting(2, "analyzes, model loads, benchmark browsing and binding runs at once, all users "
                                  "together; the rest wait in the queue", "EXPLORER_CONCURRENCY",
                               sections=("serving",))
    light_concurrency: int = setting(8, "previews, swaps and redrawing of the method tabs: a separate limit, so they "
                                        "never wait behind analyzes", "EXPLORER_LIGHT_CONCURRENCY", flag=False,
                                     sections=("serving",))
    queue_size: int = setting(64, "requests waiting before a new one is told the server is busy",
                              "EXPLORER_QUEUE_SIZE", sections=("serving",))
    time_limit: float = setting(120.0, "seconds a heavy request may take before its page gets a message instead of "
                                       "a result", "EXPLORER_TIME_LIMIT", sections=("serving",))
    workers: int = setting(8, "threads that run the time-limited requests, all users together", "EXPLORER_WORKERS",
                           flag=False, sections=("serving",))
    max_models: int = setting(4, "models kept loaded in the shared pool", "EXPLORER_MAX_MODELS",
                              sections=("serving",))
    model_budget_mb: float = setting(8192.0, "memory the pooled models' weights may take (MiB)",
                                     "EXPLORER_MODEL_BUDGET_MB", sections=("serving",))
    cache_size: int = setting(512, "images' states kept in memory, and captions' features per model",
                              "EXPLORER_CACHE_SIZE", flag=False, sections=SECTIONS)
    image_states_mb: float = setting(1024.0, "memory the images' states may take: each image's features, regions, "
                                             "region embeddings, scores and maps, all models together (MiB)",
                                     "EXPLORER_IMAGE_STATES_MB", flag=False, sections=SECTIONS)
    crop_cache_mb: float = setting(32.0, "crop matrices kept (each box size's pair, which cut and resize a crop), "
                                         "all images and models together (MiB)", "EXPLORER_CROP_CACHE_MB", flag=False,
                                   sections=SECTIONS, former_env="EXPLORER_VIEW_CACHE_MB")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """The defaults, with each variable set in ``environ`` in place of its field's default."""
        return cls(**{f.name: parse(f, environ[env]) for f in fields(cls) if (env := set_variable(f, environ))})

    def with_flags(self, args: argparse.Namespace, names: Sequence[str]) -> Settings:
        """These settings with the flags ``names`` as ``args`` holds them (their defaults were these settings)."""
        given = {name: getattr(args, name) for name in names}
        return replace(self, **{name: tuple(v) if many(FIELDS[name]) else v for name, v in given.items()})


FIELDS: dict[str, Field] = {f.name: f for f in fields(Settings)}
MODEL_FLAGS = ("model", "pretrained", "checkpoint", "device", "precision", "compile", "view")  # every model command's


def kind(f: Field) -> type:
    """The type a field's flag and variable are read as (each item's, for a field of several)."""
    return next((t for t in (bool, int, float) if f.type == t.__name__), str)


def many(f: Field) -> bool:
    """Whether a field holds several values: its flag repeats, its variable separates them with ``os.pathsep``."""
    return str(f.type).startswith("tuple")


def parse(f: Field, raw: str) -> Any:
    """A variable's text as its field's value (a switch is on when set to 1)."""
    read = kind(f)
    if many(f):
        return tuple(read(part) for part in raw.split(os.pathsep) if part)
    return raw == "1" if read is bool else read(raw)


def set_variable(f: Field, environ: Mapping[str, str]) -> str | None:
    """The variable of ``f`` that ``environ`` sets: its own, else its former name; None where neither is set."""
    return next((env for env in (f.metadata["env"], f.metadata["former_env"]) if env and env in environ), None)


def variable(f: Field) -> str:
    """A field's environment variable as it is set: ``EXPLORER_PORT``, ``EXPLORER_COMPILE=1`` for a switch."""
    return f"{f.metadata['env']}=1" if kind(f) is bool else f.metadata["env"]


def add_setting_flags(parser: argparse.ArgumentParser, settings: Settings, names: Sequence[str],
                      notes: Mapping[str, str] | None = None, **defaults: Any) -> None:
    """A flag for each setting in ``names``, its default the setting's value (else ``defaults``' for a None one);
    ``notes`` adds a sentence to a flag's help where its entry point has more to say (why its default is its own)."""
    for name in names:
        f = FIELDS[name]
        value = getattr(settings, name)
        value = defaults.get(name) if value is None else value
        said = (f.metadata["shown"] or "none") if value in (None, ()) else shown(value)
        env = f"; env {variable(f)}" if f.metadata["env"] else ""
        note = f". {notes[name]}" if notes and name in notes else ""
        text = f"{f.metadata['help']} (default {said.replace('`', '')}{env}){note}"
        options: dict[str, Any] = {"default": value, "help": text.replace("%", "%%")}
        if many(f):  # argparse appends to a copy of a list default
            options |= {"default": list(value), "action": "append", "type": kind(f)}
        elif kind(f) is bool:
            options["action"] = "store_true"
        else:
            options |= {"type": kind(f), "choices": f.metadata["choices"]}
        parser.add_argument("--" + name.replace("_", "-"), **options)


def markdown(section: str) -> str:
    """README's table of the settings of ``section``: flag, environment variable, default, what it sets."""
    lines = ["| flag | environment | default | what it sets |", "|---|---|---|---|"]
    for f in fields(Settings):
        if section not in f.metadata["sections"]:
            continue
        flag = f"`--{f.name.replace('_', '-')}`" if f.metadata["flag"] else ""
        env = f"`{variable(f)}`" if f.metadata["env"] else ""
        env += f" (its former name `{f.metadata['former_env']}` is still read)" if f.metadata["former_env"] else ""
        lines.append(f"| {flag} | {env} | {f.metadata['shown'] or shown(f.default)} | {f.metadata['help']} |")
    return "\n".join(lines)


def shown(value: Any) -> str:
    """A default as the README writes it: ``2``, ``32``, ``127.0.0.1``, none, off."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (tuple, list)):
        return ", ".join(f"`{v}`" for v in value) or "none"
    return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"


_current: Settings | None = None
_lock = threading.Lock()


def use(settings: Settings) -> Settings:
    """Make ``settings`` this process's (an entry point does, once its flags are read)."""
    global _current
    with _lock:
        _current = settings
    return settings


def current() -> Settings:
    """This process's settings: the entry point's, else the environment's, read on the first call."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = Settings.from_env(os.environ)
    return _current
