"""Neural metrics (the ``deep`` extra: PyTorch + transformers): sentence encoders for Deep
AM and BERTScore, neural language models for Deep FM, and their combination DeepAMFM.

Nothing here is imported by ``import fastamfm`` unless used: torch loads on first use, and
a missing extra is an ImportError that says ``pip install ".[deep]" in the fastamfm checkout``. Models come
from local directories or installed model packages only; nothing is downloaded.
"""
