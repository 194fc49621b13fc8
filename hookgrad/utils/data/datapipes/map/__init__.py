"""The built-in ``MapDataPipe``s of torch 2.13, by their short names."""

from hookgrad.utils.data.datapipes.map.pipes import (
    BatcherMapDataPipe as Batcher,
)
from hookgrad.utils.data.datapipes.map.pipes import (
    ConcaterMapDataPipe as Concater,
)
from hookgrad.utils.data.datapipes.map.pipes import (
    MapperMapDataPipe as Mapper,
)
from hookgrad.utils.data.datapipes.map.pipes import (
    SequenceWrapperMapDataPipe as SequenceWrapper,
)
from hookgrad.utils.data.datapipes.map.pipes import (
    ShufflerIterDataPipe as Shuffler,
)
from hookgrad.utils.data.datapipes.map.pipes import (
    ZipperMapDataPipe as Zipper,
)

__all__ = ["Batcher", "Concater", "Mapper", "SequenceWrapper", "Shuffler", "Zipper"]
