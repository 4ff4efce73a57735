"""Layers PyTorch builds by a class method, written into a converted file like the definitions of
helper_source.py (same rules: read as text by helpers.py, never imported by the converter; tests
import it to check each one against PyTorch)."""
from mindspore import nn


def embedding_from_pretrained(embeddings, freeze=True):
    """torch.nn.Embedding.from_pretrained(embeddings, freeze): an Embedding whose table is embeddings,
    left out of training (requires_grad False, so not among trainable_params()) when freeze."""
    layer = nn.Embedding(embeddings.shape[0], embeddings.shape[1], embedding_table=embeddings)
    layer.embedding_table.requires_grad = not freeze
    return layer
