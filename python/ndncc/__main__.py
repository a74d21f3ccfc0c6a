"""``python -m ndncc``: the ``ndncc`` command (how ``ndncc emulate`` starts its apps)."""

import sys

from .cli import main

sys.exit(main())
