"""What the model's global score sees of a picture: the view every method reads (``explorer.images.fit``: the whole
picture made square, or with the ``raw`` view the picture as it is), then open_clip's preprocess, which resizes it
and centre-crops (or pads) it to the model's input: under the raw view the sides of a wide picture (the top and
bottom of a tall one) never reach the model.

``model_input`` makes that picture as the view and the preprocess do (PIL's resize, then the crop or the padding,
before normalisation), with the box of the original it shows (past its edges where padded) and a sentence that says
what was cut or padded.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from explorer.images.crops import Preprocessing
from explorer.images.fit import Fit, View, fit_of

Box = tuple[int, int, int, int]
_RESAMPLE = {"bicubic": Image.Resampling.BICUBIC, "bilinear": Image.Resampling.BILINEAR}


@dataclass(frozen=True)
class Geometry:
    """Where a picture of ``size`` (width, height) goes in the model's input: the box of it that survives (x0, y0,
    x1, y1 in its pixels), the size it is resized to (width, height) and the input's size (width, height)."""

    size: tuple[int, int]
    box: Box
    resized: tuple[int, int]
    input: tuple[int, int]

    @property
    def cut(self) -> bool:
        return self.box != (0, 0, *self.size)

    @property
    def note(self) -> str:
        """One sentence: what of the picture the model does not see, and what it sees."""
        (w, h), (x0, y0, x1, y1), (iw, ih) = self.size, self.box, self.input
        into = f"{iw} x {ih}"
        if not self.cut:
            if self.resized == self.input:
                how = "is the model's input as it is" if self.size == self.input else f"is resized to {into}"
                return f"nothing is cut: the whole {w} x {h} {how}"
            rw, rh = self.resized
            return f"nothing is cut: the whole {w} x {h} is resized to {rw} x {rh} and padded to {into}"
        parts = [_sides("left", "right", x0, w - x1, w), _sides("top", "bottom", y0, h - y1, h)]
        said = " and ".join(p for p in parts if p)
        return f"{said} cut: the model sees the middle {x1 - x0} x {y1 - y0}, resized to {into}"


def _sides(first: str, second: str, a: int, b: int, length: int) -> str:
    if a <= 0 and b <= 0:
        return ""
    if a == b:
        return f"the {first} and {second} {a} px of {length} are"
    if a <= 0 or b <= 0:
        which, n = (second, b) if a <= 0 else (first, a)
        return f"the {which} {n} px of {length} are"
    return f"the {first} {a} px and the {second} {b} px of {length} are"


def _axis(length: int, resized: int, out: int) -> tuple[int, int]:
    """The span of one axis of the original that the input keeps, rounded to whole pixels."""
    if resized <= out:  # padded, or the same length: all of it
        return 0, length
    top = int(round((resized - out) / 2.0))  # torchvision's center_crop
    scale = length / resized  # each side's cut rounded on its own: a cut of 119.2 px each side is 119 px each side
    return round(top * scale), length - round((resized - top - out) * scale)


def geometry(size: tuple[int, int], prep: Preprocessing) -> Geometry:
    """Where a picture of ``size`` (width, height) goes in the input of a model preprocessed by ``prep``."""
    w, h = size
    rh, rw = prep.resized(h, w)
    ih, iw = prep.size
    (x0, x1), (y0, y1) = _axis(w, rw, iw), _axis(h, rh, ih)
    return Geometry((w, h), (x0, y0, x1, y1), (rw, rh), (iw, ih))


@dataclass(frozen=True)
class ModelInput:
    """The picture the model's global score sees (RGB, before normalisation), the box of the original that
    survives (x0, y0, x1, y1) and one sentence of what was cut."""

    picture: Image.Image
    box: Box
    note: str
    fill: tuple[int, int, int] = (0, 0, 0)  # the padding's colour, where the box reaches past the picture


def preprocessing_of(encoder: Preprocessing | object) -> Preprocessing:
    """``encoder``'s preprocessing (a ``DualEncoder`` keeps it as ``.preprocessing``), or ``encoder`` itself."""
    return encoder if isinstance(encoder, Preprocessing) else encoder.preprocessing  # type: ignore[attr-defined]


def seen_box(fit: Fit, prep: Preprocessing) -> tuple[Box, str]:
    """The box of the picture the model's input shows (its pixels; past its edges where padded) under ``fit``, and
    one sentence of what was cut or padded."""
    where = geometry((fit.box[2] - fit.box[0], fit.box[3] - fit.box[1]), prep)
    if not fit.changes:
        return where.box, where.note
    box = tuple(int(v) for v in fit.box_to_frame(where.box))
    then = f"the preprocess resizes that square to {where.input[0]} x {where.input[1]}" if not where.cut else where.note
    return box, f"{fit.note}; {then}"  # type: ignore[return-value]


def model_input(image: Image.Image, encoder: Preprocessing | object, view: View = "whole") -> ModelInput:
    """What the model's global score sees of ``image`` under ``view``, as the encoder's open_clip preprocess makes
    it of the view's picture."""
    prep = preprocessing_of(encoder)
    fit = fit_of(image, view)
    rgb = fit.picture(image).convert("RGB")
    where = geometry(rgb.size, prep)
    resized = rgb.resize(where.resized, _RESAMPLE[prep.interpolation])
    (rw, rh), (iw, ih) = where.resized, where.input
    left = int(round((rw - iw) / 2.0)) if rw > iw else -((iw - rw) // 2)
    top = int(round((rh - ih) / 2.0)) if rh > ih else -((ih - rh) // 2)
    picture = Image.new("RGB", (iw, ih), (prep.pad_fill,) * 3)
    picture.paste(resized.crop((max(left, 0), max(top, 0), max(left, 0) + min(rw, iw), max(top, 0) + min(rh, ih))),
                  (max(-left, 0), max(-top, 0)))
    box, note = seen_box(fit, prep)
    return ModelInput(picture, box, note, fit.fill)
