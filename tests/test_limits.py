"""Issue 11, item 13: scenarios a run cannot survive are refused before it starts — a rate whose
unanswered Interests would not fit in memory, and values nested so deep that reading them
would exhaust the interpreter's stack — each with a one-line message and a fix."""

from __future__ import annotations

import ndncc
import pytest
from ndncc import cli
from ndncc.scenario import budget

LINE = """
[scenario]
name = "big"
duration = "{duration}"

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"

[[links]]
between = ["C", "P"]

[[apps]]
name = "c"
node = "C"
kind = "consumer"
prefix = "/p"
controller = "constant-rate"
rate = {rate}
{extra}
[[apps]]
name = "p"
node = "P"
kind = "producer"
prefix = "/p"
"""


def scenario(rate: float, duration: str = "10s", extra: str = "") -> ndncc.Scenario:
    return ndncc.Scenario.from_toml_str(LINE.format(rate=rate, duration=duration, extra=extra))


def test_a_rate_whose_pending_interests_exceed_memory_is_refused():
    with pytest.raises(ndncc.ScenarioError) as err:
        scenario(1e9).resolve()
    (p,) = err.value.problems
    assert p.key == "apps[0].rate"
    # 1e9/s held 4 s (the default lifetime) at ~700 B each
    assert "4e+09 Interests outstanding" in p.problem and "2.8 TB" in p.problem
    assert "lower rate to at most" in p.fix
    assert "\n" not in str(p)


def test_the_estimate_follows_the_lifetime_and_the_sending_time(monkeypatch):
    monkeypatch.setattr(budget, "machine_memory", lambda: 16 * 10**9)
    # 2e6/s × 4 s × 700 B = 5.6 GB: above 1/8 of 16 GB, below half of it: a warning
    (w,) = scenario(2e6).warnings
    assert w.key == "apps[0].rate" and "5.6 GB" in w.problem
    # held 0.5 s: 700 MB
    assert not scenario(2e6, extra='lifetime = "500ms"').warnings
    # sending for 0.4 s only
    assert not scenario(2e6, extra='stop = "400ms"').warnings
    # a timeout later than the lifetime holds the consumer's entry longer: 1e6/s × 8 s
    (w,) = scenario(1e6, extra='timeout = "8s"').warnings
    assert "5.6 GB" in w.problem
    # above half of it: refused, and the fix's rate fits
    with pytest.raises(ndncc.ScenarioError) as err:
        scenario(4e6).resolve()
    fix = err.value.problems[0].fix
    safe = float(fix.split("at most ")[1].split(" ")[0])
    assert safe * 4 * budget.BYTES_PER_INTEREST <= 0.5 * 16e9
    assert len(scenario(safe).warnings) == 1  # still above 1/8: a warning, not refused
    with pytest.raises(ndncc.ScenarioError):
        scenario(safe * 1.01).resolve()


def test_the_highest_rate_a_controller_may_reach_is_counted():
    # sf-aimd starts at 100/s but may climb to max_rate
    extra = "max_rate = 1e9"
    text = LINE.format(rate=100, duration="10s", extra=extra).replace(
        '"constant-rate"', '"sf-aimd"'
    )
    with pytest.raises(ndncc.ScenarioError) as err:
        ndncc.Scenario.from_toml_str(text).resolve()
    assert err.value.problems[0].key == "apps[0].max_rate"


def window(controller: str, setting: str, extra: str = "") -> str:
    return LINE.format(rate=1, duration="1s", extra=extra).replace(
        'controller = "constant-rate"\nrate = 1', f'controller = "{controller}"\n{setting}'
    )


def test_a_small_window_is_not_warned_about(monkeypatch):
    monkeypatch.setattr(budget, "machine_memory", lambda: 10**6)
    # 10 × 700 B = 7 kB, below 1/8 of 1 MB
    assert not ndncc.Scenario.from_toml_str(window("fixed-window", "window = 10")).warnings


def test_the_largest_window_is_refused_before_the_run(tmp_path, capsys):
    """window = 4294967295 (the documented maximum) used to pass validate and abort the run
    with an allocation failure: all of it is sent when the consumer starts."""
    text = window("fixed-window", "window = 4294967295")
    with pytest.raises(ndncc.ScenarioError) as err:
        ndncc.Scenario.from_toml_str(text).resolve()
    (p,) = err.value.problems
    assert p.key == "apps[0].window"
    assert "4.29e+09 Interests outstanding" in p.problem and "3.01 TB" in p.problem
    assert "lower window to at most" in p.fix and "\n" not in str(p)
    path = tmp_path / "w.toml"
    path.write_text(text)
    out = ["--out", str(tmp_path / "o")]
    for argv in (["validate", str(path)], ["run", str(path), *out]):
        assert cli.main(argv) == 3
        err = capsys.readouterr().err
        assert "apps[0].window" in err and "Traceback" not in err and len(err.splitlines()) == 1


def test_window_controllers_count_their_largest_window_and_max_seq_caps_it(monkeypatch):
    monkeypatch.setattr(budget, "machine_memory", lambda: 16 * 10**9)
    # 4e6 × 700 B = 2.8 GB: above 1/8 of 16 GB, a warning
    (w,) = ndncc.Scenario.from_toml_str(window("icp", "initial_window = 4e6")).warnings
    assert w.key == "apps[0].initial_window" and "2.8 GB" in w.problem
    # sieve's too; a min_window above initial_window is refused (issue 26, as ICP's and RIC's
    # are), so no controller holds more than its initial_window from its floor
    sieve = window("sieve", "initial_window = 4e6\nmin_window = 4e6")
    (w,) = ndncc.Scenario.from_toml_str(sieve).warnings
    assert w.key in ("apps[0].initial_window", "apps[0].min_window") and "2.8 GB" in w.problem
    # at most max_seq sequence numbers are ever asked for
    capped = window("fixed-window", "window = 4294967295", extra="max_seq = 1000")
    assert not ndncc.Scenario.from_toml_str(capped).warnings
    # the fix's window fits
    with pytest.raises(ndncc.ScenarioError) as err:
        ndncc.Scenario.from_toml_str(window("fixed-window", "window = 20000000")).resolve()
    safe = float(err.value.problems[0].fix.split("at most ")[1].split(" ")[0])
    assert safe * budget.BYTES_PER_INTEREST <= 0.5 * 16e9
    ok = ndncc.Scenario.from_toml_str(window("fixed-window", f"window = {int(safe)}"))
    assert len(ok.warnings) == 1


def deep(levels: int, open_: str = "[", close: str = "]") -> str:
    return open_ * levels + "1" + close * levels


@pytest.mark.parametrize("value", [deep(500), deep(500, "{a = ", "}")])
def test_a_value_nested_500_deep_is_a_clear_error(value):
    text = LINE.format(rate=100, duration="1s", extra=f"lifetime = {value}")
    with pytest.raises(ndncc.ScenarioError) as err:
        ndncc.Scenario.from_toml_str(text)
    (p,) = err.value.problems
    assert p.key == "line 20" and "nested more than 32 levels" in p.problem


def test_a_dict_nested_500_deep_is_a_clear_error():
    value: object = 1
    for _ in range(500):
        value = [value]
    data = {"scenario": {"name": "x", "duration": "1s"}, "links": [{"between": ["A", "B"]}]}
    data["links"][0]["bandwidth"] = value
    with pytest.raises(ndncc.ScenarioError) as err:
        ndncc.Scenario.from_dict(data)
    (p,) = err.value.problems
    assert p.key == "links[0].bandwidth" and "nested" in p.problem
    # a real scenario's depth passes
    ndncc.Scenario.from_dict({"nodes": {"R": {"schemes": {"mircc": {"depth": [[[1]]]}}}}})


def test_cli_reports_deep_values_without_a_traceback(tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text(LINE.format(rate=100, duration="1s", extra=f"lifetime = {deep(600)}"))
    assert cli.main(["validate", str(path)]) == 3
    err = capsys.readouterr().err
    assert "nested more than 32 levels" in err and "Traceback" not in err
    assert cli.main(["run", str(path.with_name("x.toml")), "--set", f"a={deep(600)}"]) != 1
