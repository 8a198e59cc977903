"""How the towers run: precision settings, batch buckets, the background warm-up and the compiled tower."""

import re
import threading
from pathlib import Path

import numpy as np
import pytest
import torch

from explorer import world
from explorer.engine import Engine
from explorer.models import tower
from explorer.models.cores import one_thread
from explorer.models.tower import SPLIT_ROWS, BucketedTower, bucket_of, buckets, parts, tower_dtypes


def test_buckets_are_few_fixed_sizes_that_hold_every_batch():
    sizes = buckets(64)
    assert sizes == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    for n in range(1, 65):
        b = bucket_of(n, sizes)
        assert n <= b and (b < 8 or b - n < 8)  # above 8, at most 7 padded rows


def test_precision_settings(monkeypatch):
    monkeypatch.setattr(tower, "cpu_has_native_bf16", lambda: True)
    assert tower_dtypes("auto", "cpu") == (None, None)  # the CLI's numbers: fp32 on the CPU
    assert tower_dtypes("native", "cpu") == (torch.bfloat16, None)  # image tower only: the text side is op-bound
    assert tower_dtypes("bf16", "cpu") == (torch.bfloat16, torch.bfloat16)
    assert tower_dtypes("fp32", "cpu") == (None, None)
    monkeypatch.setattr(tower, "cpu_has_native_bf16", lambda: False)
    assert tower_dtypes("native", "cpu") == (None, None)
    with pytest.raises(ValueError, match="known: auto, native"):
        tower_dtypes("int8", "cpu")


@pytest.mark.skipif(not Path("/proc/cpuinfo").exists(), reason="reads the CPU's flags from Linux's /proc/cpuinfo")
def test_native_bf16_is_what_this_cpus_flags_say():
    """Intel's AMX tiles and AVX512-BF16 (AMD Zen 4 too) multiply bf16 natively; elsewhere oneDNN emulates it (an AMD
    EPYC with AVX2 only: 3.6 s against 0.046 s in fp32 for one 8192x256 by 256x1024 product), so the page's
    ``native`` precision and train-world's warning must read this CPU right."""
    flags = set(re.search(r"^flags\s*:(.*)$", Path("/proc/cpuinfo").read_text(), re.M)[1].split())
    assert tower.cpu_has_native_bf16() is bool(flags & {"amx_tile", "avx512_bf16"})


def _tiny(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x.mean(dim=(2, 3)) @ torch.ones(3, 5))


def _recording(sizes: list[int]):
    def tower(x: torch.Tensor) -> torch.Tensor:
        sizes.append(len(x))
        return _tiny(x.float())
    return tower


def _bf16_spacing(x: torch.Tensor) -> torch.Tensor:
    """The gap between neighbouring bf16 numbers at each of ``x``'s values (8 significant bits)."""
    return torch.exp2(torch.floor(torch.log2(x.abs().clamp_min(1e-30))) - 7)


def test_padding_to_a_bucket_never_reaches_the_real_rows(embedded):
    """What padding promises on every CPU kind: the padded rows' content never changes a real row (same shape, same
    kernel: bit-equal), and a row run in its bucket equals the row run alone to bf16's resolution. On a CPU with
    AMX, oneDNN blocks a batch of 16 and one of 1 differently, so those two differ by a bf16 step or two."""
    padded = BucketedTower(embedded.model.encode_image, image_size=embedded.image_size, device="cpu",
                           dtype=torch.bfloat16)
    assert padded.pads  # low precision: oneDNN makes kernels per shape
    views = torch.rand(11, 3, embedded.image_size, embedded.image_size)
    (together,) = padded(views)  # 11 rows run as a bucket of 16, padded with zeros
    other_padding = padded._run(torch.cat([views, torch.rand(5, *views.shape[1:])]), 16)[:11]
    assert together.shape[0] == 11 and torch.equal(together, other_padding)
    alone = torch.cat([padded(views[i : i + 1])[0] for i in range(11)]).float()
    gap = (together.float() - alone).abs()
    step = _bf16_spacing(alone.abs().amax(dim=1, keepdim=True))  # a bf16 step at each row's largest value
    assert bool((gap <= 2 * step).all()), f"largest gap {gap.max():.4g}: more than two bf16 steps of its row"
    assert torch.nn.functional.cosine_similarity(together.float(), alone).min() > 0.9999


def test_only_an_eager_fp32_cpu_tower_runs_every_size_as_it_is():
    """Padded rows are only work where no kernel is kept per shape (MKL's fp32 GEMMs)."""
    sizes: list[int] = []
    for dtype, want in ((None, [11]), (torch.bfloat16, [16])):
        sizes.clear()
        (out,) = BucketedTower(_recording(sizes), image_size=4, device="cpu", dtype=dtype)(torch.rand(11, 3, 4, 4))
        assert out.shape == (11, 5) and sizes == want
    assert BucketedTower(_tiny, image_size=4, device="cpu", dtype=None, compile=True).pads  # a graph per bucket
    assert BucketedTower(_tiny, image_size=4, device="cuda", dtype=None).pads  # cuBLAS picks kernels per shape


@pytest.mark.parametrize("threads", [2, 3, 16])
def test_a_large_cpu_batch_splits_into_one_part_per_thread_padding_no_more_than_the_whole(threads):
    sizes = buckets(64)
    assert parts(15, threads) == [15] and parts(40, 1) == [40]  # small batches, and one thread: one part
    for n in range(SPLIT_ROWS, 65):
        split, even = parts(n, threads), parts(n, threads, step=1)
        for cut in (split, even):
            assert sum(cut) == n and len(cut) <= threads and min(cut) > 0
        if threads == 2:  # two parts pad to the bucket the whole batch would; unpadded, they are halves
            assert sum(bucket_of(p, sizes) for p in split) == bucket_of(n, sizes)
            assert sorted(even) == [n // 2, n - n // 2]


def test_the_parts_run_side_by_side_on_one_thread_each_and_give_the_whole_batchs_rows():
    calls = []

    def recorded(x: torch.Tensor) -> torch.Tensor:
        calls.append((threading.current_thread().name, len(x), torch.get_num_threads()))
        return _tiny(x)

    tower = BucketedTower(recorded, image_size=4, device="cpu", dtype=None, max_batch=64)
    x = torch.rand(43, 3, 4, 4)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        split = torch.cat(tower(x))
        assert torch.get_num_threads() == 2  # the caller's own threads come back
    finally:
        torch.set_num_threads(threads)
    assert sorted(c[1] for c in calls) == [21, 22]  # an fp32 tower runs halves as they are, no padded rows
    assert len({c[0] for c in calls}) == 2 and all(c[2] == 1 for c in calls)  # two threads, one core each
    assert torch.allclose(split, _tiny(x), atol=1e-6)


def test_one_thread_limits_the_calling_thread_alone():
    seen = {}
    with one_thread():
        seen["inside"] = torch.get_num_threads()
        started = threading.Thread(target=lambda: seen.setdefault("a thread started meanwhile",
                                                                  torch.get_num_threads()))
        started.start()
        started.join()
    assert seen == {"inside": 1, "a thread started meanwhile": torch.get_num_threads()}
    assert torch.get_num_threads() == seen["a thread started meanwhile"]  # its own setting came back


def test_the_compiled_tower_is_captured_per_bucket_in_the_background_and_matches_eager():
    compiled = BucketedTower(_tiny, image_size=4, device="cpu", dtype=None, max_batch=8, compile=True, warm=[4])
    assert compiled.warmed.wait(300), "the background warm-up did not finish"
    assert compiled.ready == {4}  # only the warmed bucket is compiled; others run eagerly
    eager = BucketedTower(_tiny, image_size=4, device="cpu", dtype=None, max_batch=8)
    x = torch.rand(3, 3, 4, 4)  # padded to the bucket of 4
    (got,), (want,) = compiled(x), eager(x)
    assert got.shape == (3, 5) and torch.allclose(got, want, atol=1e-6)


def test_a_failing_compiled_tower_falls_back_to_eager_for_good():
    runner = BucketedTower(_tiny, image_size=4, device="cpu", dtype=None, max_batch=8)
    runner.ready = {8}

    def broken(_):
        raise RuntimeError("a graph replayed from the wrong thread")

    runner.compiled = broken
    (out,) = runner(torch.rand(5, 3, 4, 4))
    assert out.shape == (5, 5) and runner.compiled is None


@pytest.mark.slow
def test_bf16_changes_the_page_scores_little_and_no_clear_verdict():
    """What `--precision native` costs on a CPU with AMX or AVX512-BF16 (forced to bf16 here, so it runs on any CPU)."""
    from explorer.models.encoders import DualEncoder

    fp32, bf16 = Engine(DualEncoder(precision="fp32")), Engine(DualEncoder(precision="bf16"))
    assert bf16.encoder.wait_warm(300)
    gaps, flips = [], 0
    for item in world.swap_items("heldout", "attribute", 6):
        image = item.images[0].render(fp32.encoder.image_size)
        ref, low = fp32.analyze(image, *item.captions), bf16.analyze(image, *item.captions)
        for name, (a, b) in ref.scores.items():
            la, lb = low.scores[name]
            gaps += [abs(a.value - la.value), abs(b.value - lb.value)]
            delta, low_delta = a.value - b.value, la.value - lb.value
            flips += abs(delta) > 0.02 and np.sign(delta) != np.sign(low_delta)
    assert max(gaps) < 0.02 and flips == 0


@pytest.mark.parametrize("name", [None, "ViT-B-32"], ids=["embedded", "ViT-B-32 random weights"])
def test_the_text_tower_read_to_the_longest_caption_equals_the_full_context(name):
    from explorer.models.encoders import DualEncoder

    encoder = DualEncoder(name, precision="fp32") if name else DualEncoder(precision="fp32")
    ids = encoder.tokenizer(["a star", "a red square to the left of a blue circle",
                             "two green triangles above a small grey square on the floor"])
    with torch.no_grad():
        full = encoder.model.forward_intermediates(text=ids, text_indices=1, normalize_intermediates=True)
        short = tower.short_text_forward(encoder.model, ids)
    length = short["text_tokens"].shape[1]
    assert length < encoder.context_length and length % tower.STEP == 0
    assert torch.allclose(torch.nn.functional.normalize(short["text_features"], dim=-1), full["text_features"],
                          atol=1e-5)
    assert torch.allclose(short["text_tokens"], full["text_intermediates"][-1][:, :length], atol=1e-5)
