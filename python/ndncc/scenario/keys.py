"""The scenario file's vocabulary: the tables and keys it may hold, the values some keys
take, limits and defaults, and the hints for keys that other tools name differently.

The keys of the per-node schemes ([nodes.NAME.schemes.<name>]) are in :mod:`.schemes`.
"""

U32 = 2**32 - 1
U64 = 2**64 - 1

TOP_LEVEL = (
    "scenario",
    "packets",
    "topology",
    "defaults",
    "nodes",
    "links",
    "routing",
    "routes",
    "apps",
    "trace",
    "sdn",
)
APP_KINDS = ("consumer", "producer")
ENGINES = {
    "ideal": "ideal",
    "tick": "tick",
    "tick+smoothing": "tick",
    "rfc3448": "rfc3448",
    "rfc3448-burst": "rfc3448",
    "rmc": "rmc",
}
# The clock a consumer's sending loop sleeps on (seed 003): consumer key `clock`.
CLOCKS = ("ideal", "granular", "os")
# ndnSIM's ConsumerCbr `Randomize`: the gaps of the ideal engine (consumer key `randomize`).
RANDOMIZE = ("none", "uniform", "exponential")
CLOCK_PROFILE_STATES = ("idle", "load")  # the profiles `ndncc clock-probe` measures
RETRANSMIT = {
    "none": (False, False),
    "timeout": (True, False),
    "nack": (False, True),
    "both": (True, True),
}
ROUTING_MODES = ("shortest", "static")
METRICS = ("delay", "hops", "cost")
DEFAULT_RATE_TRACE_NS = 500_000_000  # ndnSIM's L3RateTracer default period
DEFAULT_LIFETIME_NS = 4_000_000_000  # a consumer's Interest lifetime (NFD's default)
NDNSIM_LIFETIME_NS = 2_000_000_000  # ndnSIM's Consumer LifeTime (controller "ndnsim-cbr")

_SCENARIO_KEYS = ("name", "duration", "seed", "run")
_PACKET_KEYS = ("interest_size", "data_overhead", "nack_overhead")
_NODE_KEYS = ("strategy", "cs", "schemes")
_LINK_KEYS = ("between", "bandwidth", "delay", "queue", "queue_ab", "queue_ba", "loss", "cost")
_LINK_DEFAULT_KEYS = ("bandwidth", "delay", "queue", "loss", "cost")
_APP_KEYS = ("name", "node", "kind", "prefix", "start", "stop")
_PRODUCER_KEYS = (
    "payload",
    "freshness",
    "content_segments",
    "processing_delay",
    "share",
    "placement_block",
)
# The consumer's own keys; its controller's keys (rate, window, …) come from the registry's
# schema and follow "controller" (see schemes.consumer_keys).
_CONSUMER_KEYS = (
    "controller",
    "engine", "randomize",
    "tick", "smoothing", "granularity", "max_owed", "kr", "period",
    "clock", "clock_granularity", "clock_wait_mean", "clock_profile", "clock_profile_state",
    "clock_load_window",
    "lifetime", "timeout", "retransmit", "max_transmissions", "start_seq",
    "max_seq", "chunk_segments",
)  # fmt: skip
# Consumer keys that belong to some engines only: key -> the ones it applies to.
ENGINE_KEYS = {
    "randomize": ("ideal",),  # random gaps of mean 1/r (ndnSIM's ConsumerCbr Randomize)
    "tick": ("tick", "tick+smoothing"),
    "smoothing": ("tick", "tick+smoothing"),
    "granularity": ("rfc3448", "rfc3448-burst"),  # t_g of the RFC 3448 delta rule
    "max_owed": ("rfc3448", "rfc3448-burst"),
    "kr": ("rmc",),  # the RMC gain
    "period": ("rmc",),  # Ts, the RMC loop period
}
# Consumer keys that belong to some clocks only, like ENGINE_KEYS.
_CLOCK_KEYS = {
    "clock_granularity": ("granular", "os"),
    "clock_wait_mean": ("os",),
    "clock_profile": ("os",),
    "clock_profile_state": ("os",),
    "clock_load_window": ("os",),
}
MAX_SCENARIO_BYTES = 64 * 2**20  # a scenario file beyond 64 MiB is a wrong path
MAX_CHUNK_SEGMENTS = 64  # one bit per segment in a chunk Interest's request (ChunkRequest)
MAX_RATE = 1e9  # packets per second: one per ns, the simulator's time resolution
# Rows of the time-series tables a scenario may ask for (bins x (apps + faces + nodes)); about
# 200 bytes each, so some 4 GB: beyond that a longer bin is the fix, not more memory.
MAX_TABLE_ROWS = 20_000_000
DEFAULT_CLOCK_GRANULARITY_NS = 1_000_000  # 1 ms: seed 003's Linux, HZ = 1000
DEFAULT_RMC_PERIOD_NS = 1_000_000  # Ts = 1 ms
_ROUTE_KEYS = ("node", "prefix", "next_hop", "cost")
_PERIODIC_TRACES = ("rate_trace", "drop_trace", "cs_trace")  # ndnSIM tracers with a period
_TRACE_KEYS = ("bin", "delays", "parquet", "figures", *_PERIODIC_TRACES, "app_delays_trace")

# Names users coming from other tools reach for, mapped to ours (difflib misses most of them).
_KEY_HINTS = {
    "bw": "bandwidth", "rate": "bandwidth", "capacity": "bandwidth", "latency": "delay",
    "max_queue_size": "queue", "queue_size": "queue", "maxpackets": "queue", "lossrate": "loss",
    "loss_rate": "loss", "metric": "cost", "nodes": "between", "ends": "between",
    "payload_size": "payload", "size": "payload", "retxtimer": "retx_timer", "maxseq": "max_seq",
    "startseq": "start_seq", "payloadsize": "payload",
    "interest_lifetime": "lifetime", "cs_capacity": "cs", "cache": "cs", "content_store": "cs",
    "next_hops": "next_hop", "nexthop": "next_hop", "face": "next_hop", "via": "next_hop",
    "type": "kind", "app": "kind", "seconds": "duration", "stop_time": "stop",
    "start_time": "start", "bin_size": "bin", "retx": "retransmit",
    "tick_interval": "tick", "granularity": "tick", "clock": "tick", "smooth": "smoothing",
    "initial": "initial_rate", "max_depth": "depth", "bucket_depth": "depth",
    "randomize_leak": "leak_randomize", "additive_increase": "increase",
    "multiplicative_decrease": "decrease", "suppress_nacks": "nack_suppression",
    "t": "interval", "period": "interval", "update_interval": "interval",
    "rate_interval": "interval", "gamma": "ewma", "weight": "ewma", "ewma_weight": "ewma",
    "utilisation": "eta", "utilization": "eta", "target_utilization": "eta", "rtt": "initial_rtt",
    "policing": "police", "minimum_rate": "min_rate", "floor": "min_rate",
    "k_r": "kr", "gain": "kr", "ts": "period", "t_s": "period", "tg": "clock_granularity",
    "t_g": "clock_granularity", "wait_mean": "clock_wait_mean", "mean_wait": "clock_wait_mean",
    "clock_wait": "clock_wait_mean", "wait": "clock_wait_mean", "profile": "clock_profile",
    "clock_probe": "clock_profile", "profile_state": "clock_profile_state",
    "clock_state": "clock_profile_state", "state": "clock_profile_state",
    "max_backlog": "max_owed", "owed": "max_owed",
}  # fmt: skip
