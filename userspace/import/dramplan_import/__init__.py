# SPDX-License-Identifier: GPL-2.0
"""dramplan_import: PyTorch networks and ONNX graphs as dramplan models.

    import dramplan_import as di
    doc = di.from_module(model, inputs=["tokens:int64:batch,seq"], seq=128)
    doc = di.from_file("examples/gpt2.py:tiny", phase="decode",
                       cache_len=3, max_len=16)
    di.write(doc, "model.json")

The frontends: torch_model, torch_inputs, torch_trace (PyTorch, traced on
the meta device), onnx_front (ONNX); their op rules in registry.py's
tables (torch_rules, rnn, onnx_rules); the model writer in writer.py;
the command line, dramplan-import, in cli.py.  Importing the package
needs no PyTorch: the functions load it when called."""
from .api import from_file, from_module, from_onnx, options, write
from .errors import Fail, Usage

__all__ = ["from_file", "from_module", "from_onnx", "options", "write",
           "Fail", "Usage"]
