"""Where the model looks for its global cosine, for any open_clip model, with no training: relevance maps per
caption and per segment from the literature's explainers (``rollout``, ``grad-eclip``, ``legrad`` for ViTs,
``gradcam`` for convolutional towers), each text token's share of the score, and their ground truth on the world (``pointing``).
Importing this package registers the explainers."""

from explorer.explain import grad_eclip, gradcam, legrad, rollout  # noqa: F401  (registering them)
from explorer.explain.base import REGISTRY, Explainer, Explanation, Relevance, explainers_for, get_explainer

__all__ = ["REGISTRY", "Explainer", "Explanation", "Relevance", "explainers_for", "get_explainer"]
