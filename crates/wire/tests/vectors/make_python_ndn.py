"""Writes python_ndn_0.5.2.jsonl: packets encoded by python-ndn 0.5.2, one JSON object a line,
with the fields python-ndn was asked to encode (the Rust test decodes the hex and compares).

    python3 -m venv /tmp/pyndn && /tmp/pyndn/bin/pip install python-ndn==0.5.2
    /tmp/pyndn/bin/python crates/wire/tests/vectors/make_python_ndn.py

Deterministic: nonces are given, DigestSha256 signatures depend only on the bytes.
"""

import importlib.metadata
import json
import pathlib

from ndn.encoding import Component, InterestParam, MetaInfo, Name, make_data, make_interest
from ndn.encoding.ndnlp_v2 import LpPacket, LpPacketValue, make_network_nack
from ndn.security import DigestSha256Signer

OUT = pathlib.Path(__file__).with_name("python_ndn_0.5.2.jsonl")
rows = []


def row(kind, desc, wire, **expect):
    rows.append({"kind": kind, "desc": desc, "hex": bytes(wire).hex(), **expect})


# Names: URI in, wire out; and the URI python-ndn prints back.
for uri in [
    "/",
    "/ndn/edu/ucla",
    "/a%20b/~tilde/%2B",
    "/seg=0/seg=255/seg=256/seg=65536/seg=4294967296",
    "/v=1700000000000/t=1700000000000000/seq=42/off=9",
    "/32=keyword/252=x/65535=y",
    "/params-sha256=" + "ab" * 32,
    "/sha256digest=" + "0f" * 32,
]:
    name = Name.from_str(uri)
    row("name", uri, Name.to_bytes(name), uri=Name.to_str(name))


# Interests.
def interest(desc, uri, app_param=None, **kw):
    param = InterestParam(**kw)
    wire = make_interest(uri, param, app_param=app_param)
    row(
        "interest",
        desc,
        wire,
        uri=uri,
        can_be_prefix=param.can_be_prefix,
        must_be_fresh=param.must_be_fresh,
        nonce=param.nonce,
        lifetime=param.lifetime,
        hop_limit=param.hop_limit,
        forwarding_hint=[str(h) for h in param.forwarding_hint],
        app_param=None if app_param is None else bytes(app_param).hex(),
    )


interest("plain", "/ndncc/flow/seq=1", nonce=0x01020304, lifetime=1000)
interest(
    "selectors", "/ndncc/x", nonce=0xFFFFFFFF, can_be_prefix=True, must_be_fresh=True, hop_limit=64
)
interest("no lifetime", "/a/seg=3", nonce=0, lifetime=None)
interest("forwarding hint", "/b", nonce=7, forwarding_hint=["/hint/one", "/hint/two"])
interest("app params", "/c/d", app_param=b"\x00\x01\x02hello", nonce=9, lifetime=250)
interest("big lifetime", "/e", nonce=10, lifetime=100_000)


# Data, DigestSha256.
def data(desc, uri, content, content_type=None, freshness=None, final_block_id=None):
    meta = MetaInfo(
        content_type=content_type, freshness_period=freshness, final_block_id=final_block_id
    )
    wire = make_data(uri, meta, content, signer=DigestSha256Signer())
    row(
        "data",
        desc,
        wire,
        uri=uri,
        content=None if content is None else bytes(content).hex(),
        content_type=content_type,
        freshness=freshness,
        final_block_id=None
        if final_block_id is None
        else Name.to_str([final_block_id]).lstrip("/"),
    )


data("small", "/ndncc/d/seg=0", b"hello world")
data(
    "meta",
    "/ndncc/d/seg=9",
    b"\x00" * 300,
    content_type=0,
    freshness=4000,
    final_block_id=Component.from_segment(9),
)
data("empty content", "/e", b"")
data("large", "/big/seg=1", bytes(range(256)) * 20, freshness=10)
data("key type", "/k", b"k", content_type=2)

# Unsigned Data (no SignatureInfo): the Rust decoder rejects it (the spec requires one).
row("data_unsigned", "unsigned", make_data("/u", MetaInfo(), b"x"))

# Nacks (LpPacket { Nack { NackReason }, Fragment }).
base = make_interest("/n/seq=5", InterestParam(nonce=0x0A0B0C0D, lifetime=4000))
for reason in [50, 100, 150]:
    row(
        "nack",
        f"reason {reason}",
        make_network_nack(base, reason),
        reason=reason,
        interest_hex=bytes(base).hex(),
    )

# LpPacket with PitToken and CongestionMark around a Data.
lp = LpPacket()
lp.lp_packet = LpPacketValue()
lp.lp_packet.pit_token = b"\x01\x02\x03\x04\x05\x06"
lp.lp_packet.congestion_mark = 1
d = make_data("/m", MetaInfo(), b"m", signer=DigestSha256Signer())
lp.lp_packet.fragment = d
row(
    "lp",
    "pit token and mark",
    lp.encode(),
    pit_token="010203040506",
    congestion_mark=1,
    fragment=bytes(d).hex(),
)

OUT.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
version = importlib.metadata.version("python-ndn")
assert version == "0.5.2", f"python-ndn {version}; the vectors are for 0.5.2"
print(f"python-ndn {version}: {len(rows)} vectors -> {OUT.name}")
