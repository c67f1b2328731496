"""A transformer encoder's hidden states through ONNX Runtime on the CPU.

Measured in ``benchmarks/deep/compare.py`` (2000 distinct DSTC-6 sentences, MiniLM,
2 cores): ONNX Runtime on the encoder's length-sorted batches ran 1.59x
sentence-transformers' ``encode``, the fused PyTorch layers 1.42x, at the same output
(cosine gap 2e-12); the model's arithmetic at this machine's measured matrix-multiply
peak would be 1.70x. It is an option, not the default, because it needs two more
packages and a one-time export per model and layer (about 1.5 s for MiniLM).

The model's ``transformers`` forward, cut at the hidden state of the layer asked for, is
exported once per model and layer to ``$FASTAMFM_CACHE_DIR/onnx`` (keyed by the model's
full-content fingerprint and the torch version that exported it; built aside, swapped in
whole and verified on every load: ``derived_cache``), then run by one ONNX Runtime
session per layer with the encoder's thread count.
"""
from __future__ import annotations

import threading
from pathlib import Path

from ..io.cache_dir import CACHE_KINDS, cache_dir
from ..models.derived_cache import verified_cache
from ..models.safe_loading import from_pretrained
from ..runtime import import_torch, import_transformers

INSTALL_HINT = 'pip install ".[onnx]" in the fastamfm checkout  (onnxruntime and onnx)'


def missing_reason() -> str | None:
    """Why the ONNX Runtime backend cannot run here, or None."""
    for module in ("onnxruntime", "onnx"):
        try:
            __import__(module)
        except ImportError:
            return f"the ONNX Runtime backend needs the {module} package: {INSTALL_HINT}"
    return None


def _export(directory: Path, layer: int, target: Path) -> None:
    import_torch()   # an ImportError naming the extra when torch is missing
    import torch

    transformers = import_transformers()
    # The eager attention exports as plain operators, which ONNX Runtime fuses.
    model = from_pretrained(transformers.AutoModel, directory, "encoder", weights=True,
                            attn_implementation="eager").eval().float()
    num_layers = int(model.config.num_hidden_layers)

    class HiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask):
            out = self.model(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=torch.zeros_like(input_ids), output_hidden_states=layer != num_layers)
            return out.last_hidden_state if layer == num_layers else out.hidden_states[layer]

    example = (torch.ones(2, 5, dtype=torch.long), torch.ones(2, 5, dtype=torch.long))
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "hidden": {0: "batch", 1: "tokens"}}
    with torch.inference_mode(False), torch.no_grad():
        torch.onnx.export(HiddenState().eval(), example, str(target), input_names=["input_ids", "attention_mask"],
                          output_names=["hidden"], dynamic_axes=axes, opset_version=17, dynamo=False)


def exported_model(directory: Path, fingerprint: str, layer: int) -> Path:
    """The ONNX file of ``directory``'s hidden state at ``layer`` (exported on first use,
    verified against its record on every later one: ``derived_cache``)."""
    torch = import_torch()
    name = f"{fingerprint}-layer{layer}-torch{torch.__version__}"
    cache = verified_cache(cache_dir() / "onnx" / name, f"model:{fingerprint}:layer{layer}:torch{torch.__version__}",
                           lambda staging: _export(directory, layer, staging / "hidden.onnx"),
                           f"exporting the encoder's layer {layer} to ONNX", duration=CACHE_KINDS["onnx"][1])
    return cache / "hidden.onnx"


class OnnxHiddenStates:
    """Hidden states [batch, tokens, hidden] of a model directory at any layer, zero at
    padding, from ONNX Runtime sessions made on first use of each layer."""

    def __init__(self, directory: Path, fingerprint: str, workers: int):
        reason = missing_reason()
        if reason is not None:
            raise ImportError(reason)
        self._directory = directory
        self._fingerprint = fingerprint
        self._workers = workers
        self._sessions: dict = {}
        self._lock = threading.Lock()

    def _session(self, layer: int):
        with self._lock:
            if layer not in self._sessions:
                import onnxruntime

                options = onnxruntime.SessionOptions()
                options.intra_op_num_threads = self._workers
                options.inter_op_num_threads = 1
                # Threads that spin between batches would take the cores from the caller's
                # other work (tokenizing, pooling) on a small machine.
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                path = exported_model(self._directory, self._fingerprint, layer)
                self._sessions[layer] = onnxruntime.InferenceSession(str(path), options,
                                                                     providers=["CPUExecutionProvider"])
            return self._sessions[layer]

    def __call__(self, input_ids, attention_mask, layer: int):
        torch = import_torch()
        session = self._session(layer)
        feeds = {"input_ids": input_ids.numpy(), "attention_mask": attention_mask.numpy()}
        # The embeddings (layer 0) do not read the mask, so that graph has no such input.
        hidden = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0]
        out = torch.from_numpy(hidden)
        return out * attention_mask.unsqueeze(-1).to(out.dtype)
