"""The few zip structures a bundle uses (APPNOTE.TXT 4.3), shared by writer and reader.

Bundles use only: local file headers, the central directory and the end-of-central-
directory record; methods 0 (stored) and 8 (deflate); no ZIP64, no data descriptors,
no extra fields, no encryption. Standard library only.
"""

from __future__ import annotations

import struct
import time
from typing import Literal

LOCAL = struct.Struct("<4s2B4HL2L2H")  # 30 bytes
CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # 46 bytes
END = struct.Struct("<4s4H2LH")  # 22 bytes
LOCAL_SIG = b"PK\x03\x04"
CENTRAL_SIG = b"PK\x01\x02"
END_SIG = b"PK\x05\x06"
ZIP64_LOCATOR_SIG = b"PK\x06\x07"

STORED = 0
DEFLATED = 8
#: what ``--compression`` chooses for a bundle's entries: deflate (each entry stored
#: when deflate would not shrink it) or stored
Compression = Literal["deflate", "stored"]
COMPRESSIONS: tuple[Compression, ...] = ("deflate", "stored")
FLAG_ENCRYPTED = 0x0001
FLAG_DATA_DESCRIPTOR = 0x0008
FLAG_STRONG_ENCRYPTION = 0x0040
FLAG_UTF8 = 0x0800
VERSION = 20  # "version made by" / "needed to extract": 2.0 (deflate)
SYSTEM_UNIX = 3
MAX_ENTRIES = 0xFFFF - 1  # beyond this a zip needs ZIP64
MAX_OFFSET = 0xFFFFFFFF - 1

#: Deflate can shrink data about 1,000-fold; real files rarely beat 100-fold. Readers
#: refuse entries over RATIO_FLOOR bytes that claim more than MAX_RATIO as zip bombs,
#: and the writer stores (does not deflate) any entry that would be refused.
MAX_RATIO = 200
RATIO_FLOOR = 1 << 20

DOS_MIN = 315532800  # 1980-01-01T00:00:00Z
DOS_MAX = 4354819198  # 2107-12-31T23:59:58Z


def dos_datetime(epoch: int | None) -> tuple[int, int]:
    """(time, date) fields for ``epoch`` (UTC) clamped to the DOS range; 1980-01-01
    00:00:00 when ``epoch`` is None."""
    seconds = DOS_MIN if epoch is None else min(max(epoch, DOS_MIN), DOS_MAX)
    t = time.gmtime(seconds)
    dos_time = (t.tm_hour << 11) | (t.tm_min << 5) | (t.tm_sec // 2)
    dos_date = ((t.tm_year - 1980) << 9) | (t.tm_mon << 5) | t.tm_mday
    return dos_time, dos_date
