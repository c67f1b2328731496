"""``ExampleStream``: a task's training examples from a corpus, shuffled, endless.

Epoch after epoch over ``corpus.training()``: each dialogue's examples (``make_examples``)
pass through a shuffle buffer of ``buffer`` examples (bounded memory) drawn by a
``random.Random`` seeded with (seed, epoch) alone. The order is therefore a function of
the corpus and the seed: a resumed run that skips the first k batches sees exactly the
batches an uninterrupted run saw after its k-th.
"""
from __future__ import annotations

import random


class ExampleStream:
    def __init__(self, corpus, make_examples, *, seed: int, buffer: int):
        self.corpus = corpus
        self.make_examples = make_examples
        self.seed = seed
        self.buffer = buffer

    def __iter__(self):
        epoch = 0
        while True:
            rng = random.Random(f"{self.seed}:{epoch}")
            pool = []
            produced = False
            for dialogue in self.corpus.training():
                for example in self.make_examples(dialogue):
                    produced = True
                    if len(pool) < self.buffer:
                        pool.append(example)
                        continue
                    i = rng.randrange(len(pool))
                    pool[i], example = example, pool[i]
                    yield example
            rng.shuffle(pool)
            yield from pool
            if not produced:
                raise ValueError("the corpus gives the task no training example")
            epoch += 1
