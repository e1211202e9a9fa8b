"""Fixture: custom_kernel raises (nvfp4bench: an ERROR row with the exception's last line)."""
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    raise ValueError("fixture: this submission always raises")
