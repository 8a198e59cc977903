"""The drawing kit, knowing no method: marks, the display of a picture, grey maps over it."""
