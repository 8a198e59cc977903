"""Images read safely, their regions, and the views the model's preprocess makes of them."""
