"""integrations: what fastamfm's TRL reward function adds over calling ``AMFM.reward``
directly (64 DSTC-6 completions x 4 references, TRL's keyword arguments, plain and
conversational completions); the budget is 2 ms a call."""
