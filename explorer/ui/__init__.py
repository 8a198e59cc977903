"""The Gradio page: the only layer that imports gradio."""
