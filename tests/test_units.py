import pytest
from ndncc.units import (
    UnitError,
    format_queue,
    format_rate,
    format_size,
    format_time,
    parse_queue,
    parse_rate,
    parse_size,
    parse_time,
)


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("100Mbps", 100_000_000),
        ("1Gbps", 1_000_000_000),
        ("10Kbps", 10_000),
        ("10kbps", 10_000),
        ("500bps", 500),
        ("12.5MBps", 100_000_000),
        ("100mbps", 100_000_000),  # no millibits: the multiplier letter is case-insensitive
        ("1Gb/s", 1_000_000_000),
        ("1Kibps", 1024),
        ("2 Mbps", 2_000_000),
        ("1e3bps", 1000),
        ("0bps", 0),
        (0, 0),
    ],
)
def test_parse_rate(text, bps):
    assert parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("50ms", 50_000_000),
        ("10s", 10_000_000_000),
        ("1.5s", 1_500_000_000),
        ("0.1s", 100_000_000),
        ("250us", 250_000),
        ("250µs", 250_000),
        ("100ns", 100),
        ("2min", 120_000_000_000),
        ("1h", 3_600_000_000_000),
        ("50MS", 50_000_000),
        ("0", 0),
        (0, 0),
    ],
)
def test_parse_time(text, ns):
    assert parse_time(text) == ns


@pytest.mark.parametrize(
    ("text", "nbytes"),
    [
        ("1250B", 1250),
        ("1500KB", 1_500_000),
        ("1500kB", 1_500_000),
        ("64KiB", 65_536),
        ("1MiB", 1_048_576),
        ("1.5MB", 1_500_000),
        ("40 bytes", 40),
        ("0B", 0),
    ],
)
def test_parse_size(text, nbytes):
    assert parse_size(text) == nbytes


@pytest.mark.parametrize(
    ("text", "queue"),
    [
        ("100p", {"packets": 100}),
        ("100packets", {"packets": 100}),
        ("20 pkts", {"packets": 20}),
        ("1500KB", {"bytes": 1_500_000}),
        ("64KiB", {"bytes": 65_536}),
    ],
)
def test_parse_queue(text, queue):
    assert parse_queue(text) == queue


@pytest.mark.parametrize(
    ("parse", "value", "problem", "fix"),
    [
        (parse_rate, 100, "has no unit", "'100Mbps'"),
        (parse_rate, "100", "has no unit", "'100Mbps'"),
        (parse_rate, "100MBPS", "ambiguous", "'100Mbps' for bits"),
        (parse_rate, "100Mb", "is a size, not a rate", "'100Mbps'"),
        (parse_rate, "10ms", "is a time", "100Mbps"),
        (parse_rate, "-5Mbps", "must not be negative", "100Mbps"),
        (parse_rate, "1.5bps", "not a whole number", "round"),
        (parse_rate, "fast", "cannot read", "100Mbps"),
        (parse_time, 50, "has no unit", "'50ms'"),
        (parse_time, 2.5, "has no unit", "'2.5ms'"),
        (parse_time, "5m", "ambiguous", "'5ms' or '5min'"),
        (parse_time, "-1s", "must not be negative", "50ms"),
        (parse_time, "10Mbps", "is a rate", "50ms"),
        (parse_time, "3 fortnights", "unknown unit 'fortnights'", "50ms"),
        (parse_time, "0.5ns", "not a whole number of nanoseconds", "round"),
        (parse_time, True, "expected a time", "50ms"),
        (parse_size, "1250b", "means bits", "'1250B'"),
        (parse_size, "10kb", "means bits", "'10kB'"),
        (parse_size, 1250, "has no unit", "'1250B'"),
        (parse_size, "10Bps", "is a rate", "1250B"),
        (parse_queue, 100, "has no unit", "'100p'"),
        (parse_queue, "100kb", "means bits", "'100kB'"),
        (parse_queue, "1s", "is a time", "100p"),
        (parse_queue, "1.5p", "not a whole number of packets", "round"),
    ],
)
def test_errors(parse, value, problem, fix):
    with pytest.raises(UnitError) as info:
        parse(value)
    assert problem in info.value.problem
    assert fix in info.value.fix
    assert "(fix: " in str(info.value)


def test_unit_error_is_value_error():
    with pytest.raises(ValueError, match="no unit"):
        parse_time(5)


def test_parse_time_proposes_the_given_unit():
    with pytest.raises(UnitError, match="'10s'"):
        parse_time(10, unit_example="s")


@pytest.mark.parametrize(
    ("fmt", "value", "text"),
    [
        (format_rate, 100_000_000, "100Mbps"),
        (format_rate, 12_500_000, "12.5Mbps"),
        (format_rate, 1_000_000_000, "1Gbps"),
        (format_rate, 500, "500bps"),
        (format_rate, 0, "0bps"),
        (format_time, 50_000_000, "50ms"),
        (format_time, 1_500_000_000, "1.5s"),
        (format_time, 120_000_000_000, "2min"),
        (format_time, 90_000_000_000, "90s"),
        (format_time, 1, "1ns"),
        (format_size, 1250, "1.25KB"),
        (format_size, 1_500_000, "1.5MB"),
        (format_size, 40, "40B"),
    ],
)
def test_format(fmt, value, text):
    assert fmt(value) == text


@pytest.mark.parametrize("bps", [1, 999, 1000, 12_345_678, 100_000_000, 1_234_567_891])
def test_rate_round_trip(bps):
    assert parse_rate(format_rate(bps)) == bps


@pytest.mark.parametrize("ns", [1, 1001, 50_000_000, 1_234_567, 60_000_000_000, 61_000_000_001])
def test_time_round_trip(ns):
    assert parse_time(format_time(ns)) == ns


@pytest.mark.parametrize("queue", [{"packets": 100}, {"bytes": 64_000}, {"bytes": 1_234_567}])
def test_queue_round_trip(queue):
    assert parse_queue(format_queue(queue)) == queue
