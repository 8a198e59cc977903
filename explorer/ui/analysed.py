"""The page's comparison as the tabs under it read it: the analysis's scores and the state of the view it read,
where it is of the image, captions and model the page shows now."""

from __future__ import annotations

from PIL import Image

from explorer.core import settings
from explorer.core.image_state import ImageState, image_key
from explorer.images.fit import view_state


def compared(result: tuple | None, image: Image.Image, captions: tuple[str, str], model: str) -> dict | None:
    """The methods' scores of the page's comparison ``result`` (image, analysis) where it is of this image, these
    captions and this model; None where it is not (or there is none)."""
    if result is None or image_key(result[0]) != image_key(image):
        return None
    analysis = result[1]
    return analysis.scores if analysis.captions == captions and analysis.model == model else None


def seen_state(result: tuple | None, image: Image.Image, captions: tuple[str, str], model: str) -> ImageState:
    """The state of the view the comparison read, held by its analysis (every number a panel shows is then the
    table's); else the image under the setting's view, as the comparison would read it."""
    if compared(result, image, captions, model) is not None:
        return result[1].state
    return view_state(image, settings.current().view)
