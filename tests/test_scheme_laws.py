"""Scheme rules checked through whole runs (`ndncc.run`), where the Rust unit tests beside the
schemes do not reach: each test fails if the rule it names is broken (see the mutation table
in docs/internals.md)."""

from __future__ import annotations

import ndncc

SF_TWO_PREFIXES = """
[scenario]
name = "sf-two-prefixes"
duration = "2s"
seed = 1

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"
queue = "200p"

[defaults.node.schemes.sf]
depth = 50
per_face = true
per_fib = true
data_size = "1250B"

[[links]]
between = ["C", "R"]

[[links]]
between = ["R", "P"]
bandwidth = "1Gbps"

[[apps]]
name = "ca"
node = "C"
kind = "consumer"
prefix = "/a"
rate = 400
engine = "tick"
tick = "100ms"

[[apps]]
name = "cb"
node = "C"
kind = "consumer"
prefix = "/b"
rate = 400
engine = "tick"
tick = "100ms"

[[apps]]
name = "pa"
node = "P"
kind = "producer"
prefix = "/a"
payload = "1250B"

[[apps]]
name = "pb"
node = "P"
kind = "producer"
prefix = "/b"
payload = "1250B"
"""

MIRCC_NARROW_FAR_LINK = """
[scenario]
name = "mircc-path-minimum"
duration = "3s"
seed = 1

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"
queue = "200p"

[defaults.node.schemes.mircc]
interval = "100ms"
data_size = "1250B"

[[links]]
between = ["C", "R"]

[[links]]
between = ["R", "P"]
bandwidth = "2Mbps"

[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
controller = "mircc"
rate = 1000
engine = "ideal"

[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
payload = "1250B"
"""


def run_toml(tmp_path, text: str):
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return ndncc.run(path, overrides={"trace.figures": False, "trace.parquet": False})


def test_sf_admits_an_interest_only_if_every_bucket_that_applies_has_room(tmp_path):
    # each tick releases 40 + 40 Interests of two prefixes at once into C's face: each prefix's
    # bucket (depth 50) has room, the face's bucket (depth 50) does not — C refuses ~30 a tick
    r = run_toml(tmp_path, SF_TWO_PREFIXES)
    faces = [f for f in r.summary["faces"] if f["node"] == "C"]
    to_apps = sum(f["out_nacks"] for f in faces if f["peer"] is None)
    from_r = sum(f["in_nacks"] for f in faces if f["peer"] == "R")
    local = to_apps - from_r
    assert local >= 19 * 25, (to_apps, from_r)


def test_mircc_consumers_receive_the_path_minimum_of_the_stamped_rates(tmp_path):
    # R's link to P carries 200 Data/s, C's link to R 1 000: C's own (larger) rate must not
    # overwrite R's stamp on the way back
    r = run_toml(tmp_path, MIRCC_NARROW_FAR_LINK)
    s = r.series
    rate = s[(s["time_s"] > 2.0) & (s["time_s"] <= 3.0)]["rate"].mean()
    assert 150 <= rate <= 250, rate
