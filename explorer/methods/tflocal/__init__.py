"""TFLocal, TFGlobal and the fine-tuned baseline as one folder: their scoring (``method``), TFLocal's pictures, its
map per segment, its cautions (TFGlobal's too), its tab and its step of the tour, declared here."""

from explorer.methods.base import FigureInfo, MethodInfo, SegmentMap, register
from explorer.methods.tflocal import cautions, maps, pictures, tab, tour
from explorer.methods.tflocal.method import AlignedMethod, AttentionEvidence, FineTuned, TFGlobal, TFLocal

__all__ = ["AlignedMethod", "AttentionEvidence", "FineTuned", "TFGlobal", "TFLocal"]

register(MethodInfo(
    "tflocal", "TFLocal", "the alignment transformer's logit over patch and token features",
    "its own scale, about 5 to 15 on this model; compare A with B, not with the cosines", page_order=2, tab=tab.TAB,
    segment_map=SegmentMap(
        maps.tflocal_maps, "TFLocal's attention", "TFLocal attention (share per patch)",
        "Beside each picture, TFLocal's attention for the segment: white where its tokens attend most, dark where "
        "they attend least (A and B on one scale); the picture's outline encloses the most attended part.",
        untrained="TFLocal has no trained weights for this model (only the project's world models ship them), and "
        "an untrained head's attention means nothing.", recorded={"layer": maps.TFLOCAL_LAYER}),
    figures=(FigureInfo("tflocal", "each caption's attention over the patches, every token",
                        "attention per patch (share of the token's total), one scale for both",
                        pictures.tflocal_attention, per_caption=True),),
    cautions=cautions.tflocal_cautions, tour=tour.STEP,
    intro="a small model trained to look at the parts (TFLocal)"))(TFLocal)
register(MethodInfo("tfglobal", "TFGlobal", "the alignment transformer's logit over the global image and caption "
                    "vectors", "its own scale; compare A with B, not with the cosines",
                    cautions=cautions.tflocal_cautions))(TFGlobal)
register(MethodInfo("finetune", "Fine-tuned", "cosine of the whole image and the whole caption under the encoder "
                    "fine-tuned end to end on the same data", "-1 to 1"))(FineTuned)
