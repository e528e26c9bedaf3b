"""Two workarounds of the memory system, each worth a third of the reading time on a large file.

Both are about fresh pages: memory touched for the first time is paid for (the kernel zeroes its
pages, or faults them back in from the host), so at ten million lines what the tokeniser allocates
costs as much as what it computes. bench/README.md, section 10, has the measurements.
"""

from __future__ import annotations

import math
import mmap
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

# One untouched array this big, freed at once, raises glibc's mmap threshold to about its size.
_SETTLE_BYTES = 30 << 20


def keep_freed_memory() -> None:
    """Let the C allocator keep the blocks' freed temporaries for the next block.

    Each block allocates and frees tens of MB of temporaries. glibc's malloc hands freed memory
    back to the kernel once more than twice its mmap threshold is free at the top of a heap, and
    that threshold starts at 128 KiB, so every block's temporaries were fresh pages again, which
    the kernel zeroes: on a 100,000-query run as much system time as the parsing's user time.
    glibc raises the threshold by itself to the size of any mmap-served block that is freed, up
    to 32 MiB; one untouched 30 MiB array, freed at once, takes it there now (M_MMAP_THRESHOLD in
    mallopt(3)). Other allocators ignore it, and it costs one mmap and munmap.
    """
    np.empty(_SETTLE_BYTES, dtype=np.uint8)


def zeros_in_small_pages(shape: tuple[int, ...], dtype: type[np.generic]) -> npt.NDArray[Any]:
    """Zeros in an anonymous mapping of its own: untouched pages cost nothing, as with np.zeros.

    numpy asks the kernel for transparent huge pages for any array of 4 MiB or more. The columns
    are written once, front to back, so huge pages save them nothing; but on a VM that reports
    free memory to its host (virtio-balloon free page reporting, which this 2-core VM has), the
    free 2 MiB blocks they take are the ones the host has reclaimed, slow to fault back in.
    Plain pages do not have that cost.
    """
    item = np.dtype(dtype)
    count = math.prod(shape)
    buffer = mmap.mmap(-1, max(1, count * item.itemsize))
    return np.frombuffer(buffer, dtype=item, count=count).reshape(shape)
