"""``python -m fastamfm``: the ``fastamfm`` command."""
import sys

from .cli import main

sys.exit(main())
