"""ns-3's bare-UDP dumbbell: the anchor of benches/README.md, timed beside `ndncc bench`.

The traffic of workload `dumbbell-1000` without NDN: 10 pairs C_i — R1 — R2 — P_i, every link
100 Mbps / 50 ms point-to-point with a 100-packet drop-tail queue; each C_i sends 40-byte UDP
datagrams at 1 000/s to P_i (the Interests) and each P_i 1 250-byte datagrams at 1 000/s to C_i
(the Data), for 10 simulated seconds, static global routing.

Run with the `ns3` wheel from PyPI (its own venv: it is large and not a dependency of ndncc):

    python3 -m venv /tmp/ns3 && /tmp/ns3/bin/pip install "ns3==3.44.post0"
    /tmp/ns3/bin/python benches/ns3_dumbbell.py        # prints one JSON line

`run_s` is `Simulator::Run()` alone (the C++ event loop, comparable with ndncc's `wall_s`);
`setup_s` building the network from Python; `events` ns-3's executed-event count.
"""

import json
import resource
import sys
import time

started = time.perf_counter()
from ns import ns  # noqa: E402

PAIRS = 10
DURATION_S = 10.0


def build():
    nodes = ns.NodeContainer()
    nodes.Create(2 * PAIRS + 2)
    r1, r2 = nodes.Get(0), nodes.Get(1)
    consumers = [nodes.Get(2 + i) for i in range(PAIRS)]
    producers = [nodes.Get(2 + PAIRS + i) for i in range(PAIRS)]
    stack = ns.InternetStackHelper()
    stack.Install(nodes)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("50ms"))
    p2p.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("100p")))
    address = ns.Ipv4AddressHelper()
    subnet = [0]

    def link(a, b):
        devices = p2p.Install(a, b)
        subnet[0] += 1
        address.SetBase(
            ns.Ipv4Address(f"10.{subnet[0] // 256}.{subnet[0] % 256}.0"),
            ns.Ipv4Mask("255.255.255.0"),
        )
        return address.Assign(devices)

    c_addr = [link(c, r1).GetAddress(0) for c in consumers]
    link(r1, r2)
    p_addr = [link(r2, p).GetAddress(1) for p in producers]
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    port = 9
    stop = ns.Seconds(DURATION_S)
    for i in range(PAIRS):
        for node, peer, size in ((consumers[i], p_addr[i], 40), (producers[i], c_addr[i], 1250)):
            sink = ns.UdpServerHelper(port)
            apps = sink.Install(producers[i] if node is consumers[i] else consumers[i])
            apps.Start(ns.Seconds(0.0))
            apps.Stop(stop)
            client = ns.UdpClientHelper(peer.ConvertTo(), port)
            client.SetAttribute("MaxPackets", ns.UintegerValue(2**31))
            client.SetAttribute("Interval", ns.TimeValue(ns.MilliSeconds(1)))
            client.SetAttribute("PacketSize", ns.UintegerValue(size))
            apps = client.Install(node)
            apps.Start(ns.Seconds(0.0))
            apps.Stop(stop)
            port += 1


def main() -> None:
    t = time.perf_counter()
    build()
    setup = time.perf_counter() - t
    ns.Simulator.Stop(ns.Seconds(DURATION_S))
    t = time.perf_counter()
    ns.Simulator.Run()
    run = time.perf_counter() - t
    events = ns.Simulator.GetEventCount() if hasattr(ns.Simulator, "GetEventCount") else None
    ns.Simulator.Destroy()
    print(
        json.dumps(
            {
                "ns3_version": "3.44",
                "import_s": round(t_import, 3),
                "setup_s": round(setup, 3),
                "run_s": round(run, 3),
                "events": events,
                "process_s": round(time.perf_counter() - started, 3),
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )
    sys.stdout.flush()


t_import = time.perf_counter() - started

if __name__ == "__main__":
    main()
