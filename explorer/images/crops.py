"""Crops as tensor operations: what the encoder sees of many boxes of one image, in batches on its device.

Each crop (``mask``: the whole frame, filled outside the box; ``resize``: the box padded to a square) is resized,
cropped or padded and normalized exactly as the loaded model's open_clip preprocess does to a PIL crop: PIL's
resampling weights (bicubic or bilinear, antialiased) as matrices, one pass per axis, rounded to 8 bits between
and after the passes as PIL does. Every pass is linear in the box's pixels, so a crop costs two batched matrix
products over its box alone and no PIL image is built.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from open_clip.transform import PreprocessCfg
from PIL import Image

from explorer.core import cancel, settings
from explorer.core.cache import LRUCache
from explorer.images.regions import Box, CropMode


@dataclass(frozen=True)
class Preprocessing:
    """The parts of an open_clip preprocess config the crops reproduce."""

    size: tuple[int, int]  # (height, width) the model reads
    interpolation: str  # "bicubic" or "bilinear"
    resize_mode: str  # "shortest", "longest" or "squash"
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    pad_fill: int  # what center_crop_or_pad fills with when the resized crop is smaller than the input

    @classmethod
    def of(cls, model: torch.nn.Module) -> Preprocessing:
        """Read from ``model.visual.preprocess_cfg``, as open_clip builds the model's own transform."""
        return cls.from_cfg(PreprocessCfg(**model.visual.preprocess_cfg))

    @classmethod
    def from_cfg(cls, cfg: PreprocessCfg) -> Preprocessing:
        """What ``open_clip.transform.image_transform_v2(cfg, is_train=False)`` does."""
        size = (cfg.size, cfg.size) if isinstance(cfg.size, int) else tuple(cfg.size)
        interpolation = "bilinear" if cfg.interpolation == "bilinear" else "bicubic"  # open_clip: else bicubic
        if cfg.resize_mode == "shortest" and size[0] != size[1]:
            interpolation = "bicubic"  # open_clip's ResizeKeepRatio there is made without the interpolation
        fill = cfg.fill_color if cfg.resize_mode == "longest" else 0  # torchvision's CenterCrop pads with 0
        return cls(size, interpolation, cfg.resize_mode, tuple(cfg.mean), tuple(cfg.std),  # type: ignore[arg-type]
                   fill)

    def resized(self, height: int, width: int) -> tuple[int, int]:
        """The (height, width) open_clip's resize step gives a crop of this size."""
        th, tw = self.size
        if self.resize_mode == "squash":
            return th, tw
        if self.resize_mode == "shortest" and th == tw:  # torchvision Resize(int): the short side to the size
            short, long = sorted((height, width))
            new = (th, int(th * long / short))
            return new if height <= width else new[::-1]
        ratios = (height / th, width / tw)  # ResizeKeepRatio
        ratio = max(ratios) if self.resize_mode == "longest" else min(ratios)
        return round(height / ratio), round(width / ratio)


def _filter(x: np.ndarray, interpolation: str) -> np.ndarray:
    x = np.abs(x)
    if interpolation == "bilinear":
        return np.clip(1.0 - x, 0.0, None)
    a = -0.5  # PIL's bicubic
    near = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    far = (((x - 5.0) * x + 8.0) * x - 4.0) * a
    return np.where(x < 1.0, near, np.where(x < 2.0, far, 0.0))


def resample_weights(length: int, out: int, interpolation: str, rows: range | None = None) -> np.ndarray:
    """PIL's antialiased resampling of ``length`` samples to ``out`` as an (out, length) matrix, rows summing to 1;
    with ``rows``, those output rows alone (each computed as in the whole matrix)."""
    support = 1.0 if interpolation == "bilinear" else 2.0
    scale = length / out
    filterscale = max(scale, 1.0)
    support *= filterscale
    rows = range(out) if rows is None else rows
    weights = np.zeros((len(rows), length))
    for k, o in enumerate(rows):
        center = (o + 0.5) * scale
        lo, hi = max(int(center - support + 0.5), 0), min(int(center + support + 0.5), length)
        w = _filter((np.arange(lo, hi) - center + 0.5) / filterscale, interpolation)
        weights[k, lo:hi] = w / w.sum() if w.sum() != 0 else w
    return weights


@functools.cache
def _axis_cache() -> LRUCache[tuple[np.ndarray, np.ndarray]]:
    """The crops' axis matrices, all images together, within the ``crop_cache_mb`` setting."""
    budget = settings.current().crop_cache_mb
    return LRUCache(max_bytes=int(budget * 2**20), weigh=lambda pair: sum(a.nbytes for a in pair))


def axis_matrix(length: int, resized: int, out: int, interpolation: str) -> tuple[np.ndarray, np.ndarray]:
    """One axis of a crop: resample ``length`` to ``resized``, then center-crop or pad to ``out``; kept by sizes in
    ``_axis_cache()`` (the boxes of one image share many sizes).

    Returns the (out, length) matrix and which output rows are padding (all-zero rows, filled afterwards).
    """
    return _axis_cache().get_or_compute(f"{length}:{resized}:{out}:{interpolation}",
                                        lambda: _axis_matrix(length, resized, out, interpolation))


def _axis_matrix(length: int, resized: int, out: int, interpolation: str) -> tuple[np.ndarray, np.ndarray]:
    matrix, pad = np.zeros((out, length)), np.zeros(out, dtype=bool)
    if resized >= out:  # only the rows the crop keeps: a thin crop's resized length is out times its aspect
        top = int(round((resized - out) / 2.0))
        matrix[:] = resample_weights(length, resized, interpolation, range(top, top + out))
    else:
        left = (out - resized) // 2
        matrix[left : left + resized] = resample_weights(length, resized, interpolation)
        pad[:left], pad[left + resized :] = True, True
    return matrix, pad


@dataclass(frozen=True)
class _Axis:
    """Where a box lies on one axis: the crop's length, the box's offset in the crop, its source start and length."""

    length: int
    offset: int
    start: int
    size: int


def _axes(box: Box, image_size: tuple[int, int], mode: CropMode, window: Box | None = None) -> tuple[_Axis, _Axis]:
    """The (y, x) axes of a box's crop: the whole frame (``mask``), or ``window`` (a mask crop of the part of the
    frame it frames, reaching past the frame where it must: fill there too), or the box centred in a square
    (``resize``)."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    if mode == "mask" and window is not None:
        wx0, wy0, wx1, wy1 = window
        return _Axis(wy1 - wy0, y0 - wy0, y0, h), _Axis(wx1 - wx0, x0 - wx0, x0, w)
    if mode == "mask":
        width, height = image_size
        return _Axis(height, y0, y0, h), _Axis(width, x0, x0, w)
    if mode != "resize":
        raise ValueError(f"unknown crop mode {mode!r}: use 'resize' or 'mask'")
    side = max(w, h)
    return _Axis(side, (side - h) // 2, y0, h), _Axis(side, (side - w) // 2, x0, w)


def _round8(x: torch.Tensor) -> torch.Tensor:
    """PIL's 8-bit result of a resampling pass: rounded half up, clipped to 0..255."""
    return torch.floor(x + 0.5).clamp_(0, 255)


def image_tensor(image: Image.Image, device: str | torch.device) -> torch.Tensor:
    """The image's RGB pixels as a float (3, H, W) tensor of 0..255 values on the device: sent once."""
    pixels = torch.from_numpy(np.asarray(image.convert("RGB")).copy())
    return pixels.to(device).permute(2, 0, 1).float()


def crop_batch(
    pixels: torch.Tensor, boxes: Sequence[Box], mode: CropMode, fill: Sequence[int], prep: Preprocessing,
    windows: Sequence[Box | None] | None = None,
) -> torch.Tensor:
    """The normalized model input (N, 3, H, W) of every box's crop, on the pixels' device; ``windows``: for a mask
    crop, the part of the frame it shows where not the whole frame (each box inside its window).

    Boxes whose crops share a geometry are made together: a masking where the crop is the image, filled outside
    the box, and the preprocess keeps it as it is; else two batched matrix products over the boxes' pixels.
    """
    device = pixels.device
    fill_t = torch.tensor([float(v) for v in fill], device=device).view(1, 3, 1, 1)
    mean, std = (torch.tensor(v, device=device).view(1, 3, 1, 1) for v in (prep.mean, prep.std))
    scale, bias = 1 / (255.0 * std), -mean / std  # 0..255 -> the model's input: ToTensor, then Normalize
    windows = windows or [None] * len(boxes)
    axes = [_axes(b, (pixels.shape[2], pixels.shape[1]), mode, w) for b, w in zip(boxes, windows)]
    groups: dict[tuple[int, int, int, int], list[int]] = {}
    for i, (ay, ax) in enumerate(axes):
        groups.setdefault((ay.length, ay.size, ax.length, ax.size), []).append(i)
    out = torch.empty(len(boxes), 3, *prep.size, device=device)
    centred = pixels - fill_t[0]
    for members in groups.values():
        cancel.check()  # a photo's crops come in dozens of geometries: a page's request given up stops between two
        run = members == list(range(members[0], members[-1] + 1))  # multi-scale crops come scale by scale
        into = out[members[0] : members[-1] + 1] if run else torch.empty(len(members), *out.shape[1:], device=device)
        group = [axes[i] for i in members]
        if _placeable(group, prep) and (group[0][0].length, group[0][1].length) == tuple(pixels.shape[1:]):
            torch.mul(centred.unsqueeze(0) * scale, _placement_mask(group, device), out=into)
            into.add_(fill_t * scale + bias)
        else:
            torch.addcmul(bias, _resampled(centred, group, prep, fill_t), scale, out=into)
        if not run:
            out[members] = into
    return out


def _placeable(axes: list[tuple[_Axis, _Axis]], prep: Preprocessing) -> bool:
    """Whether these crops are their boxes where they lie in the image, and the preprocess keeps them as they are."""
    lengths = (axes[0][0].length, axes[0][1].length)
    where = all(a.offset == a.start for pair in axes for a in pair)  # mask crops
    return where and lengths == prep.resized(*lengths) == prep.size


def _resampled(
    centred: torch.Tensor, axes: list[tuple[_Axis, _Axis]], prep: Preprocessing, fill: torch.Tensor
) -> torch.Tensor:
    """Crops (g, 3, H, W) in 0..255 of boxes sharing one geometry; ``centred`` is the image less the fill.

    Only the output rows and columns a box's pixels reach are computed (the rest of a mask crop is fill).
    """
    device = centred.device
    (ay, ax), (height, width) = axes[0], prep.size
    ry, rx = prep.resized(ay.length, ax.length)
    (my, pad_y), (mx, pad_x) = (axis_matrix(ay.length, ry, height, prep.interpolation),
                                axis_matrix(ax.length, rx, width, prep.interpolation))
    (wy, at_y), (wx, at_x) = _window(my, [a for a, _ in axes], device), _window(mx, [a for _, a in axes], device)
    rows = torch.tensor([[a.start + k for k in range(a.size)] for a, _ in axes], device=device)
    cols = torch.tensor([[a.start + k for k in range(a.size)] for _, a in axes], device=device)
    crops = centred[:, rows[:, :, None], cols[:, None, :]].transpose(0, 1)  # (g, 3, box h, box w)
    across = _round8(crops @ wx.transpose(1, 2).unsqueeze(1) + fill) - fill  # PIL resamples x first
    block = _round8(wy.unsqueeze(1) @ across + fill)
    if block.shape[2:] == (height, width):
        out = block
    else:
        out = fill.expand(len(axes), 3, height, width).clone()
        out[torch.arange(len(axes), device=device)[:, None, None], :, at_y[:, :, None], at_x[:, None, :]] = (
            block.permute(0, 2, 3, 1))
    if pad_y.any() or pad_x.any():
        out[:, :, torch.from_numpy(pad_y).to(device)] = prep.pad_fill
        out[:, :, :, torch.from_numpy(pad_x).to(device)] = prep.pad_fill
    return out


def _window(matrix: np.ndarray, axes: list[_Axis], device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Each box's weights (g, k, box size) over the k output rows its pixels reach, and those rows (g, k).

    k is one length for all boxes of the group: the longest reach, each window moved to fit the output.
    """
    parts = [matrix[:, a.offset : a.offset + a.size] for a in axes]
    reach = [np.flatnonzero(np.abs(p).sum(axis=1)) for p in parts]
    k = max(int(r[-1] - r[0] + 1) if r.size else 1 for r in reach)
    starts = [min(int(r[0]) if r.size else 0, len(matrix) - k) for r in reach]
    weights = np.stack([p[s : s + k] for p, s in zip(parts, starts)])
    at = torch.tensor(starts, device=device)[:, None] + torch.arange(k, device=device)
    return torch.from_numpy(weights).float().to(device), at


def _placement_mask(axes: list[tuple[_Axis, _Axis]], device: torch.device) -> torch.Tensor:
    """(g, 1, h, w): 1 inside each box, 0 outside (crops that are their boxes where they lie in the image)."""
    spans = [torch.tensor([[a[k].start, a[k].start + a[k].size] for a in axes], device=device) for k in (0, 1)]
    at = [torch.arange(axes[0][k].length, device=device) for k in (0, 1)]
    inside_y, inside_x = (((at[k] >= spans[k][:, :1]) & (at[k] < spans[k][:, 1:])).float() for k in (0, 1))
    return (inside_y[:, :, None] * inside_x[:, None, :]).unsqueeze(1)
