"""Allow ``python -m onze_vision``."""

import sys

from onze_vision.cli import main

sys.exit(main())
