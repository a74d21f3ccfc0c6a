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
