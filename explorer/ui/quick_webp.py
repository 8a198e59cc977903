"""The page's pictures as gradio sends them (WebP, ``gr.Image``'s format), at libwebp's fastest effort."""

from __future__ import annotations

from PIL import Image

# libwebp's effort, 0 (fastest) to 6: an overlay encodes several times faster at 0 than at Pillow's default of 4, in
# a slightly larger file (docs/PERFORMANCE.md, "Design decisions"); a caption edit sends one or more of them.
WEBP_METHOD = 0


def quick_webp(image: Image.Image | None) -> Image.Image | None:
    """``image``, set to be encoded at ``WEBP_METHOD`` when gradio saves it (Pillow reads a writer's options from the
    image's own ``encoderinfo`` too); None stays None."""
    if image is not None:
        image.encoderinfo = {**getattr(image, "encoderinfo", {}), "method": WEBP_METHOD}
    return image
