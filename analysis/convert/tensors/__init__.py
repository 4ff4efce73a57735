"""Tensors: method calls, in-place methods and out= buffers, scatter, dtype information, device moves."""
