"""nn.functional: embedding."""

__all__: list[str] = []
