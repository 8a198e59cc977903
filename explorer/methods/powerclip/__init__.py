"""PowerCLIP as one folder: its scoring (``method``, over the exact and the approximate alignments of
``alignment``), its pictures and phrase trees, its map per segment, its cautions, its tab and its step of the tour,
declared here. "powerset", its former name, is still read where a name is typed (``--methods``, ``--set``, a
link's tab)."""

from explorer.methods.base import FigureInfo, MethodInfo, SegmentMap, register
from explorer.methods.powerclip import cautions, maps, pictures, tab, tour
from explorer.methods.powerclip.method import NodeAlignment, PowerCLIP, PowerCLIPEvidence

__all__ = ["NodeAlignment", "PowerCLIP", "PowerCLIPEvidence"]

register(MethodInfo(
    "powerclip", "PowerCLIP", "each phrase's best region subset, exact powerset value", "-1 to 1",
    caveat="with the embedded world model it prefers the right pairing of a swap only a little more often than chance "
    "(in 58 to 69% of the val items, the global cosine in 59 to 68%), and its scores carry offsets that follow the "
    "caption and the image, two to five times that signal, so on the world's swap "
    "items its text and group scores fall below the chance levels (25, 16.7): this model's patch tokens, which the "
    "subsets pool, do not carry their own object's colour (docs/powerclip-world.md)",
    page_order=3, tab=tab.TAB,
    segment_map=SegmentMap(
        maps.powerclip_maps, "PowerCLIP's chosen subset", "inside PowerCLIP's subset",
        "Beside each picture, white over the region subset PowerCLIP chose for the smallest phrase holding the "
        "segment, dark outside it; the picture, in its own colours, has the subset outlined.", region=True),
    figures=(FigureInfo("powerclip tree", "the caption's phrase tree, each node coloured by its best subset's cosine",
                        "cosine, one colour range for both trees", pictures.powerclip_trees,
                        per_caption=True),
             FigureInfo("powerclip subset", "the best region subset for the tree's root, and the patches it pools",
                        "pooled patches white, the rest dark", pictures.powerclip_subsets,
                        per_caption=True)),
    cautions=cautions.powerclip_cautions, tour=tour.STEP,
    intro="one that matches phrases to groups of parts (PowerCLIP)", aliases=("powerset",)))(PowerCLIP)
