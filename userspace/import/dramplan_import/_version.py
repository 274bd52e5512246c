# SPDX-License-Identifier: GPL-2.0
"""The version: filled in by the build (make), read from the tree's
VERSION file when run from the source tree."""
VERSION = "@VERSION@"
