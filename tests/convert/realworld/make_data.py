"""Small synthetic data in the on-disk formats the realworld training scripts read (issue 16's proof):
MNIST idx files (torchvision's root/MNIST/raw layout, which MindSpore's MnistDataset reads as well),
a word-level text file for the language model, and nanoGPT's train.bin/val.bin token files.

Images are class-dependent patterns with noise, so a few training steps lower the loss in both
frameworks. Deterministic: the same seed gives the same bytes."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

MNIST_TRAIN, MNIST_TEST = 300, 100
WORDS = ("the cat dog runs sleeps eats a big small red blue house tree over under quickly slowly and "
         "sees finds bird fish").split()


def _idx(path: Path, array: np.ndarray) -> None:
    """An idx file: magic (dtype ubyte, ndim), big-endian sizes, the raw bytes."""
    header = struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def mnist(root: Path, seed: int = 0) -> Path:
    """root/MNIST/raw/{train,t10k}-{images-idx3,labels-idx1}-ubyte; returns the raw folder."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for prefix, count in (("train", MNIST_TRAIN), ("t10k", MNIST_TEST)):
        labels = rng.integers(0, 10, count).astype(np.uint8)
        images = rng.integers(0, 60, (count, 28, 28)).astype(np.int32)
        for i, label in enumerate(labels):  # a bright bar whose place says the class
            row = 2 + int(label) * 2
            images[i, row:row + 3, 4:24] += 180
        _idx(raw / f"{prefix}-images-idx3-ubyte", np.clip(images, 0, 255))
        _idx(raw / f"{prefix}-labels-idx1-ubyte", labels)
    return raw


def text(path: Path, lines: int = 400, seed: int = 0) -> Path:
    """A word-level corpus: short sentences over a small vocabulary."""
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(" ".join(rng.choice(WORDS, int(rng.integers(4, 10)))) for _ in range(lines)) + "\n")
    return path


def tokens(folder: Path, count: int = 20000, vocab: int = 65, seed: int = 0) -> Path:
    """nanoGPT's uint16 token files (train.bin, val.bin) and a meta.pkl giving the vocabulary size."""
    import pickle

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    base = np.arange(count) % vocab  # a learnable sequence with some noise
    noise = rng.integers(0, vocab, count)
    data = np.where(rng.random(count) < 0.2, noise, base).astype(np.uint16)
    data[: int(count * 0.9)].tofile(folder / "train.bin")
    data[int(count * 0.9):].tofile(folder / "val.bin")
    (folder / "meta.pkl").write_bytes(pickle.dumps({"vocab_size": vocab}))
    return folder


if __name__ == "__main__":
    import sys

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "data")
    print(mnist(out), text(out / "train.txt"), tokens(out / "tokens"))
