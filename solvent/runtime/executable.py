"""Compiling StableHLO text with XLA through PJRT, and what the executable can tell."""

from __future__ import annotations

from jax._src.lib import xla_client

from solvent.errors import CompileError
from solvent.runtime import devices


def compile(module_text: str, device=None):
    """A PJRT `LoadedExecutable` for a module whose entry point is `main`, on one device."""
    device = devices.resolve(device)
    options = xla_client.CompileOptions()
    try:
        return device.client.compile_and_load(module_text, xla_client.DeviceList((device,)), options)
    except Exception as error:  # XLA reports every failure as JaxRuntimeError
        raise CompileError(f"XLA could not compile the program: {error}") from error


def hlo_text(executable) -> str:
    """XLA's optimized HLO module(s), as text."""
    return "\n".join(module.to_string() for module in executable.hlo_modules())
