"""An analysis as a link: the page's state (an example or a world benchmark item, both captions, the model, the tab)
in the URL's query, and back. An uploaded image has no name to link to, so it makes no link."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Mapping
from urllib.parse import urlencode

from PIL import Image

from explorer import world
from explorer.core.cache import LRUCache
from explorer.core.image_state import image_key
from explorer.eval.browse import BROWSE_SIZE, MAX_PER_CATEGORY
from explorer.images.inputs import InputError, clean_caption, load_image
from explorer.methods import canonical
from explorer.world.examples import examples

ITEM = re.compile(r"(?P<split>[a-z-]+)/(?P<kind>[a-z]+)/(?P<index>\d+)")  # a world swap item's id: id/attribute/3
_ITEMS: LRUCache[str] = LRUCache()  # picture content -> the world item sent from Browse that it shows


@dataclass(frozen=True)
class Shared:
    """What a link names: an example or a world item (one of them), the captions, the model and the tab."""

    caption_a: str
    caption_b: str
    model: str
    tab: str
    example: str | None = None
    item: str | None = None


@lru_cache(maxsize=1)
def _examples_by_content() -> dict[str, str]:
    return {image_key(load_image(e.path)): e.name for e in examples()}


def remember_item(picture: Image.Image, item_id: str) -> None:
    """A world item's picture sent to the main page, so a link to its comparison can name the item."""
    _ITEMS.put(image_key(picture.convert("RGB")), item_id)


def query(image: Image.Image, shared: Shared) -> str | None:
    """The link's query for a comparison shown on ``image`` (None where the image is neither an example nor a world
    item sent from Browse)."""
    key = image_key(image)
    named = {"example": _examples_by_content().get(key)} if key in _examples_by_content() else \
        {"item": _ITEMS.get(key)} if key in _ITEMS else None
    if named is None:
        return None
    return "?" + urlencode({**named, "a": shared.caption_a, "b": shared.caption_b, "model": shared.model,
                            "tab": shared.tab})


def parse(params: Mapping[str, str], models: list[str], tabs: list[str]) -> Shared | None:
    """A link's query read back and checked (None for a page opened without one); ``InputError`` names what is
    wrong with a link that does not hold."""
    if not any(k in params for k in ("example", "item")):
        return None
    names = [e.name for e in examples()]
    example, item = params.get("example"), params.get("item")
    if example is not None and example not in names:
        raise InputError(f"The link names no example called {example!r}.")
    if item is not None:
        found = ITEM.fullmatch(item)
        if not found or found["split"] not in world.SPLITS or found["kind"] not in world.KINDS \
                or int(found["index"]) >= MAX_PER_CATEGORY:
            raise InputError(f"The link's item {item!r} is not a world item (like id/attribute/3).")
    model = params.get("model", models[0])
    if model not in models:
        raise InputError(f"The link's model {model!r} is not in this page's menu.")
    tab = canonical(params.get("tab", ""))  # a method's tab by its former name too
    tab = tab if tab in tabs else tabs[0]
    return Shared(clean_caption(params.get("a"), "A"), clean_caption(params.get("b"), "B"), model, tab, example, item)


def picture_of(shared: Shared, folder: Path) -> Path:
    """The file the page shows for a link: the example's own, or the world item's image 0 drawn into ``folder``."""
    if shared.example is not None:
        return next(e.path for e in examples() if e.name == shared.example)
    found = ITEM.fullmatch(shared.item or "")
    index = int(found["index"])
    scene = world.swap_items(found["split"], found["kind"], index + 1)[index].images[0]
    path = folder / f"{shared.item.replace('/', '-')}.png"
    picture = scene.render(BROWSE_SIZE)
    picture.save(path)
    remember_item(picture, shared.item)
    return path
