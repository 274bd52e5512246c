# SPDX-License-Identifier: GPL-2.0
"""python3 -m dramplan_import: the command line."""
import sys

from .cli import main

sys.exit(main())
