"""Scenarios: the user's TOML (or Python-built) description, validated and resolved.

A :class:`Scenario` holds the same nested dict a scenario TOML file parses to, whether it was
loaded from a file, given as a dict or built with the builder methods, so every scenario goes
through one validation path. :meth:`Scenario.resolve` checks everything, collects *all*
mistakes into one :class:`ScenarioError`, converts units to integers (ns, bps, bytes) and
returns the resolved spec of ``crates/sim/src/spec.rs`` as a JSON-able dict; the simulator
computes the shortest-path routes from it (:meth:`Scenario.routes` lists them).

The file format is documented in ``docs/scenario.md``.

The package, in the order a scenario goes through it:

* :mod:`.model` — :class:`Scenario` (constructors, builder, :meth:`~Scenario.with_overrides`,
  results) and the canonical JSON / hash of a resolved spec;
* :mod:`.toml_io` — TOML parsing (syntax errors as problems) and writing;
* :mod:`.overrides` — dotted-path overrides ("links[0].bandwidth");
* :mod:`.resolver` — :class:`_Resolver`, one validation pass, and the checks across tables;
  it reads each section with a mixin: :mod:`.read_settings` ([scenario], [packets], [trace]),
  :mod:`.read_topology` ([defaults], [nodes], [topology], [[links]]), :mod:`.schemes` (the
  per-node schemes sf and mircc), :mod:`.read_apps` ([[apps]]: producers, consumers,
  controllers, engines, clocks) and :mod:`.routing` ([routing], [[routes]]);
* :mod:`.tables` — :class:`_Table` (a table plus where it came from), :class:`_Link`, :class:`_App`;
* :mod:`.convert` — value converters (units, numbers, choices, names, prefixes …);
* :mod:`.clock_profiles` — the JSON files ``ndncc clock-probe`` writes;
* :mod:`.keys` — the tables, keys, choices, limits and defaults; :mod:`.errors` —
  :class:`Problem`, :class:`ScenarioError` and the did-you-mean helpers.
"""

from .clock_profiles import read_clock_profile
from .errors import Problem, ScenarioError
from .keys import APP_KINDS as APP_KINDS
from .keys import CLOCK_PROFILE_STATES as CLOCK_PROFILE_STATES
from .keys import CLOCKS as CLOCKS
from .keys import DEFAULT_CLOCK_GRANULARITY_NS as DEFAULT_CLOCK_GRANULARITY_NS
from .keys import DEFAULT_RATE_TRACE_NS as DEFAULT_RATE_TRACE_NS
from .keys import DEFAULT_RMC_PERIOD_NS as DEFAULT_RMC_PERIOD_NS
from .keys import ENGINE_KEYS as ENGINE_KEYS
from .keys import ENGINES as ENGINES
from .keys import MAX_RATE as MAX_RATE
from .keys import MAX_SCENARIO_BYTES as MAX_SCENARIO_BYTES
from .keys import MAX_TABLE_ROWS as MAX_TABLE_ROWS
from .keys import METRICS as METRICS
from .keys import RANDOMIZE as RANDOMIZE
from .keys import RETRANSMIT as RETRANSMIT
from .keys import ROUTING_MODES as ROUTING_MODES
from .keys import TOP_LEVEL as TOP_LEVEL
from .keys import U32 as U32
from .keys import U64 as U64
from .model import Scenario
from .model import spec_hash as spec_hash
from .model import spec_json as spec_json

__all__ = ["Problem", "Scenario", "ScenarioError", "read_clock_profile"]
