"""The project's ``nn.Module``s: the binding probes, the training scorers and the fp32 patch embedding.

(The TFLocal / TFGlobal alignment transformer is still in ``explorer/alignment.py``.) Moving a module here keeps its
state-dict keys: they name the attributes, never the file.
"""
