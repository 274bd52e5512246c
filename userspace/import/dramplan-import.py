#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""dramplan-import: the command line of the dramplan_import package,
run from the source tree (python3 userspace/import/dramplan-import.py)
and the __main__ of the built zip application (build/dramplan-import)."""
import sys

from dramplan_import.cli import main

sys.exit(main())
