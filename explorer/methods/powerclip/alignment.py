"""Powerset alignment (the PowerCLIP paper): every non-empty subset of M image regions vs every text node.

Notation. ``P`` (N, D) unit patch vectors, ``B`` (M, N) boolean region masks, ``T`` (K, D) unit text-node
vectors. A non-empty subset S of regions pools the patches under the union U_S of its masks; the mean and
the sum ``v_S = sum_{n in U_S} p_n`` point the same way, so ``c_k(S) = cos(v_S, t_k)``.

Exact aggregations (``exact_alignment``; 2^M - 1 subsets, enumerated in chunks):
  t2r (text to region): per node k, ``max_S c_k(S)`` with its argmax, the soft version
      ``(1/tau) log sum_S exp(tau c_k(S))``, and their mean over nodes (the image score);
  r2t (region to text): ``mean_S max_k c_k(S)``, every subset's best node averaged over the subsets.
Patches covered by the same regions are summed first (G <= N groups), and ``||v_S||^2 = u^T (Q Q^T) u``
with u the groups under U_S, so the cost is O(2^M G (G + K)) and never depends on D.

Additive surrogate (``region_scores``, O(M N D)). ``m_n`` regions cover patch n (its share of each is
1/m_n); ``Z = ||sum_{n covered} p_n||``; ``a_ik = t_k . (sum_{n in R_i} p_n / m_n) / Z``;
``s_k(S) = sum_{i in S} a_ik``. What links it to the cosine (proved; nothing further is):
  F1  s_k(all regions) = c_k(all regions), overlaps or not: the shares of a patch add up to one.
  F2  disjoint regions: s_k(S) = c_k(S) ||v_S|| / Z.
  F3  disjoint regions whose sums pairwise satisfy v_i . v_j >= 0 (patch tokens in a cone, as trained
      encoders give): Z^2 = ||v_S||^2 + ||v_R||^2 + 2 v_S . v_R >= ||v_S||^2 (R the other regions), so
      s_k(S) <= max(c_k(S), 0) and  c_k(all) <= max_S s_k(S) <= max(0, max_S c_k(S)).
How far apart the two maxima are in practice is measured in docs/powerclip.md.

NLAs on the surrogate, O(M K), no enumeration (our derivations; the paper's formulas are not in the seed):
  NLA-max   ``sum_i relu(a_i) + min(0, max_i a_i) = max_{S != {}} s(S)``, exact: the terms are
            independent, so the best set takes every positive a_i; with none positive the best non-empty
            set is the single largest a_i, since adding an a_j <= 0 never helps.
  NLA-soft  ``(1/tau) log(prod_i (1 + e^{tau a_i}) - 1) = (1/tau) log sum_{S != {}} e^{tau s(S)}``, exact
            by sum_S prod_{i in S} x_i = prod_i (1 + x_i) less the empty set's 1; computed stably as
            ``LSE_j (tau a_j + sum_{i<j} softplus(tau a_i)) / tau`` (subsets grouped by their last region).
            Bound: 0 <= NLA-soft - NLA-max <= log(2^M - 1) / tau < M log 2 / tau (max <= LSE <= max + log n),
            so tau >= M log 2 / eps gives any precision eps; when some a_i >= 0, more sharply
            <= (1/tau) sum_i log(1 + e^{-tau |a_i|}), as softplus(x) = relu(x) + log(1 + e^{-|x|}) and the
            empty set only adds to the sum.
  NLA-r2t   ``mean_S max_k s_k(S)`` lies in [L, U]:
            L = max_k mean_S s_k(S) = max_k 2^{M-1} / (2^M - 1) sum_i a_ik  (a max of means <= the mean of maxes);
            U = min_tau (1/tau) [log sum_k (prod_i (1 + e^{tau a_ik}) - 1) - log(2^M - 1)]
              (max_k <= (1/tau) LSE_k, Jensen's mean log <= log mean, then the identity; any tau is valid,
              so the least over a grid of tau is too). L + alpha (U - L) is within max(alpha, 1 - alpha) (U - L).

NLA on the cosine itself, O(K M (log M + G^2)), linear in M for a fixed patch grid (our derivation):
  NLA-scan  rank the regions by t_k . v_i / ||v_i||^p for p = 1 and p = 1/2, take the cosine of the union
            of every prefix of either ranking, keep the best. Proved:
            (i)  it is the cosine of a real subset, and the candidates include the full set and the best
                 single region, so max(c_k(all), max_i c_k({i})) <= NLA-scan <= max_S c_k(S);
            (ii) it is exact when the regions are disjoint, their sums v_i pairwise orthogonal and
                 max_S c_k(S) > 0. Then c_k(S) = A(S) / sqrt(B(S)) with A = sum_S t . v_i and B = sum_S ||v_i||^2
                 additive. Over the hull of the points (A(S), B(S)) the largest A at a given B is a
                 fractional knapsack: greedy by a_i / b_i, i.e. the path through the p = 1 prefixes;
                 A / sqrt(B) grows with A, so its maximum lies on that path, and as {A / sqrt(B) <= c} is
                 convex for c > 0 (the hypograph of c sqrt(B)), a positive maximum over a segment of the
                 path is at an end: a prefix (the linear-time subset scan of Neill, 2012).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

TAU = 100.0  # CLIP's logit scale: the default sharpness of the soft aggregators
EPS = 1e-12
MAX_ENUMERATED = 24  # 2^24 subsets: beyond this only the NLAs make sense
SCAN_POWERS = (1.0, 0.5)  # NLA-scan ranks regions by t . v_i / ||v_i||^p for each p
R2T_TAUS = 4  # NLA-r2t's upper bound: the least over tau * max|a| = 1, 10, 100, 1000 (each costs one NLA-soft)


@dataclass(frozen=True)
class ExactAlignment:
    """Aggregations of the cosine over every non-empty subset (rows of ``subset_masks``)."""

    best: torch.Tensor  # (K,) max over subsets, per node
    best_subset: torch.Tensor  # (K,) the row of subset_masks(M) attaining it
    soft: torch.Tensor  # (K,) (1/tau) logsumexp over subsets of tau * cosine
    t2r: float  # mean over nodes of ``best``
    r2t: float  # mean over subsets of their best node's cosine


@dataclass(frozen=True)
class R2TBracket:
    """NLA-r2t: proved bounds on ``mean_S max_k s_k(S)`` and the interpolated estimate."""

    lower: float
    upper: float
    estimate: float
    error_bound: float  # |estimate - exact| <= error_bound


def subset_masks(m: int) -> torch.Tensor:
    """Every non-empty subset of ``m`` regions, (2^m - 1, m) bool; row r holds the bits of r + 1."""
    if not 1 <= m <= MAX_ENUMERATED:
        raise ValueError(f"can enumerate subsets of 1 to {MAX_ENUMERATED} regions, not {m}; use the NLAs")
    codes = torch.arange(1, 2**m, dtype=torch.long)
    return ((codes[:, None] >> torch.arange(m)) & 1).bool()


def _unit(x: torch.Tensor) -> torch.Tensor:
    return F.normalize(x.double(), dim=-1, eps=EPS)


UNIONS_KEPT_UP_TO = 12  # regions: 4095 subsets' unions kept per image, 4095 x G booleans


@dataclass(frozen=True)
class RegionGroups:
    """Covered patches grouped by which regions cover them: what every caption's enumeration reads of one image."""

    cover: torch.Tensor  # (M, G): 1.0 where region i covers group g
    sums: torch.Tensor  # (G, D): each group's summed unit patch vectors
    gram: torch.Tensor  # (G, G): sums @ sums.T
    unions: tuple[torch.Tensor, torch.Tensor] | None = None  # every subset's groups (2^M - 1, G; bool) and ||v_S||


def region_groups(patches: torch.Tensor, masks: torch.Tensor, keep_unions: bool = False) -> RegionGroups:
    """The groups of patches (N, D) under region masks (M, N), in float64; compute once per image.

    ``keep_unions``: also every subset's union and its norm, where M <= ``UNIONS_KEPT_UP_TO`` (2^M - 1 rows; above,
    each enumeration makes them chunk by chunk, in bounded memory).
    """
    masks = masks.bool()
    covered = masks.any(0)
    patterns, inverse = torch.unique(masks[:, covered].T, dim=0, return_inverse=True)
    sums = torch.zeros(len(patterns), patches.shape[1], dtype=torch.float64)
    sums.index_add_(0, inverse, _unit(patches)[covered])
    cover, gram = patterns.double().T, sums @ sums.T
    if not keep_unions or masks.shape[0] > UNIONS_KEPT_UP_TO:
        return RegionGroups(cover, sums, gram)
    under, norm = _unions(subset_masks(masks.shape[0]), cover, gram)
    return RegionGroups(cover, sums, gram, (under.bool(), norm))  # bool: an eighth of the memory per cached image


def _unions(rows: torch.Tensor, cover: torch.Tensor, gram: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """For subsets ``rows`` (c, M): the groups under each union (c, G) and the norm of its pooled sum (c,)."""
    under = ((rows.double() @ cover) > 0).double()
    return under, ((under @ gram) * under).sum(1).clamp_min(EPS**2).sqrt()


def subset_similarities(
    patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor, chunk: int = 4096,
    groups: RegionGroups | None = None,
) -> torch.Tensor:
    """cos(pool of the union of S, t_k) for every non-empty S (rows as ``subset_masks``) and node k: (2^M - 1, K).

    ``groups``: ``region_groups(patches, masks)`` made before (per image), else made here."""
    g = groups or region_groups(patches, masks)
    to_text = g.sums @ _unit(texts).T
    chunks = [(g.unions[0].double(), g.unions[1])] if g.unions is not None else \
        (_unions(rows, g.cover, g.gram) for rows in subset_masks(g.cover.shape[0]).split(chunk))
    return torch.cat([(under @ to_text) / norm[:, None] for under, norm in chunks])


def exact_alignment(
    patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor, tau: float = TAU, chunk: int = 4096,
    groups: RegionGroups | None = None,
) -> ExactAlignment:
    """t2r (max and soft max over subsets per node) and r2t by enumerating the powerset of the (M, P) region ``masks``
    over the (P, D) ``patches``, for the (K, D) node ``texts``; memory O(2^M K + chunk G)."""
    sims = subset_similarities(patches, masks, texts, chunk, groups)
    best, arg = sims.max(0)
    soft = torch.logsumexp(tau * sims, 0) / tau
    return ExactAlignment(best, arg, soft, float(best.mean()), float(sims.max(1).values.mean()))


def surrogate_regions(unit_patches: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Region vectors r_i = sum_{n in R_i} p_n / (m_n Z), batched: (..., N, D), (..., M, N) -> (..., M, D).

    ``a_ik = r_i . t_k``; the shares of a covered patch add up to one, so ``Z = ||sum_i r_i Z||``.
    """
    masks = masks.to(unit_patches.dtype)
    pooled = (masks / masks.sum(-2, keepdim=True).clamp_min(1)) @ unit_patches
    return pooled / pooled.sum(-2, keepdim=True).norm(dim=-1, keepdim=True).clamp_min(EPS)


def region_scores(patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor) -> torch.Tensor:
    """The additive surrogate's per-region scores a (M, K), so that s_k(S) = sum_{i in S} a_ik."""
    return surrogate_regions(_unit(patches), masks.bool()) @ _unit(texts).T


def nla_max(a: torch.Tensor) -> torch.Tensor:
    """NLA-max: max over non-empty subsets of sum_{i in S} a_i, per column of a (..., M, K); exact."""
    return a.clamp_min(0).sum(-2) + a.max(-2).values.clamp_max(0)


def nla_best_subset(a: torch.Tensor) -> torch.Tensor:
    """The subset attaining ``nla_max``, (M, K) bool: the positive regions, else the single best one."""
    top = F.one_hot(a.argmax(0), a.shape[0]).T.bool()
    positive = a > 0
    return torch.where(positive.any(0, keepdim=True), positive, top)


def _log_nonempty(x: torch.Tensor) -> torch.Tensor:
    """log sum_{S != {}} exp(sum_{i in S} x_i) over dim -2 (regions): LSE_j (x_j + sum_{i<j} softplus(x_i))."""
    soft = torch.logaddexp(x, torch.zeros_like(x))
    return torch.logsumexp(x + soft.cumsum(-2) - soft, dim=-2)


def log_subset_count(m: int) -> float:
    """log(2^m - 1), stable for large m."""
    return m * math.log(2.0) + math.log1p(-(2.0**-m))


def nla_soft(a: torch.Tensor, tau: float = TAU) -> torch.Tensor:
    """NLA-soft: (1/tau) log sum over non-empty subsets of exp(tau s(S)), per column; exact, O(M)."""
    return _log_nonempty(tau * a) / tau


def soft_gap_bound(a: torch.Tensor, tau: float = TAU) -> torch.Tensor:
    """Proved bound on nla_soft - nla_max (>= 0): log(2^M - 1)/tau, or the sharper softplus one if some a_i >= 0."""
    general = torch.full(a.shape[1:], log_subset_count(a.shape[0]) / tau, dtype=a.dtype)
    sharp = torch.log1p(torch.exp(-tau * a.abs())).sum(0) / tau
    return torch.where(a.max(0).values >= 0, torch.minimum(sharp, general), general)


def r2t_lower(a: torch.Tensor) -> torch.Tensor:
    """NLA-r2t's lower bound L = max_k mean_S s_k(S), batched: a (..., M, K) -> (...)."""
    m = a.shape[-2]
    return a.sum(-2).max(-1).values / (2.0 - 2.0 ** (1 - m))


def r2t_bounds(a: torch.Tensor, taus: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """The NLA-r2t bounds [L, U] on mean_S max_k s_k(S), batched over a's leading dims:
    a (..., M, K) -> (...), (...)."""
    m = a.shape[-2]
    lower = r2t_lower(a)
    if taus is None:
        taus = torch.logspace(0, 3, R2T_TAUS, dtype=a.dtype) / a.detach().abs().max().clamp_min(EPS)
    scale = taus.view(-1, *([1] * a.dim()))
    per_tau = torch.logsumexp(_log_nonempty(scale * a), dim=-1)  # (taus, ...)
    upper = ((per_tau - log_subset_count(m)) / taus.view(-1, *([1] * (a.dim() - 2)))).min(0).values
    return lower, torch.maximum(upper, lower)


def nla_r2t(a: torch.Tensor, alpha: float = 0.5, taus: torch.Tensor | None = None) -> R2TBracket:
    """NLA-r2t: bounds on mean over subsets of max over nodes of s_k(S), from a (M, K) in O(M K |taus|)."""
    lower, upper = (float(x) for x in r2t_bounds(a, taus))
    return R2TBracket(lower, upper, lower + alpha * (upper - lower), max(alpha, 1 - alpha) * (upper - lower))


@dataclass(frozen=True)
class NLAAlignment:
    """The O(M) aggregations of the additive surrogate, batched over leading dimensions."""

    best: torch.Tensor  # (..., K) NLA-max: max over subsets of s_k(S), exact
    soft: torch.Tensor  # (..., K) NLA-soft: (1/tau) log sum over subsets of exp(tau s_k(S)), exact
    r2t_lower: torch.Tensor  # (...,) NLA-r2t's lower bound (the estimate PowerCLIP's score uses)
    r2t_upper: torch.Tensor | None  # (...,) its upper bound, when asked for (it costs R2T_TAUS NLA-softs)


def nla_alignment(
    patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor, tau: float = TAU, bracket: bool = True
) -> NLAAlignment:
    """Every NLA from patches (..., N, D), region masks (..., M, N) and nodes (..., K, D), without enumeration."""
    a = surrogate_regions(F.normalize(patches, dim=-1), masks) @ F.normalize(texts, dim=-1).transpose(-1, -2)
    lower, upper = r2t_bounds(a) if bracket else (r2t_lower(a), None)
    return NLAAlignment(nla_max(a), nla_soft(a, tau), lower, upper)


def nla_scan(
    patches: torch.Tensor, masks: torch.Tensor, texts: torch.Tensor, groups: RegionGroups | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """NLA-scan: the best cosine over prefixes of regions ranked by t . v_i / ||v_i||^p: values (K,), subsets (M, K).

    ``groups``: ``region_groups(patches, masks)`` made before (per image), else made here."""
    g = groups or region_groups(patches, masks)
    cover, sums, gram = g.cover, g.sums, g.gram
    to_text = sums @ _unit(texts).T
    along = cover @ to_text  # (M, K): t_k . v_i
    size = ((cover @ gram) * cover).sum(1).clamp_min(EPS)[:, None]  # ||v_i||^2
    best = torch.full((texts.shape[0],), -math.inf, dtype=torch.float64)
    subsets = torch.zeros(along.shape, dtype=torch.bool)
    for power in SCAN_POWERS:
        order = (along / size**power).argsort(0, descending=True)  # (M, K)
        under = (cover[order.T].cumsum(1) > 0).double()  # (K, M, G): the union of each prefix
        norm = ((under @ gram) * under).sum(-1).clamp_min(EPS**2).sqrt()
        value, last = ((under * to_text.T[:, None, :]).sum(-1) / norm).max(1)
        better = value > best
        best = torch.where(better, value, best)
        subsets = torch.where(better, order.argsort(0) <= last, subsets)
    return best, subsets
