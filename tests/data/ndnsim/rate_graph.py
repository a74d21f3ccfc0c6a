"""An ndnSIM user's plotting script, as ndnSIM's documentation plots its tracer files
(ndnSIM's examples/graphs/rate-graph.R, "Obtaining metrics"), written in Python/pandas.

    python rate_graph.py RATE_TRACE APP_DELAYS_TRACE OUT_DIR NODE FACE_ID

It reads the files by column name, tab-separated with a header line (plain or gzip'd); keeps
the four packet Types; sums each node's faces per Time and Type (Kilobits = Kilobytes × 8)
and plots them per node; plots one face's InData rate (a node and an ndnSIM FaceId, as users
pick them); and averages the full delay per consumer from the FullDelay rows. Writes
rates.png, face.png and summary.csv into OUT_DIR. tests/test_ndnsim_traces.py runs it,
unchanged, on ndnSIM's reference files and on the ones `ndncc run` writes.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def main(rate_file, delays_file, out_dir, node, face_id):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    data = pd.read_csv(rate_file, sep="\t")
    data["Kilobits"] = data["Kilobytes"] * 8
    data = data[data["Type"].isin(["InInterests", "OutInterests", "InData", "OutData"])]
    combined = data.groupby(["Time", "Node", "Type"], as_index=False)[
        ["Packets", "Kilobits", "PacketRaw", "KilobytesRaw"]
    ].sum()

    nodes = sorted(combined["Node"].unique())
    fig, axes = plt.subplots(len(nodes), 1, figsize=(6, 2 * len(nodes)), squeeze=False)
    for ax, name in zip(axes[:, 0], nodes, strict=True):
        for kind, rows in combined[combined["Node"] == name].groupby("Type"):
            ax.plot(rows["Time"], rows["Kilobits"], marker=".", label=kind)
        ax.set_title(name)
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Rate (Kbit/s)")
    axes[0, 0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out / "rates.png")

    face = data[(data["Node"] == node) & (data["FaceId"] == int(face_id))]
    in_data = face[face["Type"] == "InData"]
    if in_data.empty:
        sys.exit(f"no InData rows for node {node} face {face_id}")
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(in_data["Time"], in_data["Packets"], marker=".")
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("InData (packets/s)")
    ax.set_title(f"{node} face {face_id} {in_data['FaceDescr'].iloc[0]}")
    fig.savefig(out / "face.png")

    delays = pd.read_csv(delays_file, sep="\t")
    full = delays[delays["Type"] == "FullDelay"]
    summary = full.groupby("Node").agg(
        data=("SeqNo", "count"),
        mean_delay_s=("DelayS", "mean"),
        max_retx=("RetxCount", "max"),
        hops=("HopCount", "max"),
    )
    summary["face_in_data"] = int(in_data["PacketRaw"].sum())
    summary.to_csv(out / "summary.csv")
    print(summary.to_string())


if __name__ == "__main__":
    main(*sys.argv[1:6])
