"""common.collector: the collector's threshold raised for a block, restored after (also on an error)."""

import gc

import pytest

from common.collector import fewer_collections


def test_the_threshold_is_raised_inside_and_restored_after():
    before = gc.get_threshold()
    with fewer_collections(threshold=12_345):
        assert gc.get_threshold() == (max(12_345, before[0]), *before[1:])
    assert gc.get_threshold() == before


def test_restored_after_an_error_and_never_lowered():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections(threshold=10):
        assert gc.get_threshold() == before  # 10 is below the default: left as it was
        raise RuntimeError
    assert gc.get_threshold() == before
