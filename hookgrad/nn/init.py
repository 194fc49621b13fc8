"""``hookgrad.nn.init``: parameter initialisation schemes."""
