"""fastamfm's metrics for Hugging Face evaluate: ``evaluate.load(DIR)`` with this file's
directory (``fastamfm.integrations.evaluate_module_path()``). The module is defined, and
documented, in ``fastamfm.integrations.evaluate``; evaluate finds it here."""
from fastamfm.integrations.evaluate import Fastamfm  # noqa: F401
