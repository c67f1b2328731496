"""BERT-family encoder layers run through PyTorch's fused transformer-layer kernel on
nested (padding-free) tensors: one native call per layer instead of some forty small
operators with Python between them, and no work on padding positions.

A BERT layer (post-LayerNorm self-attention with biases, then a GELU feed-forward
block, each added to its input and normalised) is exactly the computation of
``torch._transformer_encoder_layer_fwd`` (the kernel behind ``nn.TransformerEncoderLayer``'s
inference fast path), so the weights are only re-packed (query/key/value stacked).
The embeddings stay the model's own module. Models outside this shape (other
activations, relative positions, decoders) are refused by ``unsupported_reason`` and run
through their ``transformers`` forward instead.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

from ..runtime import import_torch

# Architectures whose layers are BertLayer-shaped (attention.self.query/key/value,
# attention.output.{dense,LayerNorm}, intermediate.dense, output.{dense,LayerNorm}).
BERT_SHAPED = ("bert", "roberta", "xlm-roberta", "camembert")


def unsupported_reason(model) -> str | None:
    """Why the fused path cannot run ``model`` exactly (None when it can)."""
    config = model.config
    if config.model_type not in BERT_SHAPED:
        return f"model type {config.model_type!r} is not one of {BERT_SHAPED}"
    if getattr(config, "is_decoder", False):
        return "the model is a decoder"
    if config.hidden_act != "gelu":
        return f"activation {config.hidden_act!r} (the fused kernel has exact GELU and ReLU only)"
    if getattr(config, "position_embedding_type", "absolute") != "absolute":
        return f"position embeddings {config.position_embedding_type!r} enter the attention scores"
    if config.num_attention_heads % 2:
        return "an odd number of attention heads"
    encoder = getattr(model, "encoder", None)
    if encoder is None or not hasattr(encoder, "layer"):
        return "no encoder.layer list"
    return None


@dataclass(frozen=True)
class _LayerWeights:
    qkv_weight: object
    qkv_bias: object
    out_weight: object
    out_bias: object
    norm1_weight: object
    norm1_bias: object
    ffn_in_weight: object
    ffn_in_bias: object
    ffn_out_weight: object
    ffn_out_bias: object
    norm2_weight: object
    norm2_bias: object


class FusedEncoderLayers:
    """The hidden states of layers 0..L of a BERT-shaped model (0 = embeddings)."""

    def __init__(self, model):
        torch = import_torch()
        # The nested-tensor kernel is stable for this use; its "prototype API" notice would
        # repeat on every batch.
        warnings.filterwarnings("ignore", message="The PyTorch API of nested tensors is in prototype stage")
        config = model.config
        self._embeddings = model.embeddings
        self._hidden = config.hidden_size
        self._heads = config.num_attention_heads
        self._eps = config.layer_norm_eps
        self._layers = []
        for layer in model.encoder.layer:
            attention = layer.attention
            q, k, v = attention.self.query, attention.self.key, attention.self.value
            self._layers.append(_LayerWeights(
                torch.cat([q.weight, k.weight, v.weight]).contiguous(),
                torch.cat([q.bias, k.bias, v.bias]).contiguous(),
                attention.output.dense.weight, attention.output.dense.bias,
                attention.output.LayerNorm.weight, attention.output.LayerNorm.bias,
                layer.intermediate.dense.weight, layer.intermediate.dense.bias,
                layer.output.dense.weight, layer.output.dense.bias,
                layer.output.LayerNorm.weight, layer.output.LayerNorm.bias))

    @property
    def num_layers(self) -> int:
        return len(self._layers)

    def __call__(self, input_ids, attention_mask, layer: int):
        """Hidden states [batch, tokens, hidden] after ``layer`` layers, zero at padding."""
        torch = import_torch()
        x = self._embeddings(input_ids=input_ids, token_type_ids=torch.zeros_like(input_ids))
        if layer == 0:
            return x * attention_mask.unsqueeze(-1).to(x.dtype)
        x = torch._nested_tensor_from_mask(x, attention_mask.bool())
        for w in self._layers[:layer]:
            x = torch._transformer_encoder_layer_fwd(
                x, self._hidden, self._heads, w.qkv_weight, w.qkv_bias, w.out_weight, w.out_bias,
                True,    # GELU (exact, erf), as BERT's "gelu"
                False,   # post-LayerNorm, as BERT
                self._eps, w.norm1_weight, w.norm1_bias, w.norm2_weight, w.norm2_bias,
                w.ffn_in_weight, w.ffn_in_bias, w.ffn_out_weight, w.ffn_out_bias)
        return x.to_padded_tensor(0.0, (*attention_mask.shape, self._hidden))
