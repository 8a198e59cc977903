import os

# Tests never reach the model hub: a pretrained tag must fail at once with the clear message.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("EXPLORER_DEVICE", "cpu")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(2)


@pytest.fixture(scope="session")
def embedded():
    from explorer.encoders import DualEncoder

    return DualEncoder()


@pytest.fixture(scope="session")
def random_vit():
    """A registry model with random weights (pretrained=None): never downloads."""
    from explorer.encoders import DualEncoder

    return DualEncoder("ViT-B-32", pretrained=None)


@pytest.fixture
def rng():
    return np.random.default_rng(1234)
