"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``."""

__all__: list[str] = []
