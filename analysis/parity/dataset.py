"""Loss-curve batches from the repo's own dataset, drawn once in the
sandboxed child on the PyTorch side and handed to both frameworks as the
same numpy arrays (so the converted cell sees byte-identical batches).

Samples are taken in order, no shuffling, wrapping around when the dataset
is shorter than the run needs; a batch stacks `batch_size` samples the way
PyTorch's default collate does for tensors of one shape.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from itertools import islice

import numpy as np


class DatasetError(ValueError):
    """The named dataset cannot give batches; the entry reports it as an error."""


@dataclass
class Batch:
    inputs: list[np.ndarray]
    label: np.ndarray | None

    def digest(self) -> str:
        """Short fingerprint of the batch's bytes, recorded in the report."""
        h = hashlib.sha1()
        for array in self.inputs + ([self.label] if self.label is not None else []):
            h.update(str(array.dtype).encode() + str(array.shape).encode())
            h.update(np.ascontiguousarray(array).tobytes())
        return h.hexdigest()[:12]


def draw_batches(dataset, spec: dict, count: int) -> list[Batch]:
    """`count` batches of `spec["batch_size"]` samples, in order."""
    size = int(spec.get("batch_size", 8))
    samples = list(islice(_cycle(dataset), count * size))
    batches = []
    for start in range(0, len(samples), size):
        chunk = samples[start:start + size]
        parts = [_split(sample, spec, start + i) for i, sample in enumerate(chunk)]
        batches.append(_collate(parts, start))
    return batches


def input_specs(batch: Batch) -> list[dict]:
    """Manifest-style input specs describing a batch (for the report and
    for the checks that need shapes)."""
    specs = []
    for array in batch.inputs:
        spec = {"shape": list(array.shape), "dtype": str(array.dtype)}
        if np.issubdtype(array.dtype, np.integer) and array.size:
            spec["range"] = [int(array.min()), int(array.max()) + 1]
        specs.append(spec)
    return specs


def _cycle(dataset):
    """Samples in order, forever; map-style datasets by index, others by
    iterating again from the start."""
    if hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__"):
        length = len(dataset)
        if length == 0:
            raise DatasetError("the dataset is empty")
        index = 0
        while True:
            yield dataset[index % length]
            index += 1
    if not hasattr(dataset, "__iter__"):
        raise DatasetError(f"{type(dataset).__name__} has neither __len__/__getitem__ nor __iter__")
    while True:
        seen = False
        for sample in dataset:
            seen = True
            yield sample
        if not seen:
            raise DatasetError("the dataset is empty")


def _split(sample, spec: dict, position: int) -> tuple[list[np.ndarray], np.ndarray | None]:
    """(inputs, label) of one sample: dict samples by input_keys/label_key,
    tuple samples item 0 in and item 1 label (or by index keys), a bare
    tensor as the only input."""
    keys, label_key = spec.get("input_keys"), spec.get("label_key")
    if isinstance(sample, dict):
        if not keys:
            raise DatasetError(f"samples are dicts (keys: {', '.join(map(str, sample))}); "
                               "name input_keys (and label_key) in the manifest's dataset table")
        missing = [k for k in keys + ([label_key] if label_key is not None else []) if k not in sample]
        if missing:
            raise DatasetError(f"sample {position} has no key {missing[0]!r} (keys: {', '.join(map(str, sample))})")
        return [_array(sample[k], position) for k in keys], _label(sample, label_key, position)
    if isinstance(sample, (tuple, list)):
        keys = keys or [0]
        if label_key is None and len(sample) > 1:
            label_key = 1
        try:
            return [_array(sample[int(k)], position) for k in keys], _label(sample, label_key, position)
        except (IndexError, ValueError, TypeError) as exc:
            raise DatasetError(f"sample {position}: input_keys/label_key do not index a {len(sample)}-item sample "
                               f"({exc})") from exc
    return [_array(sample, position)], None


def _label(sample, key, position: int) -> np.ndarray | None:
    if key is None:
        return None
    return _array(sample[key] if isinstance(sample, dict) else sample[int(key)], position)


def _array(value, position: int) -> np.ndarray:
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    try:
        array = np.asarray(value)
    except Exception as exc:  # user objects with odd __array__
        raise DatasetError(f"sample {position}: cannot turn a {type(value).__name__} into an array ({exc})") from exc
    if array.dtype == object:
        raise DatasetError(f"sample {position}: a {type(value).__name__} is not a tensor or number")
    return array


def _collate(parts: list[tuple[list[np.ndarray], np.ndarray | None]], start: int) -> Batch:
    first_inputs, first_label = parts[0]
    for offset, (inputs, label) in enumerate(parts[1:], start=1):
        where = start + offset
        if len(inputs) != len(first_inputs):
            raise DatasetError(f"sample {where} has {len(inputs)} inputs, sample {start} had {len(first_inputs)}")
        for i, (a, b) in enumerate(zip(inputs, first_inputs)):
            if a.shape != b.shape:
                raise DatasetError(f"sample {where}: input {i} has shape {list(a.shape)}, sample {start} had "
                                   f"{list(b.shape)} (batches need samples of one shape)")
        if (label is None) != (first_label is None) or (label is not None and label.shape != first_label.shape):
            raise DatasetError(f"sample {where}: label shape {None if label is None else list(label.shape)}, "
                               f"sample {start} had {None if first_label is None else list(first_label.shape)}")
    inputs = [np.stack([p[0][i] for p in parts]) for i in range(len(first_inputs))]
    label = None if first_label is None else np.stack([p[1] for p in parts])
    return Batch(inputs, label)
