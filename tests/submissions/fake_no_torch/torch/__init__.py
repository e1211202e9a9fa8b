# Fixture: a `torch` that cannot be imported, put first on PYTHONPATH by the tests, so that the
# "no torch" path of --submission is tested the same way on machines with and without torch.
raise ModuleNotFoundError("No module named 'torch' (fixture: tests/submissions/fake_no_torch)", name="torch")
