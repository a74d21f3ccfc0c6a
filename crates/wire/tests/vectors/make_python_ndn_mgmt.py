"""Writes python_ndn_mgmt_0.5.2.jsonl: NFD management elements encoded by python-ndn 0.5.2
(ndn.app_support.nfd_mgmt), one JSON object a line, with the fields python-ndn was asked to
encode; crates/wire/tests/mgmt_python_ndn.rs decodes each and re-encodes where our encoder makes
the same choices.

    python3 -m venv /tmp/pyndn && /tmp/pyndn/bin/pip install python-ndn==0.5.2
    /tmp/pyndn/bin/python crates/wire/tests/vectors/make_python_ndn_mgmt.py

Deterministic except the one v1 command (python-ndn draws its timestamp and nonce itself).
"""

import json
import pathlib

from ndn.app_support import nfd_mgmt as m
from ndn.encoding import InterestParam, Name, make_interest
from ndn.security import DigestSha256Signer

OUT = pathlib.Path(__file__).with_name("python_ndn_mgmt_0.5.2.jsonl")
rows = []


def row(kind, desc, wire, **expect):
    rows.append({"kind": kind, "desc": desc, "hex": bytes(wire).hex(), **expect})


def tlv(typ, value):
    value = bytes(value)
    assert typ < 253 and len(value) < 253
    return bytes([typ, len(value)]) + value


# ControlParameters of each command NFD management uses: the component at index 4 of the
# command name make_command_v2 builds.
COMMANDS = [
    ("rib register", "rib", "register", {"name": "/ndncc/prefix"}),
    (
        "rib register full",
        "rib",
        "register",
        {"name": "/a/b", "face_id": 260, "origin": 255, "cost": 10, "flags": 1,
         "expiration_period": 3600000},
    ),
    ("rib unregister", "rib", "unregister", {"name": "/ndncc/prefix", "face_id": 0}),
    (
        "faces create",
        "faces",
        "create",
        {"uri": "udp4://127.0.0.1:6363", "local_uri": "udp4://0.0.0.0:56363",
         "face_persistency": m.FacePersistency.PERMANENT, "mtu": 1420,
         "base_congestion_mark_interval": 100000000, "default_congestion_threshold": 65536,
         "flags": 4, "mask": 4},
    ),
    ("faces destroy", "faces", "destroy", {"face_id": 300}),
    ("fib add-nexthop", "fib", "add-nexthop", {"name": "/x", "face_id": 7, "cost": 65536}),
    ("strategy-choice set", "strategy-choice", "set",
     {"name": "/", "strategy": "/localhost/nfd/strategy/best-route/v=5"}),
    ("cs config", "cs", "config", {"capacity": 1024, "flags": 1, "mask": 1}),
    ("cs erase", "cs", "erase", {"name": "/c", "count": 5}),
]
for desc, module, verb, kw in COMMANDS:
    name = m.make_command_v2(module, verb, None, **kw)
    cp = bytes(name[4])  # the whole component TLV
    # Drop the component's own TL (type 8, one-byte length here) to get the element.
    assert cp[0] == 8
    element = cp[2:] if cp[1] < 253 else cp[4:]
    fields = {k: (v.value if hasattr(v, "value") else v) for k, v in kw.items()}
    row("control_parameters", desc, element, module=module, verb=verb, fields=fields,
        name_uri=Name.to_str(name))

# ControlResponses.
for desc, code, text, kw in [
    ("ok with body", 200, "OK", {"name": "/ndncc/prefix", "face_id": 257, "origin": 0,
                                 "cost": 0, "flags": 1}),
    ("error with body", 400, "ControlParameters is incorrect", {}),
]:
    cr = m.ControlResponse()
    cr.status_code = code
    cr.status_text = text
    cr.body = m.ControlParametersValue()
    for k, v in kw.items():
        setattr(cr.body, k, v)
    row("control_response", desc, tlv(0x65, cr.encode()), status_code=code, status_text=text,
        fields=kw)


# A v2 command Interest, signed DigestSha256 with a fixed SignatureTime and SignatureNonce.
class FixedSigner(DigestSha256Signer):
    def __init__(self, time_ms, nonce):
        super().__init__(for_interest=True)
        self.time_ms, self.nonce = time_ms, nonce

    def write_signature_info(self, signature_info):
        super().write_signature_info(signature_info)
        signature_info.signature_time = self.time_ms
        signature_info.signature_nonce = self.nonce


for desc, kw, nonce, t, sn in [
    ("v2 rib register", {"name": "/ndncc/prefix"}, 0x01020304, 1700000000000, 42),
    ("v2 rib register big nonce", {"name": "/p", "cost": 3}, 0xFFFFFFFF, 1763900000123,
     0x1122334455667788),
]:
    name = m.make_command_v2("rib", "register", None, **kw)
    wire = make_interest(name, InterestParam(nonce=nonce, lifetime=1000), app_param=b"",
                         signer=FixedSigner(t, sn))
    row("command_v2", desc, wire, module="rib", verb="register", fields=kw, nonce=nonce,
        lifetime=1000, signature_time=t, signature_nonce=sn)

# The v1 form NDNApp.register sends (timestamp and nonce drawn by python-ndn).
name = m.make_command("rib", "register", None, name="/ndncc/v1")
row("command_v1", "v1 rib register", make_interest(name, InterestParam(nonce=5, lifetime=1000)),
    module="rib", verb="register", fields={"name": "/ndncc/v1"})

# Datasets.
fs = m.FaceStatusMsg()
for fid, uri, local in [(1, "internal://", "internal://"), (257, "unix:///tmp/s.sock", "fd://9")]:
    f = m.FaceStatus()
    f.face_id, f.uri, f.local_uri = fid, uri, local
    f.face_scope = m.FaceScope.LOCAL
    f.face_persistency = m.FacePersistency.ON_DEMAND
    f.link_type = m.FaceLinkType.POINT_TO_POINT
    f.mtu = 8800
    f.n_in_interests, f.n_in_data, f.n_in_nacks = 10 * fid, 11, 12
    f.n_out_interests, f.n_out_data, f.n_out_nacks = 13, 14, 15
    f.n_in_bytes, f.n_out_bytes = 100000, 200000
    f.flags = m.FaceFlags.LOCAL_FIELDS_ENABLED
    fs.face_status.append(f)
row("faces", "faces/list", fs.encode(),
    face_ids=[1, 257], uris=["internal://", "unix:///tmp/s.sock"], n_in_interests=[10, 2570])

g = m.GeneralStatus()
g.nfd_version = "1.5.3"
g.start_timestamp, g.current_timestamp = 1700000000000, 1700000360000
g.n_name_tree_entries, g.n_fib_entries, g.n_pit_entries = 20, 5, 3
g.n_measurement_entries, g.n_cs_entries = 0, 1024
g.n_in_interests, g.n_in_data, g.n_in_nacks = 1000, 990, 1
g.n_out_interests, g.n_out_data, g.n_out_nacks = 995, 985, 2
g.n_satisfied_interests, g.n_unsatisfied_interests = 980, 15
row("general", "status/general", g.encode(), nfd_version="1.5.3", n_pit_entries=3,
    n_cs_entries=1024, n_in_interests=1000, n_out_nacks=2, n_unsatisfied_interests=15)

fib = m.FibStatus()
e = m.FibEntry()
e.name = "/ndncc"
for fid, cost in [(257, 0), (258, 10)]:
    h = m.NextHopRecord()
    h.face_id, h.cost = fid, cost
    e.next_hop_records.append(h)
fib.entries.append(e)
row("fib", "fib/list", fib.encode(), name="/ndncc", face_ids=[257, 258], costs=[0, 10])

rib = m.RibStatus()
e = m.RibEntry()
e.name = "/ndncc"
r = m.Route()
r.face_id, r.origin, r.cost, r.flags, r.expiration_period = 257, 0, 0, m.RouteFlags.CHILD_INHERIT, 5000
e.routes.append(r)
rib.entries.append(e)
row("rib", "rib/list", rib.encode(), name="/ndncc", face_id=257, flags=1, expiration_period=5000)

sc = m.StrategyChoiceMsg()
c = m.StrategyChoice()
c.name = "/"
c.strategy = m.Strategy()
c.strategy.name = "/localhost/nfd/strategy/best-route/v=5"
sc.strategy_choices.append(c)
row("strategy_choices", "strategy-choice/list", sc.encode(), name="/",
    strategy="/localhost/nfd/strategy/best-route/v=5")

OUT.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
print(f"{len(rows)} vectors -> {OUT}")
