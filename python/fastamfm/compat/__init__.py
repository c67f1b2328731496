"""Drop-in modules for code written against sacrebleu (2.6.0) and Google's rouge-score:
the same import paths, classes, functions and printed output, every number computed by
fastamfm (``fastamfm.metrics.sacrebleu``, ``chrf``, ``rouge_score`` and the C++ core they
call). Neither peer is imported.

Use::

    from fastamfm.compat import sacrebleu              # or: import fastamfm.compat.sacrebleu as sacrebleu
    bleu = sacrebleu.corpus_bleu(hyps, [refs_stream_1, refs_stream_2])
    print(bleu, sacrebleu.metrics.BLEU().get_signature())

    from fastamfm.compat.rouge_score import rouge_scorer, scoring
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    scorer.score(target, prediction)["rougeL"].fmeasure

The layout is the peers', not fastamfm's: sacrebleu takes reference *streams*
(``refs[j][i]`` is the j-th reference of hypothesis i, ``None`` where i has fewer), and
rouge-score's ``score`` takes the target first.

Covered: sacrebleu's BLEU and chrF/chrF++ (classes, ``corpus_*``/``sentence_*``
functions, ``raw_corpus_bleu``, ``BLEU.compute_bleu``, cached ``references=``, bootstrap
confidence intervals, signatures, ``significance.PairedTest`` with paired bootstrap and
approximate randomization); rouge-score's ``RougeScorer`` (rouge1..rouge9, rougeL,
rougeLsum; stemming; custom tokenizers; ``split_summaries`` through NLTK's punkt when it
is installed), ``scoring`` and the tokenizers.

Out of scope (a clear ``NotImplementedError``, or the name is absent): sacrebleu's TER,
its MeCab / SentencePiece tokenizers (``ja-mecab``, ``ko-mecab``, ``spm``, ``flores*``,
``spBLEU-1K``), test-set downloads, ``sacrebleu.dataset``/``utils``, the command line and
``extract_*_ngrams``; rouge-score's ``io`` (CSV files) and its private LCS helpers.
"""
