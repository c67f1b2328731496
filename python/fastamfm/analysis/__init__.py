"""Analyses of scores beyond the scores themselves: is one system really better than
another (``system_comparison``), is one metric really closer to people than another
(``metric_comparison``), and the shared resampling machinery they run on."""
