"""SGI, structure-guided inference, as one folder: its scoring (``method``), its pictures, its map per segment, its
cautions and its step of the tour, declared here in its ``MethodInfo``."""

from explorer.methods.base import FigureInfo, MainPictures, MethodInfo, SegmentMap, register
from explorer.methods.sgi import cautions, maps, pictures, tour
from explorer.methods.sgi.method import RegionFeatures, SegmentMatch, SGIEvidence, StructureGuided

__all__ = ["RegionFeatures", "SGIEvidence", "SegmentMatch", "StructureGuided"]

register(MethodInfo(
    "sgi", "SGI", "each caption segment's best region cosine, averaged", "-1 to 1", page_order=1,
    segment_map=SegmentMap(
        maps.sgi_maps, "SGI's chosen crop", "inside SGI's crop",
        "Beside each picture, white inside the crop SGI chose for the segment (its best-matching region), dark "
        "outside it; the picture, in its own colours, has the crop outlined.", region=True),
    figures=(FigureInfo("sgi overlay", "each segment's best region, boxed and numbered, with its cosine below",
                        "cosine, -1 to 1", pictures.sgi_overlays, per_caption=True),
             FigureInfo("sgi heatmap", "every segment's cosine with the best regions, a block per caption",
                        "cosine, one colour scale for both captions", pictures.sgi_heatmaps)),
    main=MainPictures(pictures.sgi_overlay, pictures.sgi_heatmap,
                      "SGI, caption {}: each segment's best region (numbered as listed below it)",
                      "SGI: segment x region cosine"),
    cautions=cautions.sgi_cautions, tour=tour.STEP,
    intro="a score that matches each phrase to a part of the picture (SGI)",
    settings={"sam_checkpoint": "sam_checkpoint"}))(StructureGuided)
