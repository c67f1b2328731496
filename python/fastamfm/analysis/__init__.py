"""Analysis of metric scores against human judgements and between systems: correlations and
metric clustering (``correlation.py``), reading rated data sets (``ratings.py``), the HTML/PNG
report of ``fastamfm report`` (``report.py``), and significance: is one system really better
than another (``system_comparison.py``), is one metric really closer to people than another
(``metric_comparison.py``), the resampling machinery they share (``resampling.py``,
``multiple_testing.py``), the ``fastamfm compare`` command (``compare_command.py``) and the
report's comparison figures (``comparison_figures.py``).

Nothing here is imported by ``import fastamfm`` beyond ``correlation`` and the two comparison
entry points: scipy, pandas and matplotlib load when a function that needs them is called.
"""
