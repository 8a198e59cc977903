"""The project's ``nn.Module``s: the TFLocal / TFGlobal alignment transformer, the binding probes, the training
scorers and the fp32 patch embedding. Moving a module here keeps its state-dict keys: they name the attributes,
never the file.
"""
