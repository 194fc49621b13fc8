"""``hookgrad.utils.data`` (``torch.utils.data`` under ``import hookgrad as torch``):
datasets, samplers, collation and ``DataLoader``, with torch's API and semantics.

Example::

    import hookgrad as torch
    from hookgrad.utils.data import DataLoader, TensorDataset

    ds = TensorDataset(torch.randn(100, 3), torch.randint(0, 2, (100,)))
    for x, y in DataLoader(ds, batch_size=32, shuffle=True):
        ...

Modules: ``dataset`` (datasets, ``random_split``), ``sampler`` and ``distributed``
(samplers), ``collate`` (``default_collate``, ``default_convert``), ``fetch`` (sampler keys
to a batch), ``dataloader`` (``DataLoader``), ``iterators`` and ``multiprocess`` (a pass
over a loader, without and with workers), ``worker`` (the worker process side),
``signal_handling`` (noticing dead workers); ``datapipes`` (torch's DataPipes, with
``graph`` and ``graph_settings`` for their graphs).
"""

from hookgrad.utils.data import datapipes, graph, graph_settings  # noqa: F401 (torch's submodules)
from hookgrad.utils.data.collate import default_collate, default_convert
from hookgrad.utils.data.dataloader import DataLoader
from hookgrad.utils.data.datapipes._decorator import (
    argument_validation,
    functional_datapipe,
    guaranteed_datapipes_determinism,
    non_deterministic,
    runtime_validation,
    runtime_validation_disabled,
)
from hookgrad.utils.data.datapipes.datapipe import (
    DataChunk,
    DFIterDataPipe,
    IterDataPipe,
    MapDataPipe,
)
from hookgrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from hookgrad.utils.data.distributed import DistributedSampler
from hookgrad.utils.data.fetch import DatasetKind as _DatasetKind
from hookgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from hookgrad.utils.data.worker import get_worker_info

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DFIterDataPipe",
    "DataChunk",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterDataPipe",
    "IterableDataset",
    "MapDataPipe",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "_DatasetKind",
    "argument_validation",
    "default_collate",
    "default_convert",
    "functional_datapipe",
    "get_worker_info",
    "guaranteed_datapipes_determinism",
    "non_deterministic",
    "random_split",
    "runtime_validation",
    "runtime_validation_disabled",
]
