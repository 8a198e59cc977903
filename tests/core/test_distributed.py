"""torchrun, two CPU processes (gloo): sharded eval equals one process and resumes; DDP train-align keeps ranks equal."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from explorer.core.distributed import local_launch

ROOT = Path(__file__).resolve().parents[2]
EVAL = ["eval", "--benchmark", "world", "--methods", "global,tflocal", "--split", "id,shift", "--limit", "20"]
TRAIN = ["train-align", "--variant", "local", "--batch-items", "8", "--micro-items", "4", "--warmup", "1",
         "--threads", "1", "--no-card"]

pytestmark = pytest.mark.slow


def explorer(args: list[str], nproc: int) -> subprocess.CompletedProcess:
    """``python -m explorer ARGS`` under ``torchrun --nproc_per_node=NPROC``; one torch thread per process."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "EXPLORER_DEVICE": "cpu"}
    done = subprocess.run([*local_launch(nproc), "-m", "explorer", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    return done


def in_this_process(args: list[str]) -> None:
    """``python -m explorer ARGS`` as one process runs it, in this one: the single-process references, without an
    interpreter's 6 to 8 s of imports. One torch thread, as each launched rank has; the thread count and the
    process's settings are put back after."""
    from explorer.cli import main
    from explorer.core import settings

    threads = torch.get_num_threads()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settings, "_current", None)
        patch.setenv("EXPLORER_DEVICE", "cpu")
        torch.set_num_threads(1)
        try:
            assert main(args) == 0
        finally:
            torch.set_num_threads(threads)


def results(path: Path) -> dict:
    """The report without the keys that say how it was computed."""
    report = json.loads(path.read_text())
    return {k: v for k, v in report.items() if k not in ("world_size", "shards", "resumed")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("eval")
    in_this_process([*EVAL, "--json", str(folder / "one.json")])
    explorer([*EVAL, "--json", str(folder / "two.json")], nproc=2)
    return folder


@pytest.mark.timeout(300)
def test_two_ranks_gather_the_single_process_report(runs):
    one, two = json.loads((runs / "one.json").read_text()), json.loads((runs / "two.json").read_text())
    assert results(runs / "two.json") == results(runs / "one.json")
    assert set(one["results"]) == {"global", "tflocal"} and one["results"]["tflocal"]["shift"]["all"]["n"] == 80
    assert (runs / "two.csv").read_text() == (runs / "one.csv").read_text()
    assert (one["world_size"], one["shards"]) == (1, [{"rank": 0, "items": 160}])
    # 80 items a split in chunks of 32, 32, 16: rank 0 scores the first and the last, rank 1 the second
    assert (two["world_size"], two["shards"]) == (2, [{"rank": 0, "items": 96}, {"rank": 1, "items": 64}])
    shard = (runs / "two.json.shards" / "rank-1-of-2.jsonl").read_text().splitlines()
    assert len(shard) == 1 + 64 and json.loads(shard[1])["index"] == 32


@pytest.mark.timeout(300)
def test_an_interrupted_sharded_eval_finishes_with_the_same_numbers(runs):
    shards = runs / "two.json.shards"
    (shards / "rank-1-of-2.jsonl").unlink()  # rank 1 never wrote a line
    lines = (shards / "rank-0-of-2.jsonl").read_text().splitlines(keepends=True)
    from explorer.core.shards import code_fingerprint

    assert json.loads(lines[0])["config"]["code"] == code_fingerprint()  # the code that scored them
    # the header, split id's first chunk (32 items), 8 of its last chunk and a line torn by the kill
    (shards / "rank-0-of-2.jsonl").write_text("".join(lines[:41]) + lines[41][:30])
    (runs / "two.json").unlink()
    done = explorer([*EVAL, "--json", str(runs / "two.json")], nproc=2)
    assert "rank-0-of-2.jsonl: 40 outcomes read back" in done.stderr
    assert results(runs / "two.json") == results(runs / "one.json")
    again = json.loads((runs / "two.json").read_text())
    assert again["shards"][1] == {"rank": 1, "items": 64}
    # the torn chunk's 8 whole lines are scored again with it; rank 1's file and the rest of rank 0's never held them
    assert again["resumed"] == {"read back": 32, "not in the file": 120, "scored again with its chunk": 8}


def train_interrupted(folder: Path, name: str, nproc: int) -> str:
    """12 steps of train-align, stopped after step 6 (rank 0's checkpoint) and resumed: the second run's log (none
    for the single process, run in this one)."""
    args = [*TRAIN, "--out", str(folder / f"{name}.safetensors"), "--run-dir", str(folder / name)]
    run = in_this_process if nproc == 1 else lambda a: explorer(a, nproc).stderr
    run([*args, "--steps", "6"])
    state = torch.load(folder / name / "last.pt", weights_only=True)
    state["config"]["steps"] = 12  # as if the run had been meant to go on (the schedule is the 6-step one)
    torch.save(state, folder / name / "last.pt")
    return run([*args, "--steps", "12"])


@pytest.mark.timeout(400)
def test_ddp_train_align_keeps_the_ranks_equal_and_matches_one_process(tmp_path):
    train_interrupted(tmp_path, "one", 1)
    assert "resuming from step 6" in train_interrupted(tmp_path, "two", 2)
    one, two = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("one", "two"))
    assert two["world_size"] == 2 and len(two["weights_sha256"]) == 2
    assert two["weights_sha256"][0] == two["weights_sha256"][1]  # the ranks hold the same weights
    losses = np.array(one["loss_curve"])
    assert len(losses) == 12 and losses[-4:].mean() < losses[:4].mean()  # the loss falls
    np.testing.assert_allclose(two["loss_curve"], losses, atol=1e-3)  # the same curve as one process
    a, b = (load_file(str(tmp_path / f"{n}.safetensors")) for n in ("one", "two"))
    assert a.keys() == b.keys() and all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)


def test_shard_files_are_read_back_only_for_the_same_configuration(tmp_path):
    from explorer.core.shards import Shards

    calls = []

    def score(part):
        calls.append(list(part))
        return [{"hit": x % 2 == 0} for x in part]

    items = list(range(10))
    expected = [{"hit": x % 2 == 0} for x in items]
    assert Shards(folder=tmp_path, config={"limit": 10}).outcomes("id", items, score, 4) == expected
    assert calls == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    path = tmp_path / "rank-0-of-1.jsonl"
    path.write_text(path.read_text()[:-20])  # the last line torn: its chunk (8, 9) is scored again whole
    again = Shards(folder=tmp_path, config={"limit": 10})
    assert again.outcomes("id", items, score, 4) == expected and calls[3:] == [[8, 9]]
    assert again.report() == [{"rank": 0, "items": 10}]
    Shards(folder=tmp_path, config={"limit": 9}).outcomes("id", items, score, 4)  # another run: all afresh
    assert len(calls) == 4 + 3


def test_the_code_fingerprint_follows_every_source_of_the_package(tmp_path):
    """Shard files carry it: outcomes scored before a code change are not read back into the new report."""
    from explorer.core.shards import code_fingerprint

    (tmp_path / "methods").mkdir()
    (tmp_path / "methods" / "sgi.py").write_text("PROMPT = 'an star'\n")
    (tmp_path / "notes.txt").write_text("not code")
    before = code_fingerprint(tmp_path)
    (tmp_path / "notes.txt").write_text("still not code")
    assert code_fingerprint.__wrapped__(tmp_path) == before
    (tmp_path / "methods" / "sgi.py").write_text("PROMPT = 'a star'\n")
    assert code_fingerprint.__wrapped__(tmp_path) != before
    assert len(code_fingerprint()) == 16
