"""The echo app's STARLING-STATS line (apps/echo/main.cc): the query and
the one parser the Python tests share."""
import re

# Padded to 1,024 bytes: the app never answers with more than it was sent.
STATS_QUERY = b"STARLING-STATS".ljust(1024)


def parse_stats_line(data):
    """{counter: int} from a reply (bytes or text), or None if it is not a
    STARLING-STATS line."""
    text = data.decode("ascii", "replace") if isinstance(data, (bytes, bytearray)) else data
    text = text.strip()
    if not text.startswith("STARLING-STATS"):
        return None
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", text)}
