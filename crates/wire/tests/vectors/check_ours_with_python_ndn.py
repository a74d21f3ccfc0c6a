"""Decodes our golden vectors (ours.jsonl, written by tests/ours.rs) with python-ndn 0.5.2:
an independent decoder must accept every packet we encode, check our ParametersSha256Digest and
DigestSha256 signatures, and skip our own LpPacket headers.

    /tmp/pyndn/bin/python crates/wire/tests/vectors/check_ours_with_python_ndn.py
"""

import hashlib
import json
import pathlib

from ndn.encoding import Name, parse_data, parse_interest
from ndn.encoding.ndnlp_v2 import parse_lp_packet_v2

rows = [
    json.loads(line)
    for line in pathlib.Path(__file__).with_name("ours.jsonl").read_text().splitlines()
]


def covered(parts):
    return b"".join(bytes(p) for p in parts)


for row in rows:
    wire = bytes.fromhex(row["hex"])
    kind = row["kind"]
    if kind == "interest":
        name, param, app_param, sig = parse_interest(wire)
        assert Name.to_str(name).startswith(row["desc"]), (Name.to_str(name), row)
        if app_param is not None:
            assert hashlib.sha256(covered(sig.digest_covered_part)).digest() == bytes(
                sig.digest_value_buf
            )
        print("ok interest", Name.to_str(name), param)
    elif kind == "data":
        name, meta, content, sig = parse_data(wire)
        assert Name.to_str(name) == row["desc"]
        assert sig.signature_info.signature_type == 0
        assert hashlib.sha256(covered(sig.signature_covered_part)).digest() == bytes(
            sig.signature_value_buf
        )
        print("ok data", Name.to_str(name), meta, bytes(content))
    else:
        lp = parse_lp_packet_v2(wire)
        if kind == "nack":
            assert lp.nack.nack_reason == int(row["desc"])
            parse_interest(lp.fragment)
        else:
            assert lp.congestion_mark == 1 and bytes(lp.pit_token) == bytes(range(1, 7))
            parse_data(lp.fragment)
        print("ok", kind, lp.nack and lp.nack.nack_reason, lp.congestion_mark)
print(f"python-ndn decoded all {len(rows)} of our vectors")
