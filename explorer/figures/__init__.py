"""Results to pictures: overlaid images and plotly figures, and the marks that name what they show."""
