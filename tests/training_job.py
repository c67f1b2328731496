"""A tiny training run in its own process, for the resume-after-SIGKILL test:

    python training_job.py MODEL_DIR CORPUS WORK_DIR STEPS [--resume] [--slow SECONDS]

trains the causal LM in MODEL_DIR on CORPUS for STEPS steps (checkpoint every 3 steps)
and saves the final weights to WORK_DIR/final.safetensors. ``--slow`` sleeps in every
step, so a test can kill the process between two checkpoints."""
from __future__ import annotations

import sys
import time
from pathlib import Path


def main() -> None:
    model_dir, corpus, work, steps = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    resume = "--resume" in sys.argv
    slow = float(sys.argv[sys.argv.index("--slow") + 1]) if "--slow" in sys.argv else 0.0
    import safetensors.torch
    import transformers
    from fastamfm.neural.dialogue_format import FormatSettings
    from fastamfm.neural.hf_tokenizer import HFTokenizer
    from fastamfm.training import DialogueCorpus, TrainingSettings, set_seed, train
    from fastamfm.training.causal_lm_task import CausalLMTask

    class SlowTask(CausalLMTask):
        def loss(self, model, batch):
            time.sleep(slow)
            return super().loss(model, batch)

    set_seed(0)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir)
    task = SlowTask(model, HFTokenizer.load(model_dir), FormatSettings())
    settings = TrainingSettings(max_steps=steps, batch_size=2, learning_rate=1e-3, checkpoint_steps=3,
                                keep_checkpoints=2, device="cpu", progress=False, threads=1)
    train(task, DialogueCorpus([corpus], blocklist=False), settings, directory=work, resume=resume)
    state = {k: v.contiguous() for k, v in model.state_dict().items() if k != "lm_head.weight"}
    safetensors.torch.save_file(state, str(work / "final.safetensors"))


if __name__ == "__main__":
    main()
