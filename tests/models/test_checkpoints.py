"""The checkpoint registry and the one way to load an encoder: every shipped checkpoint resolves and loads."""

import numpy as np
import pytest
import torch

from explorer import world
from explorer.methods import get_method
from explorer.models import checkpoints
from explorer.models.loader import EncoderSpec, load_encoder, resolve
from explorer.models.model_errors import ModelUnavailable

SHIPPED = sorted(checkpoints.REGISTRY)


def test_the_registry_names_every_shipped_checkpoint():
    assert SHIPPED == sorted(["world-clip", "world-clip-powerclip", "world-clip-tflocal", "world-clip-tfglobal",
                              "world-clip-finetune"])
    files = {p.stem for p in checkpoints.EMBEDDED.path.parent.glob("*.safetensors")}
    assert files == set(SHIPPED), "a checkpoint in checkpoints/ that the registry does not know (or the reverse)"
    assert [c.name for c in checkpoints.encoders()] == ["world-clip", "world-clip-powerclip"]
    assert {v: checkpoints.for_variant(v).name for v in checkpoints.ALIGN_VARIANTS} == {
        "local": "world-clip-tflocal", "global": "world-clip-tfglobal", "finetune": "world-clip-finetune"}


@pytest.mark.parametrize("name", SHIPPED)
def test_each_entry_has_weights_a_record_and_a_card(name):
    entry = checkpoints.get(name)
    assert entry.path.is_file() and entry.record_path.is_file() and entry.card.is_file()
    assert checkpoints.by_path(entry.path) == entry
    config = entry.config
    if entry.kind == checkpoints.ENCODER:
        assert config["model"] == entry.model and "model_config" in entry.record
    else:
        assert config["variant"] == entry.variant and entry.record["encoder"] == "world-clip (embedded)"
    assert ("align_config" in entry.record) == (entry.kind == checkpoints.ALIGNER)


@pytest.mark.parametrize("name", [n for n in SHIPPED if checkpoints.get(n).is_encoder])
def test_every_shipped_encoder_loads_by_name_and_by_path(name, embedded):
    entry = checkpoints.get(name)
    by_name = load_encoder(EncoderSpec(checkpoint=name, device="cpu"))
    by_path = load_encoder(EncoderSpec(checkpoint=str(entry.path), device="cpu"))
    assert by_name.checkpoint == by_path.checkpoint == entry.path and by_name.name == entry.model
    assert by_name.is_embedded == (entry == checkpoints.EMBEDDED)
    image = world.random_scene(np.random.default_rng(0), world.seen_combos(), 2).render(64)
    torch.testing.assert_close(by_name.encode_image(image).embedding, by_path.encode_image(image).embedding)
    if entry != checkpoints.EMBEDDED:  # its own weights
        assert not torch.equal(by_name.encode_image(image).embedding, embedded.encode_image(image).embedding)


@pytest.mark.parametrize("name", [n for n in SHIPPED if checkpoints.get(n).kind == checkpoints.ALIGNER])
def test_every_shipped_aligner_loads_by_name_through_its_method(name, embedded):
    entry = checkpoints.get(name)
    method = get_method(checkpoints.ALIGN_VARIANTS[entry.variant], embedded, checkpoint=name)
    assert method.trained and method.model.cfg.variant == entry.variant
    with pytest.raises(ModelUnavailable, match="is an aligner, not an encoder"):
        load_encoder(EncoderSpec(checkpoint=name))


def test_no_spec_is_the_embedded_model(embedded):
    encoder = load_encoder(EncoderSpec(device="cpu"))
    assert encoder.is_embedded and encoder.checkpoint == checkpoints.EMBEDDED.path == embedded.checkpoint


def test_an_unknown_name_says_which_names_are_known():
    with pytest.raises(ModelUnavailable) as err:
        load_encoder(EncoderSpec(checkpoint="world-clip-nonesuch"))
    message = str(err.value)
    assert "world-clip-nonesuch" in message and all(name in message for name in SHIPPED)
    with pytest.raises(checkpoints.UnknownCheckpoint, match="known ones are world-clip, "):
        checkpoints.get("nonesuch")


def test_a_missing_file_is_named_as_a_file_not_a_checkpoint_name(tmp_path):
    with pytest.raises(ModelUnavailable, match="No checkpoint file gone.safetensors: nothing at the path given") as err:
        load_encoder(EncoderSpec(checkpoint=str(tmp_path / "gone.safetensors")))
    assert str(tmp_path) not in str(err.value)  # the file's name, never the folder of a server
    assert resolve(None) == (None, None)


def test_the_cli_takes_a_shipped_name_for_checkpoint():
    from explorer.cli import build_parser
    from explorer.commands.model_args import encoder_spec
    from explorer.core.settings import Settings

    args = build_parser(Settings()).parse_args(["eval", "--checkpoint", "world-clip-powerclip"])
    spec = encoder_spec(Settings().with_flags(args, args.settings_flags))
    assert resolve(spec.checkpoint)[1] == checkpoints.get("world-clip-powerclip")


class _RunsCode:
    """A pickle that would create a file if it were ever unpickled."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_bad_checkpoint_file_is_named_with_what_is_wrong_with_it(tmp_path, embedded):
    """The message names the file passed and the real cause; torch's advice to load a refused pickle unsafely never
    reaches the user, and the pickle never runs."""
    from safetensors.torch import save_file

    garbage, pickled, foreign, broken, cut = (tmp_path / n for n in ("noise.pt", "code.pt", "foreign.safetensors",
                                                                     "broken.safetensors", "cut.pth"))
    garbage.write_bytes(bytes(range(256)) * 8)
    marker = tmp_path / "ran"
    torch.save({"visual.proj": _RunsCode(marker)}, pickled)
    save_file({"another.model": torch.zeros(3)}, foreign)
    broken.write_bytes(b"\x10\x00")
    torch.save(embedded.model.state_dict(), cut)
    cut.write_bytes(cut.read_bytes()[:100_000])  # a download that stopped
    for path, cause in ((garbage, "is not a PyTorch or safetensors weights file"),
                        (pickled, "holds Python objects besides tensors (io.open), which could run code"),
                        (foreign, f"do not fit this model ({len(embedded.model.state_dict())} of the model's weights "
                                  f"missing from it, 1 unknown to the model"),
                        (broken, "is not a readable safetensors file"),
                        (cut, "it is cut short or damaged: the file ends before its data does")):
        with pytest.raises(ModelUnavailable) as err:
            load_encoder(EncoderSpec(checkpoint=str(path)))
        message = str(err.value)
        assert f"checkpoint file {path.name} into 'world-clip'" in message and cause in message, message
        assert str(tmp_path) not in message and message.endswith("."), message  # no server path, no cut sentence
        assert "weights_only" not in message and "pretrained weights 'None'" not in message
    assert not marker.exists()
