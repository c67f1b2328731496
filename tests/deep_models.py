"""Small models for the neural-metric tests, built in a temporary directory: a randomly
initialised BERT (a few thousand parameters) with a WordPiece vocabulary of the words
the tests use, saved as a Hugging Face directory (config, safetensors, vocab.txt)."""
from __future__ import annotations

import json
from pathlib import Path

WORDS = ("the a an i you we it is are was be to of and in that have for not on with as do at this but "
         "by from they say her she or will my one all would there their what so up out if about who get "
         "which go me when make can like time no just him know take people into year your good some "
         "could them see other than then now look only come its over think also back after use two how "
         "our work first well way even new want because any these give day most us flight check status "
         "hello thanks please help sorry delay gate bag ticket seat ##s ##ed ##ing ##ly . , ! ? '").split()
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_tiny_bert(directory: Path, *, layers: int = 2, hidden: int = 32, heads: int = 4, seed: int = 0,
                    hidden_act: str = "gelu") -> Path:
    import torch
    import transformers

    directory.mkdir(parents=True, exist_ok=True)
    vocab = SPECIAL + list(dict.fromkeys(WORDS))
    (directory / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    (directory / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 64}), encoding="utf-8")
    config = transformers.BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                                     num_attention_heads=heads, intermediate_size=2 * hidden,
                                     max_position_embeddings=64, hidden_act=hidden_act)
    torch.manual_seed(seed)
    model = transformers.BertModel(config)
    # Random init gives near-identical token vectors; wider weights make the tests discriminate.
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.normal_(0.0, 0.3)
    model.save_pretrained(str(directory))
    return directory


DIALOGUE_WORDS = "hello thanks please help sorry delay gate bag ticket seat flight check status good day".split()


def write_dialogue_corpus(path: Path, n: int = 240, seed: int = 0) -> Path:
    """``n`` random dialogues of 2-4 turns (3-7 words each) as plain text: one turn a line,
    a blank line between dialogues (a training corpus for the tiny models)."""
    import random

    rng = random.Random(seed)
    dialogues = [[" ".join(rng.choice(DIALOGUE_WORDS) for _ in range(rng.randint(3, 7)))
                  for _ in range(rng.randint(2, 4))] for _ in range(n)]
    path.write_text("\n\n".join("\n".join(d) for d in dialogues) + "\n", encoding="utf-8")
    return path
