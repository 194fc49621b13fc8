"""nn.functional: normalization."""

__all__: list[str] = []
