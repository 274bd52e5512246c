# A network built on the meta device (its weights have no memory), as a
# user builds one too large for the CPU: the tiny Mistral-style decoder
# of examples/mistral.py, whose grouped-query attention uses
# repeat_interleave (no meta kernel in PyTorch 1.13: the importer's rule).
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "examples"))
import mistral  # noqa: E402

model = mistral.Mistral(**mistral.TINY, device="meta")
