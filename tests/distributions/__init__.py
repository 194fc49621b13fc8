"""Tests of ``hookgrad.distributions``, each against torch."""
