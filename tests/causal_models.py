"""Tiny random causal LMs with a real tokenizer, built in a test's tmp_path (no weights
downloaded): a Llama-style and a GPT-2-style model, and a ChatML template that, like
SmolLM2's, inserts a default system prompt when the conversation has none."""
from __future__ import annotations

from pathlib import Path

CHATML_WITH_DEFAULT_SYSTEM = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a default assistant<|im_end|>\n' }}{% endif %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
DEFAULT_SYSTEM_TEXT = "You are a default assistant"

CORPUS = [
    "hello , how are you today ?", "i am fine , thank you very much .", "what do you like to do on weekends ?",
    "I like hiking and reading books.", "The weather is nice; let's go outside!", "Do you have any pets?",
    "Yes, a dog named Max and two cats.", "that sounds lovely . i love animals too .",
]


def make_tokenizer(directory: Path):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(CORPUS, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                   unk_token="<|endoftext|>", pad_token="<|im_end|>")
    fast.chat_template = CHATML_WITH_DEFAULT_SYSTEM
    fast.save_pretrained(directory)
    return fast


def make_model(directory: Path, kind: str = "llama", *, seed: int = 0, max_positions: int = 256) -> Path:
    """A tiny random model of ``kind`` ("llama" or "gpt2") with the tokenizer, saved in ``directory``."""
    import torch
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig

    directory.mkdir(parents=True, exist_ok=True)
    tokenizer = make_tokenizer(directory)
    torch.manual_seed(seed)
    if kind == "llama":
        config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=max_positions,
                             tie_word_embeddings=True, bos_token_id=1, eos_token_id=2)
    elif kind == "gpt2":
        config = GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=4, n_positions=max_positions,
                            bos_token_id=0, eos_token_id=0)
    else:
        raise ValueError(kind)
    model = AutoModelForCausalLM.from_config(config)
    # Random init is near-uniform; spread the weights so log-probabilities differ by token.
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(8.0) if p.dim() > 1 else None
    model.save_pretrained(directory)
    return directory
