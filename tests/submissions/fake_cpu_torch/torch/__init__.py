# Fixture: a `torch` without CUDA, put first on PYTHONPATH by the tests, so that the "no CUDA in
# torch" path of --submission is tested on any machine (with or without a real torch or a GPU).
import types

__version__ = "0.0+fixture-cpu"
version = types.SimpleNamespace(cuda=None)
cuda = types.SimpleNamespace(is_available=lambda: False)
