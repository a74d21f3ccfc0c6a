"""Standard figures: files written, labels with units, empty data skipped cleanly."""

from __future__ import annotations

from fake_native import make_result
from ndncc.plots import build_figures, plot_result
from PIL import Image

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
ALL = ["throughput.png", "interest_rate.png", "queues.png", "delay_cdf.png"]


def test_plot_result_writes_non_empty_pngs(tmp_path):
    paths = plot_result(make_result(), tmp_path / "figs")
    assert [p.name for p in paths] == ALL
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000
        with Image.open(path) as image:
            assert "Software" not in image.info
            assert image.size[0] > 100 and image.size[1] > 100


def test_figures_have_titles_units_grid_and_legends():
    figures = build_figures(make_result())
    for name, fig in figures.items():
        ax = fig.axes[0]
        assert ax.get_title(), name
        assert "(" in ax.get_xlabel() and "(" in ax.get_ylabel(), name
        assert any(line.get_visible() for line in ax.get_xgridlines()), name
    rate = figures["interest_rate.png"].axes[0]
    assert rate.get_ylabel() == "Interest rate (Interests/s)"
    assert [t.get_text() for t in rate.get_legend().get_texts()] == [
        "cons sent",
        "cons target",
    ]
    assert rate.get_lines()[1].get_linestyle() == "--"
    queues = figures["queues.png"].axes[0]
    # p1's face has the larger maximum queue, so it comes first.
    assert [t.get_text() for t in queues.get_legend().get_texts()] == ["p1→c1", "c1→p1"]
    assert figures["throughput.png"].axes[0].get_legend() is None  # a single consumer


def test_missing_data_skips_figures(tmp_path):
    paths = plot_result(make_result(delays=False), tmp_path / "a")
    assert [p.name for p in paths] == ALL[:3]
    assert plot_result(make_result(tables=False), tmp_path / "b") == []


def test_result_plot_delegates(tmp_path):
    result = make_result()
    assert [p.name for p in result.plot(tmp_path)] == ALL
    assert result.plot() == []


def many_flows(n: int = 12):
    """n consumers on a shared 10 Mbps link, the first starting at 1 s, short and untraced."""
    import ndncc
    from ndncc import Scenario

    sc = Scenario(name="many", duration="3s", seed=1).link(
        "R1", "R2", bandwidth="10Mbps", delay="5ms"
    )
    for i in range(n):
        sc = sc.link(f"C{i}", "R1", bandwidth="100Mbps", delay="5ms")
        sc = sc.link("R2", f"P{i}", bandwidth="100Mbps", delay="5ms")
        sc = sc.producer(f"P{i}", f"/p{i}", payload="1000B")
        sc = sc.consumer(f"C{i}", f"/p{i}", rate=150, name=f"c{i}", start="1s" if i == 0 else "0s")
    return ndncc.run(sc.trace(figures=False, parquet=False))


def test_many_flows_stay_readable_with_a_capacity_line_and_active_targets():
    result = many_flows()
    figures = build_figures(result)
    tput = figures["throughput.png"].axes[0]
    flows = [ln for ln in tput.get_lines() if ln.get_label()[1:].isdigit()]
    assert len(flows) == 12
    assert len({tuple(ln.get_color()) for ln in flows}) == 12  # no colour repeats
    # the legend sits beside the axes, not over the data
    fig = figures["throughput.png"]
    fig.canvas.draw()
    legend = tput.get_legend().get_window_extent()
    assert legend.x0 >= tput.get_window_extent().x1
    cap = [ln for ln in tput.get_lines() if ln.get_label().startswith("capacity")]
    assert len(cap) == 1 and cap[0].get_ydata()[0] == 10.0
    assert "R1–R2" in cap[0].get_label()
    assert any(ln.get_label() == "total" for ln in tput.get_lines())
    # c0 starts at 1 s: its target rate is drawn only while it sends
    rate = figures["interest_rate.png"].axes[0]
    target = next(ln for ln in rate.get_lines() if ln.get_label() == "c0 target")
    assert min(target.get_xdata()) >= 1.0  # its first sending bin ends at 1 s
    # the queue figure lists no face whose queue stayed empty
    queues = figures["queues.png"].axes[0]
    faces = result.face_series[result.face_series["kind"] == "net"]
    peak = faces.groupby(["node_name", "peer_name"])["queue_max_pkts"].max()
    for text in queues.get_legend().get_texts():
        node, peer = text.get_text().split(" (")[0].split("→")
        assert peak[(node, peer)] > 0, text.get_text()
