"""Differential fuzzer: random autograd programs run on hookgrad and on torch, compared.

A program is generated once from a seed as a library-independent list of instructions
(``generator.py`` with the op table ``specs.py``), run by the same interpreter on each
library (``interpreter.py``), and the two records are diffed (``compare.py``). Known,
tolerated disagreements are listed with their reasons in ``known.py``.

Run::

    python -m pytest -q -p no:warnings tests/fuzz        # 300 programs (HOOKGRAD_FUZZ_PROGRAMS,
                                                         # HOOKGRAD_FUZZ_SEED to change)
    python -m tests.fuzz -n 5000 [--seed S] [--stop-on-first] [--show-known]
    python -m tests.fuzz --seed 123 -n 1 --listing      # one program, printed
"""
