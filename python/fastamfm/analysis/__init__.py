"""Analysis of metric scores against human judgements: correlations and metric clustering
(``correlation.py``), reading rated data sets (``ratings.py``) and the HTML/PNG report of
``fastamfm report`` (``report.py``).

Nothing here is imported by ``import fastamfm`` beyond ``correlation``: scipy, pandas and
matplotlib load when a function that needs them is called.
"""
