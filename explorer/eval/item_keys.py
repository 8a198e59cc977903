"""An item's content as a digest: what a rerun compares before it reads back a stored outcome (``core.shards``).

The digest covers everything the item's verdict rests on: its annotation (kind, id, captions, which are right, the
fields its benchmark keeps, the view it is read in) and its images' bytes (a file's, or a world scene's description),
so that an edited annotation or a replaced picture at the same path is scored again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Sequence

from explorer.core.items import Item
from explorer.eval.dataset_loaders import ImageRef


def _image_bytes(ref: Any) -> bytes:
    """An image's content: a file's or an embedded image's bytes with its box, else (a world scene) its description."""
    if not isinstance(ref, ImageRef):
        return repr(ref).encode()
    if ref.data is not None:
        body = ref.data
    elif ref.path is not None and ref.path.is_file():
        body = ref.path.read_bytes()
    else:
        body = f"missing {ref.path}".encode()
    return f"{type(ref).__name__} {ref.box}\0".encode() + body


def item_key(item: Item) -> str:
    """A digest of the item's annotation and its images' bytes."""
    h = hashlib.blake2b(digest_size=16)
    note = [item.kind, item.split, item.id, item.captions, item.right, item.also_right, item.info]
    h.update(json.dumps(note, sort_keys=True, default=repr).encode())
    for ref in item.images:
        h.update(b"\0" + _image_bytes(ref))
    return h.hexdigest()


def item_keys(items: Sequence[Item]) -> list[str]:
    return [item_key(it) for it in items]
