"""torch.nn for the CPU stand-in: just what python/kernels/torch_sdpa.py imports, so that its
declarations (ids, supports()) load and plan on the CPU."""
