"""The built-in ``IterDataPipe``s of torch 2.13, by their short names."""

from hookgrad.utils.data.datapipes.iter.callable import CollatorIterDataPipe as Collator
from hookgrad.utils.data.datapipes.iter.callable import MapperIterDataPipe as Mapper
from hookgrad.utils.data.datapipes.iter.combinatorics import SamplerIterDataPipe as Sampler
from hookgrad.utils.data.datapipes.iter.combinatorics import ShufflerIterDataPipe as Shuffler
from hookgrad.utils.data.datapipes.iter.combining import ConcaterIterDataPipe as Concater
from hookgrad.utils.data.datapipes.iter.combining import (
    DemultiplexerIterDataPipe as Demultiplexer,
)
from hookgrad.utils.data.datapipes.iter.combining import ForkerIterDataPipe as Forker
from hookgrad.utils.data.datapipes.iter.combining import MultiplexerIterDataPipe as Multiplexer
from hookgrad.utils.data.datapipes.iter.combining import ZipperIterDataPipe as Zipper
from hookgrad.utils.data.datapipes.iter.files import FileListerIterDataPipe as FileLister
from hookgrad.utils.data.datapipes.iter.files import FileOpenerIterDataPipe as FileOpener
from hookgrad.utils.data.datapipes.iter.files import StreamReaderIterDataPipe as StreamReader
from hookgrad.utils.data.datapipes.iter.grouping import BatcherIterDataPipe as Batcher
from hookgrad.utils.data.datapipes.iter.grouping import GrouperIterDataPipe as Grouper
from hookgrad.utils.data.datapipes.iter.grouping import UnBatcherIterDataPipe as UnBatcher
from hookgrad.utils.data.datapipes.iter.routeddecoder import (
    RoutedDecoderIterDataPipe as RoutedDecoder,
)
from hookgrad.utils.data.datapipes.iter.selecting import FilterIterDataPipe as Filter
from hookgrad.utils.data.datapipes.iter.sharding import (
    ShardingFilterIterDataPipe as ShardingFilter,
)
from hookgrad.utils.data.datapipes.iter.utils import IterableWrapperIterDataPipe as IterableWrapper

__all__ = [
    "Batcher",
    "Collator",
    "Concater",
    "Demultiplexer",
    "FileLister",
    "FileOpener",
    "Filter",
    "Forker",
    "Grouper",
    "IterableWrapper",
    "Mapper",
    "Multiplexer",
    "RoutedDecoder",
    "Sampler",
    "ShardingFilter",
    "Shuffler",
    "StreamReader",
    "UnBatcher",
    "Zipper",
]
