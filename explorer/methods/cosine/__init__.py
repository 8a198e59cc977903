"""The global cosine as one folder: its scoring (``method``) and its step of the tour, declared here."""

from explorer.methods.base import MethodInfo, register
from explorer.methods.cosine import tour
from explorer.methods.cosine.method import GlobalCosine

__all__ = ["GlobalCosine"]

register(MethodInfo("global", "global cosine", "cosine of the whole image and the whole caption", "-1 to 1",
                    page_order=0, tour=tour.STEP, intro="the plain score of the whole picture"))(GlobalCosine)
