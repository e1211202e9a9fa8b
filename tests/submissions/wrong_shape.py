"""Fixture: custom_kernel returns a tensor of the wrong shape (nvfp4bench: FAIL with the reason)."""
import torch
from task import input_t, output_t


def custom_kernel(data: input_t) -> output_t:
    if isinstance(data[0], list):  # group_gemm: one c too few
        return [c for _, _, c in data[0]][:-1]
    c = data[-1]
    return torch.zeros((c.shape[0] + 1, c.shape[1], c.shape[2]), dtype=torch.float16, device=c.device)
