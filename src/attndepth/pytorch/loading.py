"""Import torch and ``transformers`` on demand, with the install hint when they are absent,
and the seeded generators every torch measurement draws from."""

from __future__ import annotations

from typing import Any

from attndepth.errors import InvalidParameter, MissingExtra
from attndepth.validation import check_choice, check_seed

#: How to install torch: the CPU build is small; the newest torch with CUDA is gigabytes.
TORCH_HINT = ('pip install "attndepth[torch]" (a CPU-only build: pip install torch '
              '--index-url https://download.pytorch.org/whl/cpu)')
#: How to install the Hugging Face architectures.
HF_HINT = 'pip install "attndepth[hf]"'
#: The precisions a model is observed in.
DTYPES = ("float64", "float32")


def load_torch() -> Any:
    """``import torch``, or :class:`~attndepth.errors.MissingExtra` naming the extra."""
    try:
        import torch
    except ModuleNotFoundError:
        raise MissingExtra(f"this needs PyTorch: {TORCH_HINT}") from None
    return torch


def load_transformers() -> Any:
    """``import transformers``, or :class:`~attndepth.errors.MissingExtra` naming the extra."""
    load_torch()
    try:
        import transformers
    except ModuleNotFoundError:
        raise MissingExtra(f"the Hugging Face architectures need transformers: "
                           f"{HF_HINT}") from None
    return transformers


def available() -> bool:
    """Whether torch can be imported."""
    try:
        load_torch()
    except ModuleNotFoundError:
        return False
    return True


def torch_dtype(name: str) -> Any:
    """The torch dtype of ``float64`` or ``float32``."""
    torch = load_torch()
    return getattr(torch, check_choice("dtype", name, DTYPES))


def generator(seed: object, device: str = "cpu") -> Any:
    """A ``torch.Generator`` seeded with ``seed``: the same seed, the same draws.

    Parameters
    ----------
    seed : int >= 0
    device : ``cpu`` or ``cuda`` (a CUDA generator draws other numbers than a CPU one).

    Returns
    -------
    torch.Generator
    """
    torch = load_torch()
    seed = check_seed("seed", seed)
    check_device(device)
    made = torch.Generator(device=device)
    made.manual_seed(seed)
    return made


def check_device(device: object) -> str:
    """``cpu``, ``cuda`` or ``cuda:N`` (:data:`attndepth.environment.DEVICE`), the latter
    only where torch sees a GPU (GPU N)."""
    from attndepth.environment import DEVICE
    from attndepth.errors import shown

    if not isinstance(device, str) or not DEVICE.fullmatch(device):
        raise InvalidParameter(f"device must be 'cpu', 'cuda' or 'cuda:N', got "
                               f"{shown(device, 40)}")
    if device == "cpu":
        return device
    torch = load_torch()
    if not torch.cuda.is_available():
        raise InvalidParameter(f"device {device!r} was asked for, but torch sees no GPU here")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise InvalidParameter(f"device {device!r} was asked for, but torch sees "
                               f"{torch.cuda.device_count()} GPU(s) here")
    return device
