"""``hookgrad.nn.utils``: gradient clipping and parameter/vector conversion."""
