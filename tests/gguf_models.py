"""A tiny GGUF file written in the test (no weights downloaded): the tiny random Llama of
``causal_models`` with its BPE tokenizer, as float32 tensors under llama.cpp's tensor
names, through the ``gguf`` package's writer. ``chat_template`` is stored as the file's
``tokenizer.chat_template`` (the template fastamfm renders in style="chat")."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from causal_models import CHATML_WITH_DEFAULT_SYSTEM, make_model


def _permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's row order of q/k projections (transformers undoes it on reading)."""
    rows = weights.shape[0]
    return weights.reshape(heads, 2, rows // heads // 2, *weights.shape[1:]).swapaxes(1, 2).reshape(weights.shape)


def write_tiny_gguf(path: Path, *, chat_template: str | None = CHATML_WITH_DEFAULT_SYSTEM, seed: int = 0) -> Path:
    import gguf
    import torch
    from transformers import AutoModelForCausalLM

    source = make_model(path.parent / f"{path.stem}-hf", "llama", seed=seed)
    model = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
    config = model.config
    tokenizer = json.loads((source / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    tokens = [None] * len(vocab)
    for text, i in vocab.items():
        tokens[i] = text
    specials = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    for text, i in specials.items():
        if i >= len(tokens):
            tokens.extend([None] * (i + 1 - len(tokens)))
        tokens[i] = text
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_dimension_count(config.hidden_size // config.num_attention_heads)
    writer.add_rope_freq_base(float(config.rope_parameters["rope_theta"]) if getattr(config, "rope_parameters", None)
                              else 10000.0)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types([gguf.TokenType.CONTROL if t in specials else gguf.TokenType.NORMAL for t in tokens])
    writer.add_token_merges(merges)
    writer.add_bos_token_id(specials["<|im_start|>"])
    writer.add_eos_token_id(specials["<|im_end|>"])
    writer.add_unk_token_id(specials["<|endoftext|>"])
    writer.add_pad_token_id(specials["<|im_end|>"])
    if chat_template is not None:
        writer.add_chat_template(chat_template)
    names = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight"}
    per_layer = {"self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v",
                 "self_attn.o_proj": "attn_output", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
                 "mlp.down_proj": "ffn_down", "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm"}
    for name, tensor in model.state_dict().items():
        if name == "lm_head.weight":
            continue  # tied to the embeddings
        weights = tensor.numpy().astype(np.float32)
        if name.startswith("model.layers."):
            _, _, layer, rest = name.split(".", 3)
            module, kind = rest.rsplit(".", 1)
            if module == "self_attn.q_proj":
                weights = _permute(weights, config.num_attention_heads)
            elif module == "self_attn.k_proj":
                weights = _permute(weights, config.num_key_value_heads)
            gguf_name = f"blk.{layer}.{per_layer[module]}.{kind}"
        else:
            gguf_name = names[name]
        writer.add_tensor(gguf_name, weights)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
