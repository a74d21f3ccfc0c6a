"""``ndncc emulate``: a scenario's topology run for real, one ``ndnccd`` per node.

* :mod:`.plan` — the resolved scenario → one ``ndnccd`` configuration per node (a face per
  link with the link's bandwidth, delay and queue on its outgoing direction, the routes, the
  node's router scheme) and the app processes; what emulation cannot do is refused up front.
* :mod:`.netns` — network namespaces and veth pairs (root), else loopback UDP ports.
* :mod:`.supervise` — starts, watches and always stops the processes.
* :mod:`.collect` — the apps' and daemons' reports → ``summary.json`` and the series.
* :mod:`.compare` — the ``sim-vs-real`` report (the simulator on the same scenario beside it).

The driver holds no protocol logic: forwarding, schemes and link emulation are ``ndnccd``'s,
the apps are the simulator's consumer and producer (``ndncc consumer`` / ``ndncc producer``).
"""

from .plan import EmulateError

__all__ = ["EmulateError"]
